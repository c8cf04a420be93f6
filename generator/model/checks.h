#pragma once

// Cross-field checks of the model stage (model/checks.cc), split from model/model.cc for size.

#include "support/diagnostics.h"
#include "load/load.h"
#include "model/model.h"

namespace hkim {

/// Reports every cross-field problem of `profile` (GPUs per pod over GPUs per node, duplicate
/// rails or NADs, overlapping rail ranges, platform-only settings on the wrong platform, ...) to
/// `sink`, located through `loaded`'s source map. Returns the number of errors reported.
int CheckProfile(const Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink);

/// Reports one model-stage error at `pointer`, located through `loaded`'s source map (the
/// profile's file when the pointer has no line, e.g. a default value).
void ReportModelError(const LoadedProfile& loaded, DiagnosticSink& sink, const std::string& pointer,
                      const std::string& rule, const std::string& message, const std::string& fix);

}  // namespace hkim
