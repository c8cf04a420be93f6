#pragma once

// One finding at a profile value: located through the profile's source map, or at its file when
// the value has no line (a default). The model's errors, the closure's and the fleet's set
// checks report through it.

#include <string>

#include "load/load.h"
#include "support/diagnostics.h"

namespace hkim {

/// Reports `rule` at `pointer` of `loaded` to `sink`.
void ReportAt(const LoadedProfile& loaded, const std::string& pointer, Severity severity,
              const std::string& rule, std::string message, std::string fix, DiagnosticSink& sink);

}  // namespace hkim
