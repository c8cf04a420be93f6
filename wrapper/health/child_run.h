#pragma once
// Runs one of the other hkim-* programs as a child: its stderr goes straight to ours (the pod
// log shows its table as it happens), its stdout is captured (a JSON record or the diagnosis),
// and it is killed when it outlives its deadline.

#include <string>
#include <vector>

namespace hkim::health {

/// What a child did.
struct ChildResult {
  bool started = false;  ///< false: could not be started (`error` says why)
  bool timed_out = false;
  int status = -1;     ///< exit status; 128+signal when killed by a signal
  std::string output;  ///< everything it wrote to stdout
  std::string error;
};

/// Runs `argv` (argv[0] a path) with `extra_env` ("NAME=VALUE", overriding) added to our
/// environment, for at most `timeout_s` seconds (SIGKILL after that).
ChildResult RunChild(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                     double timeout_s);

}  // namespace hkim::health
