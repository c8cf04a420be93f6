#pragma once

// `hkimgen doctor`'s stage: reads the per-node JSON summaries that hkim-health prints (one line
// "HKIM_HEALTH_SUMMARY {json}" each; docs/CONTRACTS.md, "Fabric health") out of any text —
// saved files or `kubectl logs` output with other lines, prefixes (`--prefix`, `--timestamps`)
// and several pods mixed in — and builds one fleet table.

#include <string>
#include <string_view>
#include <vector>

namespace hkim {

/// One check of one node, as the summary gives it.
struct DoctorCheck {
  std::string name;
  std::string status;  ///< pass | fail | skip | error | wait (a declared step, e.g. a reboot)
  std::string detail;
  std::vector<std::string> failures;
  std::vector<std::string> fixes;
};

/// A node the gate's pairwise localization named (summary "suspects"; every gate pod lists all).
struct DoctorSuspect {
  std::string rail;  ///< "" = all rails together
  double busbw_gbps = 0;
  double expected_gbps = 0;
  std::string transport;
  std::string evidence;
  std::string time;  ///< of the summary that named it
};

/// One read of a node's RDMA error counters around its in-pod checks (summary "counters"): the
/// counters that moved, by device and port. A read where none moved still counts (all zero).
struct DoctorCounterMove {
  std::string device;
  std::string port;
  std::string netdev;
  std::string counter;
  long long delta = 0;
};
struct DoctorCounterRead {
  std::string time;  ///< of the summary
  std::vector<DoctorCounterMove> moved;
};

/// The node's fabric condition (RdmaFabric) as a cluster export (doctor --cluster) shows it.
struct DoctorCondition {
  bool present = false;  ///< false: the export has the node without the condition, or no export
  std::string status;    ///< True | False | Unknown, as written
  std::string reason;
  std::string message;
  std::string last_transition;  ///< RFC 3339 UTC, "" when absent
  std::string last_heartbeat;
};

/// The latest summary that tested one node (a night that only skipped it, busy or not in its
/// slice, does not hide an earlier result: it counts in busy_skips).
struct DoctorNode {
  std::string node;
  std::string mode;  ///< node | gate | night | pod | inventory | vf-config
  std::string time;
  std::string pod;
  bool passed = true;
  std::string mark;
  std::vector<DoctorCheck> checks;
  std::vector<DoctorSuspect> suspects;  ///< from the latest localization that named this node
  /// False when no summary tested the node (every night skipped it): the row is the latest skip.
  bool tested = true;
  /// How it was tested: the mode, except a night run that only read its inventory ("inventory").
  std::string how;
  /// Nights that found the node busy (its check pod not placed, or preempted) after `time`, and
  /// the latest of them.
  int busy_skips = 0;
  std::string last_busy;
  /// The node's value of the grouping label (doctor --group-by, from a cluster export: its
  /// network block or rack); "" when not grouped or the node lacks the label.
  std::string group;
  /// Its RdmaFabric condition, from the --cluster export.
  DoctorCondition condition;
  /// Every read of its error counters in the input (any summary of the node, not only the
  /// latest), oldest first; the newest kMaxCounterReads.
  std::vector<DoctorCounterRead> counter_reads;
};

/// Bounds on what one node keeps of its counter reads (the input is untrusted).
inline constexpr size_t kMaxCounterReads = 12;
inline constexpr size_t kMaxCounterMoves = 64;  ///< per read

/// Problems with the input that do not stop the table (a marker line whose JSON is broken).
struct DoctorInput {
  std::string source;  ///< file name or "-"
  std::string text;
};

/// Every summary found in `inputs`, one per node: for the same node the run with the later time
/// wins, and at the same time the one with more checks. Sorted by node name. Each broken
/// summary line adds "<source>:<line>: ..." to `warnings`. Suspects named by any summary are
/// attached to their node (the latest localization's; a node without a summary of its own gets a
/// failing row).
std::vector<DoctorNode> CollectSummaries(const std::vector<DoctorInput>& inputs,
                                         std::vector<std::string>& warnings);

/// Seconds from RFC 3339 UTC time `from` to `to` ("2026-11-23T03:17:40Z"); -1 when either does
/// not parse.
long long SecondsBetween(const std::string& from, const std::string& to);

/// "45s", "12m", "5h 3m", "3d 4h": a duration for the table.
std::string ShortDuration(long long seconds);

/// The newest summary time among `nodes` (their tests and busy skips): "now" for the table's
/// AGO column, so that the same input prints the same table whenever it is read.
std::string NewestTime(const std::vector<DoctorNode>& nodes);

/// A node that passed but waits for a declared step (a check with status "wait", e.g. the OKE VF
/// DaemonSet's reboot for the RDMA exclusive mode): not a failure, listed apart.
bool Waits(const DoctorNode& node);

/// The fleet table: one row per node (node, result, one column per check name seen, the time
/// of its last test, how it was tested, how long before the newest summary of the input that
/// was (AGO), the busy nights since (BUSY), the mark, the suspect column), then for every failing node its failures and fixes, then the
/// suspects with their evidence, then a count line and the time AGO counts from. With a `group_label` (the label every
/// node's `group` is the value of, e.g. oci.oraclecloud.com/rdma.network_block_id) the table has
/// that column, its rows grouped by it, a line per group with its failing nodes, and each
/// suspect names its group.
std::string FormatFleetTable(const std::vector<DoctorNode>& nodes,
                             const std::string& group_label = "");

}  // namespace hkim
