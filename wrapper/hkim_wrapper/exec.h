#pragma once

#include <map>
#include <string>
#include <vector>

namespace hkim::wrapper {

/// Exit statuses of a command that could not be started, as shells use them.
inline constexpr int kExitCannotExecute = 126;
inline constexpr int kExitNotFound = 127;

/// The job's environment: `entries` (NAME=VALUE, as in environ) with every variable of `set`
/// added; an existing entry of the same name (only ever an empty one, see decide.h) is replaced.
std::vector<std::string> BuildEnvironment(const std::vector<std::string>& entries,
                                          const std::map<std::string, std::string>& set);

/// Replaces this process with `argv` (PATH searched when argv[0] has no '/'), environment `env`:
/// same PID, so signals reach the job and its exit status is the pod's. Returns only on
/// failure, with 127 (not found) or 126 (found but not executable) and `*error` explaining.
int ExecCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                std::string* error);

/// Runs `argv` as a child with `env` and waits. Returns its exit status (128+N for signal N),
/// or 127/126 like ExecCommand when it cannot start (then `*error` says why).
int RunChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             std::string* error);

}  // namespace hkim::wrapper
