#pragma once

#include <map>
#include <string>
#include <vector>

#include "decide.h"

namespace hkim::wrapper {

/// The wrapper's command line, with defaults from the environment already applied.
struct Options {
  std::string sysfs_root = "/sys";    ///< --sysfs-root, else HKIM_SYSFS_ROOT
  Policy on_no_rdma = Policy::kFail;  ///< --on-no-rdma, else HKIM_ON_NO_RDMA
  bool print_env = false;             ///< --print-env
  bool check = false;                 ///< --check
  bool quiet = false;                 ///< --quiet: no banner (the JSON record is still written)
  std::string report_file;            ///< --report FILE (else the JSON line goes to stderr)
  std::string install_to;             ///< --install-to DIR
  bool help = false;
  bool version = false;
  std::vector<std::string> command;  ///< after `--` (or from the first non-option word)
};

/// The text of --help.
std::string UsageText();

/// Parses argv[1..]. Returns false with `*error` on a usage error (unknown option, missing or
/// bad value, nothing to do).
bool ParseCommandLine(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env, Options* options,
                      std::string* error);

}  // namespace hkim::wrapper
