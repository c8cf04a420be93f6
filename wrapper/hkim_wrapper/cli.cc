#include "cli.h"

namespace hkim::wrapper {
namespace {

bool ParsePolicy(const std::string& value, Policy* policy) {
  if (value == "fail")
    *policy = Policy::kFail;
  else if (value == "tcp")
    *policy = Policy::kTcp;
  else
    return false;
  return true;
}

}  // namespace

std::string UsageText() {
  return R"(usage: hkim-wrapper [options] -- COMMAND [ARGS...]
       hkim-wrapper --print-env | --check [options]
       hkim-wrapper --install-to DIR

Finds the RDMA devices allocated to this pod (SR-IOV device plugin PCIDEVICE_* variables, then
sysfs), sets NCCL_IB_HCA, NCCL_IB_GID_INDEX, NCCL_SOCKET_IFNAME and NCCL_IB_DISABLE (never
overriding a variable already set), raises RLIMIT_MEMLOCK, reports, runs hkim-nccl-check when
HKIM_NCCL_CHECK is warn|fail, then execs COMMAND with that environment.

options:
  --sysfs-root DIR     read DIR instead of /sys (default: $HKIM_SYSFS_ROOT or /sys); with a
                       fixture root the libibverbs check is skipped and a low memlock limit
                       is reported but not enforced
  --on-no-rdma POLICY  fail (default) or tcp: what to do without a usable RDMA device
                       (default: $HKIM_ON_NO_RDMA or fail)
  --print-env          print the variables that would be set (sorted NAME=VALUE) and exit;
                       exit 1 when the pod must not start
  --check              print the full diagnosis; exit 0 only when RDMA is fully usable
  --report FILE        write the JSON decision record to FILE instead of stderr
  --quiet, -q          no banner on stderr
  --install-to DIR     copy this program and the hkim-* programs beside it into DIR
  --help, --version

environment: HKIM_MODE=tcp (skip detection, socket transport), HKIM_ON_NO_RDMA,
  HKIM_SYSFS_ROOT, HKIM_NCCL_CHECK=off|warn|fail, HKIM_VERBS=off (skip the libibverbs check)
exit status: the job's; 1 when the policy stops the pod; 2 usage error; 126/127 when COMMAND
  cannot run; hkim-nccl-check's status when it fails under HKIM_NCCL_CHECK=fail
)";
}

bool ParseCommandLine(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env, Options* options,
                      std::string* error) {
  if (auto it = env.find("HKIM_SYSFS_ROOT"); it != env.end() && !it->second.empty())
    options->sysfs_root = it->second;
  if (auto it = env.find("HKIM_ON_NO_RDMA"); it != env.end() && !it->second.empty()) {
    if (!ParsePolicy(it->second, &options->on_no_rdma)) {
      *error = "HKIM_ON_NO_RDMA=" + it->second + " is not fail or tcp";
      return false;
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--") {
      options->command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (arg.empty() || arg[0] != '-') {
      options->command.assign(args.begin() + static_cast<long>(i), args.end());
      break;
    }
    std::string value;
    bool inline_value = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    auto take_value = [&](std::string* out) {
      if (inline_value) {
        *out = value;
      } else if (i + 1 < args.size()) {
        *out = args[++i];
      } else {
        *error = arg + " needs a value";
        return false;
      }
      if (out->empty()) {
        *error = arg + " needs a non-empty value";
        return false;
      }
      return true;
    };
    auto no_value = [&]() {
      if (inline_value) *error = arg + " takes no value";
      return !inline_value;
    };
    if (arg == "--sysfs-root") {
      if (!take_value(&options->sysfs_root)) return false;
    } else if (arg == "--on-no-rdma") {
      std::string policy;
      if (!take_value(&policy)) return false;
      if (!ParsePolicy(policy, &options->on_no_rdma)) {
        *error = "--on-no-rdma " + policy + ": expected fail or tcp";
        return false;
      }
    } else if (arg == "--report") {
      if (!take_value(&options->report_file)) return false;
    } else if (arg == "--install-to") {
      if (!take_value(&options->install_to)) return false;
    } else if (arg == "--print-env") {
      if (!no_value()) return false;
      options->print_env = true;
    } else if (arg == "--check") {
      if (!no_value()) return false;
      options->check = true;
    } else if (arg == "--quiet" || arg == "-q") {
      if (!no_value()) return false;
      options->quiet = true;
    } else if (arg == "--help" || arg == "-h") {
      options->help = true;
      return true;
    } else if (arg == "--version") {
      options->version = true;
      return true;
    } else {
      *error = "unknown option " + arg + " (see --help)";
      return false;
    }
  }
  if (options->print_env && options->check) {
    *error = "--print-env and --check cannot be combined";
    return false;
  }
  if (options->install_to.empty() && !options->print_env && !options->check &&
      options->command.empty()) {
    *error = "no command: use hkim-wrapper [options] -- COMMAND [ARGS...] (or --print-env/--check)";
    return false;
  }
  return true;
}

}  // namespace hkim::wrapper
