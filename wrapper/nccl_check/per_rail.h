#pragma once
// The per-rail check (hkim-nccl-check --per-rail): every RDMA device measured alone (NCCL_IB_HCA
// set to that one device), then all together; a rail that is down (NCCL did not use NET/IB
// over it, or the run failed), slow (bus bandwidth below a fraction of the best rail's) or
// missing (fewer devices than the profile expects) fails, naming the rail, its interface and
// the node. This file is the pure part (no I/O): the device list, the decision and the output;
// per_rail_run.cc runs the measurements.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hkim::nccl_check {

/// One RDMA device as the rail list names it, with what sysfs says about it.
struct Rail {
  std::string device;     ///< mlx5_6 (NCCL_IB_HCA spelling, port suffix kept: "mlx5_6:1")
  std::string interface;  ///< its netdev, e.g. net1 ("" when unknown)
  std::string gid;        ///< the GID NCCL will use (NCCL_IB_GID_INDEX, else RoCE v2 IPv4)
};

/// What one measurement (one rail alone, or all together) gave.
struct RailRun {
  std::string hca;                    ///< the NCCL_IB_HCA value of the run
  bool ran = false;                   ///< the child produced a record
  int exit_status = -1;               ///< hkim-nccl-check's exit status
  std::optional<double> busbw_gbps;   ///< at the threshold size
  bool used_net_ib = false;           ///< a connection went over NET/IB
  std::string transport;              ///< the transport summary
  std::vector<std::string> failures;  ///< the child's own failures
};

/// Rails from NCCL_IB_HCA ("=mlx5_0,mlx5_1:1" or "mlx5_0,mlx5_1"). An exclusion list ("^...")
/// names no rails: nullopt and `error` set.
std::optional<std::vector<std::string>> RailsFromHcaList(const std::string& hca,
                                                         std::string* error);

/// The settings of the decision.
struct PerRailPolicy {
  double min_fraction = 0.75;  ///< HKIM_NCCL_CHECK_MIN_RAIL_FRACTION
  int expected_rails = 0;      ///< HKIM_NCCL_CHECK_EXPECT_RAILS; 0 = not checked
  bool require_net_ib = true;  ///< false in tcp mode
  std::string node;            ///< HKIM_NODE_NAME or the host name, for the messages
};

/// Per-rail status: "pass", "down", "slow".
struct RailVerdict {
  Rail rail;
  RailRun run;
  std::string status;
  std::string reason;  ///< why down or slow, with numbers
};

struct PerRailResult {
  std::vector<RailVerdict> rails;
  RailRun together;
  double best_gbps = 0;
  bool passed = true;
  std::vector<std::string> failures;  ///< each names rail, interface and node
};

/// Decides from the per-rail runs (`runs[i]` measured `rails[i]`) and the run of all together
/// (its own failures, e.g. busbw below the job's minimum, are carried over).
PerRailResult DecidePerRail(const std::vector<Rail>& rails, const std::vector<RailRun>& runs,
                            const RailRun& together, const PerRailPolicy& policy);

/// The table for stderr: one row per rail (device, interface, GID, busbw, share of the best,
/// transport, status), the all-together row, the failures, the result.
std::string FormatPerRailTable(const PerRailResult& result, const PerRailPolicy& policy);

/// The JSON record: {"tool","mode":"per-rail","passed","node","min_fraction","best_gbps",
/// "rails":[{device,interface,gid,busbw_gbps,transport,status,reason}],"together":{..},
/// "failures":[..], "transport":{"summary":..}} (the last like hkim-nccl-check's own record).
nlohmann::json PerRailJson(const PerRailResult& result, const PerRailPolicy& policy);

/// Reads what the summary needs out of a child's `--json` record.
RailRun ReadRunRecord(const std::string& hca, int exit_status, const std::string& record_text);

}  // namespace hkim::nccl_check
