#pragma once
// Runs hkim-nccl-check --per-rail: finds the rails (NCCL_IB_HCA as the wrapper set it, else
// every device under <sysfs>/class/infiniband), describes each (netdev, GID), and runs the check
// again as a child once per rail with NCCL_IB_HCA set to that device alone, then once with all
// of them — each child a fresh process, because NCCL reads NCCL_IB_HCA once per process. In job
// scope every pod runs the same rounds in the same order; round i rendezvous on
// HKIM_RENDEZVOUS_PORT + 1 + i (the all-together round on the port itself), so a slow pod can
// never join the wrong round. In local scope the children disable P2P and SHM, so the GPUs of
// the node talk through the NIC (loopback), which exercises each rail without a second node.
// Reads HKIM_NCCL_CHECK_MIN_RAIL_FRACTION, HKIM_NCCL_CHECK_EXPECT_RAILS, HKIM_NODE_NAME,
// NCCL_IB_GID_INDEX and HKIM_MODE (tcp: no NET/IB required) besides the check's own settings.

#include <string>
#include <vector>

#include "check_config.h"
#include "per_rail.h"

namespace hkim::nccl_check {

/// Where the per-rail runner looks and what it starts.
struct PerRailSetup {
  std::string self;                     ///< path of hkim-nccl-check (the child program)
  std::vector<std::string> child_args;  ///< its arguments, without --per-rail and --json
  std::string sysfs_root = "/sys";      ///< HKIM_SYSFS_ROOT
};

/// Reads the per-rail settings (fraction, expected rails, node, mode) from the environment.
/// Appends to `errors` for bad values.
PerRailPolicy ReadPerRailPolicy(const EnvLookup& env, std::vector<ConfigError>& errors);

/// The rails of this pod with their netdev and GID, or an empty list and `error`.
std::vector<Rail> FindRails(const EnvLookup& env, const std::string& sysfs_root, std::string* error);

/// The whole per-rail check; writes the table to stderr and the JSON record to `json_path`
/// ("-" = stdout; "" = none). Returns 0 pass, 1 a rail or the whole failed, 2 could not run.
int RunPerRail(const PerRailSetup& setup, const CheckConfig& config, const EnvLookup& env,
               const std::string& json_path);

}  // namespace hkim::nccl_check
