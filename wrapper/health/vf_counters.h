#pragma once
// The in-pod check's evidence from its own RDMA devices (hkim-health pod): a pod sees only its
// VFs' counters (/sys/class/infiniband in its network namespace, ports/*/hw_counters and
// counters), so it reads them before and after its all-reduce and localization, and names the
// devices (and their pod interface, i.e. the rail's attachment) whose error counters moved. A
// failed check's termination message and summary carry them; a passed one only logs them.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "link_sysfs.h"

namespace hkim::health {

/// Every port of every device under a sysfs root at one time, by "device/port".
struct CounterSnapshot {
  std::map<std::string, PortSample> ports;
  std::map<std::string, std::string> netdevs;  ///< device → its interface in the pod ("net1")
};

/// Reads every device under `root` (link_sysfs.h limits apply).
CounterSnapshot TakeCounterSnapshot(const std::string& root);

/// Whether `counter` counts errors (link_downed, symbol_error, rnr_nak_retry_err,
/// local_ack_timeout_err, out_of_sequence, ...), not traffic or congestion notifications.
bool IsErrorCounter(const std::string& counter);

/// One port whose error counters moved between two snapshots.
struct CounterMove {
  std::string device;
  int port = 1;
  std::string netdev;
  std::map<std::string, uint64_t> deltas;  ///< error counters that grew, by how much
};

/// The ports whose error counters grew from `before` to `after` (a counter that went down, or
/// is absent from either, is left out), sorted by device and port.
std::vector<CounterMove> ErrorCounterMoves(const CounterSnapshot& before,
                                           const CounterSnapshot& after);

/// "mlx5_3 (net2) port 1: symbol_error +5, rnr_nak_retry_err +2; ..." ("" when none).
std::string DescribeMoves(const std::vector<CounterMove>& moves);

/// {"devices": n, "moved": [{"device","port","netdev","deltas":{..}}]} for the summary.
nlohmann::json MovesJson(size_t devices, const std::vector<CounterMove>& moves);

}  // namespace hkim::health
