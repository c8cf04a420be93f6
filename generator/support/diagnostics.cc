#include "support/diagnostics.h"

#include <algorithm>

namespace hkim {

bool DiagnosticSink::HasErrors() const { return ErrorCount() > 0; }

int DiagnosticSink::ErrorCount() const {
  return static_cast<int>(
      std::count_if(diagnostics_.begin(), diagnostics_.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::kError; }));
}

int DiagnosticSink::WarningCount() const {
  return static_cast<int>(
      std::count_if(diagnostics_.begin(), diagnostics_.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::kWarning; }));
}

}  // namespace hkim
