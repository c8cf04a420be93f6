#pragma once

#include <cstddef>
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
/// Without `where` the line starts with `hkim-wrapper:`. Every field goes through Printable:
/// names and values from the environment or sysfs may hold any byte.
std::string FormatFinding(const Finding& finding);

/// `text` safe for a log line or a terminal: control characters (newline included) and bytes
/// that are not valid UTF-8 become `\xNN`; valid UTF-8 is kept as it is.
std::string Printable(const std::string& text);

/// Most findings of one rule that a report shows; hostile input (thousands of bad addresses,
/// a GID table of loops) would otherwise flood the pod's log.
inline constexpr size_t kMaxFindingsPerRule = 16;

/// Keeps the first `per_rule` findings of each rule in their order and replaces the rest of
/// that rule by one finding at the place of the first dropped one: "N more ... not shown",
/// as severe as the most severe finding it replaces (so `--check` judges the same).
void LimitFindings(Findings* findings, size_t per_rule = kMaxFindingsPerRule);

}  // namespace hkim::wrapper
