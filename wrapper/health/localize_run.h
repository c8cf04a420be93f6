#pragma once
// Runs the pairwise localization (localize.h) across the pods of a failed gate. Pods whose job
// check passed skip it (unless HKIM_HEALTH_LOCALIZE=always). The others: an all-gather of their
// statuses, nodes and rails through the pod with ordinal 0 (exchange.h) gives every pod the
// same list of pods taking part (the ones that reported within the deadline), then up to
// kLocalizeRounds rounds:
// each pod measures with its partner(s) of the round (hkim-nccl-check in job scope with
// HKIM_REPLICAS=2 or 3, the group's first pod as MASTER_ADDR, a rendezvous port of its own),
// then all reports are gathered again (the barrier between rounds). Each round is bounded by
// the pair timeout; the whole run by 3 x (pair timeout + exchange) + the first exchange.
//
// A group in which a member could not take part (MemberReport::took_part false) is retried once,
// right after its round, on ports of its own; if it fails to take part again it stays
// inconclusive (localize.h: not evidence against anyone).
//
// Ports: the exchange uses HKIM_RENDEZVOUS_PORT + 1; group g of round r uses
// HKIM_RENDEZVOUS_PORT + 2 + (r * ceil(n/2) + g) * k and its retry
// HKIM_RENDEZVOUS_PORT + 2 + ((3 + r) * ceil(n/2) + g) * k, where k = 1 + the most rails a pod
// reported (per-rail's rounds take the k - 1 ports after the group's), so groups never share a
// port even when the pods share one network namespace (the bench: every pod on one machine).

#include <functional>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "localize.h"

namespace hkim::health {

/// Who this pod is and how to reach the others.
struct LocalizeSetup {
  int ordinal = 0;
  int replicas = 1;
  std::string node;
  std::string pod;
  std::string pod_set;       ///< the job's pod name without its ordinal
  std::string master_addr;   ///< the pod with ordinal 0 (the exchange)
  std::string peer_address;  ///< pod address template, "{ordinal}" replaced; "" = from MASTER_ADDR
  int base_port = 29650;
  double pair_timeout_s = 120;  ///< one group's measurement, rendezvous included
  double exchange_timeout_s = 60;
  double expected_gbps = 0;
  std::string when = "fail";  ///< HKIM_HEALTH_LOCALIZE: fail (default) | always | off
};

/// One group measurement as this pod takes part in it.
struct GroupRun {
  int round = 0;
  int group = 0;
  int rank = 0;                   ///< this pod's place in the group (0 = leader)
  int size = 2;                   ///< 2 or 3
  std::vector<int> ordinals;      ///< the group's pods (job ordinals), leader first
  std::string leader_address;     ///< where the group's leader listens
  int port = 0;                   ///< its rendezvous port
  std::string pod_name;           ///< "<set>-r<round>g<group>-<rank>" for the rendezvous
  double timeout_s = 120;
};

/// What this pod measured in its group (rails: per rail, in its own rail order).
struct MemberReport {
  /// False: this pod could not take part (the rendezvous failed, hkim-nccl-check exit 5; it
  /// crashed or was killed for memory; no GPU or NCCL; it never started): no measurement.
  bool took_part = true;
  bool ran = false;
  bool ok = false;
  double busbw_gbps = 0;
  std::string transport;
  std::string detail;
  std::vector<RailMeasure> rails;
  double seconds = 0;
};

/// Runs one group measurement (the real one starts hkim-nccl-check; tests fake it).
using GroupCheck = std::function<MemberReport(const GroupRun&)>;

/// The whole localization as this pod saw it.
struct LocalizeOutcome {
  bool ran = false;       ///< rounds were run
  std::string skipped;    ///< why not (job check passed everywhere, too few pods, off)
  std::string error;      ///< the exchange broke (rank 0 unreachable ...)
  std::vector<LocalizePod> pods;
  std::vector<GroupResult> results;
  LocalizeVerdict verdict;
  int rounds = 0;
  double seconds = 0;
};

/// Runs the localization. `job_status` is this pod's job check status (pass|fail|error);
/// `rails` its RDMA devices in per-rail order (may be empty). Progress goes to `log`.
LocalizeOutcome RunLocalization(const LocalizeSetup& setup, const std::string& job_status,
                                const std::vector<std::string>& rails, const GroupCheck& check,
                                std::ostream& log);

/// The real GroupCheck: `nccl_check` (path of hkim-nccl-check) in job scope for the group,
/// at the threshold size only (`at_bytes`, as given in HKIM_NCCL_CHECK_AT_BYTES), per rail when
/// `per_rail`.
GroupCheck NcclGroupCheck(const std::string& nccl_check, const std::string& at_bytes, bool per_rail,
                          std::ostream& log);

/// The pods taking part, from the first exchange's table (ordinal -> {status, node, pod,
/// rails} as each pod sent it), in ordinal order; sets `*any_failed` when one reported a status
/// other than pass.
std::vector<LocalizePod> PodsFromStartTable(const std::map<int, nlohmann::json>& table,
                                            bool* any_failed);

/// One group's result of `round` from its members' reports in the round's exchange table
/// (ordinal -> {report: {ran, ok, busbw_gbps, transport, detail, rails, seconds}}); a member
/// without a report broke the group. `members` are indexes into `pods`.
GroupResult CombineReports(int round, const std::vector<int>& members,
                           const std::vector<LocalizePod>& pods,
                           const std::map<int, nlohmann::json>& table);

/// A member's report from hkim-nccl-check's JSON record (plain or per-rail) and exit status.
/// Exit 5 (or a record with "took_part": false), 3, 4 or a signal we did not send (OOM, crash):
/// took_part false. A record of any shape never throws.
MemberReport ReportFromRecord(const std::string& output, int exit_status, bool timed_out,
                              const std::string& error);

/// The summary's "localization" object and its "suspects" list.
nlohmann::json LocalizationJson(const LocalizeOutcome& outcome);
nlohmann::json SuspectsJson(const LocalizeVerdict& verdict);

}  // namespace hkim::health
