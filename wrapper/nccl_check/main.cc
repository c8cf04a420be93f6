// hkim-nccl-check: NCCL all-reduce health check run by hkim-wrapper before the job
// (docs/CONTRACTS.md, pod runtime contract). Settings come from the environment; the flags
// override them for runs by hand and benchmarks.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "check_config.h"
#include "nccl_check.h"
#include "per_rail_run.h"
#include "size_range.h"

namespace {

using hkim::nccl_check::CheckConfig;
using hkim::nccl_check::ConfigError;

std::optional<std::string> GetEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// The command-line flags that are not CheckConfig fields: those that go through the environment
// parser (so they are checked the same way), and the modes.
struct CommandLine {
  bool which_nccl = false;
  bool per_rail = false;
  std::string scope, min_bytes, max_bytes, at_bytes, transport, json_path;
  std::optional<double> min_busbw;
};

void AddOptions(CLI::App& app, CheckConfig& config, CommandLine& flags) {
  app.add_option("--scope", flags.scope, "local | job (default: HKIM_NCCL_CHECK_SCOPE or local)");
  app.add_option("--min-bytes", flags.min_bytes, "smallest message size (default 1M)");
  app.add_option("--max-bytes", flags.max_bytes,
                 "largest message size (HKIM_NCCL_CHECK_MAX_BYTES)");
  app.add_option("--at-bytes", flags.at_bytes,
                 "size the minimum applies to (HKIM_NCCL_CHECK_AT_BYTES)");
  app.add_option("--min-busbw-gbps", flags.min_busbw,
                 "minimum busbw (HKIM_NCCL_CHECK_MIN_BUSBW_GBPS)");
  app.add_option(
      "--transport", flags.transport,
      "any | NET/IB | NET/IB/GDRDMA (GPUDirect RDMA on every IB connection) | NET/Socket | P2P");
  app.add_option("--gpus", config.gpus, "local GPUs to use (default: all visible)");
  app.add_option("--iters", config.iterations, "timed calls per size (default: by size)");
  app.add_option("--warmup", config.warmup_iterations, "untimed calls per size");
  app.add_option("--size-budget-s", config.size_budget_s,
                 "planned timed calls of one size stay within this many seconds");
  app.add_option("--rendezvous-timeout-s", config.rendezvous_timeout_s,
                 "how long pods wait for each other");
  app.add_option("--json", flags.json_path, "write the JSON record to this file ('-' = stdout)");
  app.add_option("--nccl-log", config.nccl_log_path, "keep NCCL's debug log at this path");
  app.add_flag("--which-nccl", flags.which_nccl,
               "print the NCCL the check would load (version, path) and exit; needs no GPU");
  app.add_flag("--per-rail", flags.per_rail,
               "each RDMA device alone (NCCL_IB_HCA), then all together; a down, slow "
               "(HKIM_NCCL_CHECK_MIN_RAIL_FRACTION of the best) or missing "
               "(HKIM_NCCL_CHECK_EXPECT_RAILS) rail fails");
}

// The flags over the environment's settings. They go through the same parser as the
// environment, so they are checked the same way.
void ApplyFlags(const CommandLine& flags, CheckConfig& config, std::vector<ConfigError>& errors) {
  const auto flag_env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "HKIM_NCCL_CHECK_SCOPE" && !flags.scope.empty()) return flags.scope;
    if (name == "HKIM_NCCL_CHECK_MAX_BYTES" && !flags.max_bytes.empty()) return flags.max_bytes;
    if (name == "HKIM_NCCL_CHECK_AT_BYTES" && !flags.at_bytes.empty()) return flags.at_bytes;
    if (name == "HKIM_NCCL_CHECK_TRANSPORT" && !flags.transport.empty()) return flags.transport;
    if (name == "HKIM_NCCL_CHECK_MIN_BUSBW_GBPS" && flags.min_busbw)
      return std::to_string(*flags.min_busbw);
    return std::nullopt;
  };
  hkim::nccl_check::ReadEnvironment(flag_env, config, errors);
  if (!flags.min_bytes.empty()) {
    if (const auto value = hkim::nccl_check::ParseByteCount(flags.min_bytes)) {
      config.min_bytes = *value;
    } else {
      errors.push_back({"--min-bytes", "--min-bytes='" + flags.min_bytes + "' is not a byte count",
                        "give bytes as an integer, optionally with K, M or G, e.g. 1M"});
    }
  }
}

// Each rail is measured by a fresh child (NCCL reads NCCL_IB_HCA once per process) with the
// same flags, minus --per-rail and --json.
hkim::nccl_check::PerRailSetup PerRailSetupFor(int argc, char** argv) {
  hkim::nccl_check::PerRailSetup setup;
  setup.self = "/proc/self/exe";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--per-rail") continue;
    if (arg == "--json") {
      ++i;
      continue;
    }
    if (arg.rfind("--json=", 0) == 0) continue;
    setup.child_args.push_back(arg);
  }
  setup.sysfs_root = GetEnv("HKIM_SYSFS_ROOT").value_or("/sys");
  return setup;
}

}  // namespace

int main(int argc, char** argv) {
  CheckConfig config;
  std::vector<ConfigError> errors;
  hkim::nccl_check::ReadEnvironment(GetEnv, config, errors);

  CLI::App app{
      "hkim-nccl-check: NCCL all-reduce health check (float32 sum, exact results, "
      "nccl-tests bus bandwidth, transport from NCCL's own log).\n"
      "Loads libcuda.so.1 and the image's own libnccl.so.2 at run time: HKIM_NCCL_LIBRARY, else "
      "LD_LIBRARY_PATH, PyTorch wheels (nvidia/nccl/lib), the loader's search.\n"
      "Exit: 0 pass, 1 check failed, 2 could not run, 3 no GPU, 4 no usable NCCL, 5 could not "
      "take part (the job-scope rendezvous failed: port in use, a peer never came)"};
  CommandLine flags;
  AddOptions(app, config, flags);
  CLI11_PARSE(app, argc, argv);
  if (flags.which_nccl) return hkim::nccl_check::WhichNccl();

  ApplyFlags(flags, config, errors);
  hkim::nccl_check::FinishConfig(config, errors);
  if (!errors.empty()) {
    for (const ConfigError& error : errors) std::cerr << hkim::nccl_check::FormatConfigError(error);
    return hkim::nccl_check::kExitError;
  }
  if (flags.per_rail) {
    return hkim::nccl_check::RunPerRail(PerRailSetupFor(argc, argv), config, GetEnv,
                                        flags.json_path);
  }
  return hkim::nccl_check::RunCheck(config, flags.json_path);
}
