#pragma once

#include <string>
#include <vector>

namespace hkim::wrapper {

/// HKIM_NCCL_CHECK: off | warn | fail (docs/CONTRACTS.md, pod runtime contract).
enum class HealthCheckMode { kOff, kWarn, kFail };

/// Parses the variable's value ("" means off). Returns false for anything else.
bool ParseHealthCheckMode(const std::string& value, HealthCheckMode* mode);

/// What happened with hkim-nccl-check.
struct HealthCheckResult {
  bool ran = false;
  int status = 0;       ///< its exit status (127 when missing)
  bool proceed = true;  ///< the job may start
  int exit_code = 0;    ///< the wrapper's exit status when !proceed
  std::string message;  ///< one line for the banner
};

/// Runs `program` (hkim-nccl-check beside the wrapper) as a child with the job's final
/// environment. kFail and a failed or missing check stop the pod with the check's status;
/// kWarn reports and goes on.
HealthCheckResult RunHealthCheck(HealthCheckMode mode, const std::string& program,
                                 const std::vector<std::string>& env);

}  // namespace hkim::wrapper
