#pragma once

#include <string>
#include <vector>

namespace hkim::wrapper {

/// How bad a finding is. kError means "RDMA is not fully usable" (`--check` fails on it);
/// whether the pod may still start is decided by the policy in decide.h, not by severity.
enum class Severity { kError, kWarning, kNote };

/// One thing the wrapper noticed, with everything an operator needs to act on it.
struct Finding {
  Severity severity = Severity::kWarning;
  std::string
      where;  ///< "env PCIDEVICE_X_INFO:1:17", a sysfs path, or "" when nowhere in particular
  std::string rule;     ///< stable id, e.g. "env.info-json-malformed", "port.not-active"
  std::string message;  ///< what is wrong or what was found, one sentence
  std::string fix;      ///< what to do about it; may be empty for notes
};

using Findings = std::vector<Finding>;

/// "error", "warning" or "note".
const char* SeverityName(Severity severity);

/// gcc-style: `where: warning: message [rule]` and, when there is one, `\n  fix: ...`.
/// Without `where` the line starts with `hkim-wrapper:`.
std::string FormatFinding(const Finding& finding);

}  // namespace hkim::wrapper
