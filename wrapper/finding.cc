#include "finding.h"

namespace hkim::wrapper {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "note";
}

std::string FormatFinding(const Finding& finding) {
  std::string out = finding.where.empty() ? "hkim-wrapper" : finding.where;
  out += ": ";
  out += SeverityName(finding.severity);
  out += ": ";
  out += finding.message;
  out += " [" + finding.rule + "]";
  if (!finding.fix.empty()) out += "\n  fix: " + finding.fix;
  return out;
}

}  // namespace hkim::wrapper
