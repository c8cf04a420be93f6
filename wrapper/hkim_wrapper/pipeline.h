#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli.h"

namespace hkim::wrapper {

/// Everything main() hands over: the parsed options, the environment and where output goes.
struct RunContext {
  Options options;
  std::vector<std::string> environ_entries;  ///< NAME=VALUE, as in environ
  std::string self_path;                     ///< the wrapper's executable (for hkim-nccl-check)
  std::ostream* out = nullptr;               ///< stdout
  std::ostream* err = nullptr;               ///< stderr
};

/// The one place that knows the order of the stages: scan the environment → probe sysfs and
/// detect → libibverbs → memlock → decide → report → health check → exec. Returns the exit
/// status (only returns for the print/check modes, policy stops and exec failures).
int RunWrapper(const RunContext& context);

}  // namespace hkim::wrapper
