#include "load/report_at.h"

#include <utility>

namespace hkim {

void ReportAt(const LoadedProfile& loaded, const std::string& pointer, Severity severity,
              const std::string& rule, std::string message, std::string fix, DiagnosticSink& sink) {
  Diagnostic d;
  d.severity = severity;
  d.location = loaded.locations.Find(pointer);
  if (d.location.file.empty()) d.location.file = loaded.path;
  d.data_path = pointer;
  d.rule = rule;
  d.message = std::move(message);
  d.fix = std::move(fix);
  sink.Report(std::move(d));
}

}  // namespace hkim
