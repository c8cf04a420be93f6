#include "health_check.h"

#include <unistd.h>

#include "exec.h"

namespace hkim::wrapper {

bool ParseHealthCheckMode(const std::string& value, HealthCheckMode* mode) {
  if (value.empty() || value == "off")
    *mode = HealthCheckMode::kOff;
  else if (value == "warn")
    *mode = HealthCheckMode::kWarn;
  else if (value == "fail")
    *mode = HealthCheckMode::kFail;
  else
    return false;
  return true;
}

HealthCheckResult RunHealthCheck(HealthCheckMode mode, const std::string& program,
                                 const std::vector<std::string>& env) {
  HealthCheckResult result;
  if (mode == HealthCheckMode::kOff) return result;
  const char* policy = mode == HealthCheckMode::kFail ? "fail" : "warn";
  if (::access(program.c_str(), X_OK) != 0) {
    result.status = kExitNotFound;
    result.message = std::string("health check: ") + program +
                     " is missing or not executable (HKIM_NCCL_CHECK=" + policy + ")";
  } else {
    std::string error;
    result.ran = true;
    result.status = RunChild({program}, env, &error);
    if (!error.empty()) {
      result.message = "health check: " + error + " (HKIM_NCCL_CHECK=" + policy + ")";
    } else if (result.status == 0) {
      result.message = "health check: hkim-nccl-check passed";
      return result;
    } else {
      result.message = "health check: hkim-nccl-check failed with status " +
                       std::to_string(result.status) + " (HKIM_NCCL_CHECK=" + policy + ")";
    }
  }
  if (mode == HealthCheckMode::kFail) {
    result.proceed = false;
    result.exit_code = result.status;
    result.message += "; the job is not started";
  } else {
    result.message += "; starting the job anyway";
  }
  return result;
}

}  // namespace hkim::wrapper
