#pragma once
// Pairwise localization of a failed job-scope check (the pure part: which pods measure together
// in which round, and which node the results point at). No I/O: localize_run.cc runs the rounds,
// tests drive this with a fake check.
//
// Rounds. At most kLocalizeRounds = 3, whatever the pod count, because every pod takes part in
// each round at once (one measurement per pod per round, all pairs in parallel), so the time is
// 3 x one two-node check, not a function of the fleet:
//   round 0: neighbours      0-1, 2-3, 4-5, ...
//   round 1: rotated by one  1-2, 3-4, ..., (n-1)-0
//   round 2: far partner     i with i + n/2  (0-2, 1-3 for 4 pods; 0-32, 1-33 for 64)
// Two rounds give each pod two partners on the ring 0-1-2-...-(n-1)-0: one bad pod has both
// pairs slow while its neighbours each have a good pair, so it is found. The third round is for
// two bad pods two apart (X, X+2): their common neighbour X+1 saw only slow pairs in rounds 0-1,
// and its far partner in round 2 clears it. With an odd count the pod left over in a round
// joins a pair whose both members already passed (a trio, so a slow trio is the newcomer's
// fault); in round 0 nothing has passed yet, so it sits that round out. Three pods use the
// triangle 0-1, 1-2, 2-0 (the leftover sits out).
//
// A group in which a pod could not take part (its rendezvous port was in use, the check crashed
// or was killed for memory, it timed out before the first byte, no record came back) measured
// nothing: it is "inconclusive" and says nothing about either node (localize_run.cc retries it
// once on other ports first). Only groups that measured count below.
//
// Verdict, for the all-rails measurement and then each rail alone: a pod is a suspect when
// every group it was measured in failed (slow, wrong transport, broken or timed out) and at
// least one of those partners passed with someone else (so the fault is on this side).
// What it cannot tell apart: two bad pods that are only ever measured with each other or with
// other bad pods (e.g. 2 pods in all, or a pod whose partners are all bad too): no partner is
// fine elsewhere, so neither is named and the run says so in its notes. A link fault between
// exactly two nodes (both fine with everyone else) names nobody either. A flaky pod that
// passes one pair is not named (the verdict needs every pair to fail).

#include <string>
#include <vector>

namespace hkim::health {

inline constexpr int kLocalizeRounds = 3;

/// One pod taking part, in ordinal order (index = position in the plan).
struct LocalizePod {
  int ordinal = 0;
  std::string node;
  std::string pod;
  std::vector<std::string> rails;  ///< its RDMA devices in per-rail order ("" when unknown)
};

/// One rail of a group measurement.
struct RailMeasure {
  std::string device;  ///< as the reporting pod names it
  bool ok = false;
  double busbw_gbps = 0;
};

/// What one group (pair or trio) measured in one round.
struct GroupResult {
  int round = 0;
  std::vector<int> members;  ///< plan indexes, ascending
  bool ran = false;          ///< a measurement came back (false: NCCL broke, timeout)
  bool ok = false;           ///< passed: bandwidth, transport, exact results
  /// A member could not take part (rendezvous failed, crash, OOM, no record): not evidence.
  bool inconclusive = false;
  double busbw_gbps = 0;     ///< at the threshold size (0 when none)
  std::string transport;     ///< NCCL's transport summary
  std::string detail;        ///< the first failure, when not ok
  std::vector<RailMeasure> rails;  ///< per-rail (index = rail); empty when not measured
  double seconds = 0;              ///< how long the measurement took
};

/// One node the results point at.
struct Suspect {
  int ordinal = 0;
  std::string node;
  std::string pod;
  std::string rail;  ///< the RDMA device, "" = all rails together
  double busbw_gbps = 0;     ///< the best the node reached in its failed groups
  double expected_gbps = 0;  ///< the threshold
  std::string transport;
  std::string evidence;  ///< its failed groups and the partners that passed elsewhere
};

struct LocalizeVerdict {
  std::vector<Suspect> suspects;
  std::vector<std::string> notes;  ///< what could not be told apart, flaky pods
};

/// The groups of `round` for `pods` pods (plan indexes). `known_good[i]`: pod i passed every
/// group so far and at least one. Empty when the round adds nothing (fewer than 3 pods after
/// round 0).
std::vector<std::vector<int>> PlanRound(int pods, int round, const std::vector<bool>& known_good);

/// known_good for PlanRound from the results so far.
std::vector<bool> KnownGood(int pods, const std::vector<GroupResult>& results);

/// The suspects from every round's results. `expected_gbps`: the threshold (for the report).
LocalizeVerdict DecideSuspects(const std::vector<LocalizePod>& pods,
                               const std::vector<GroupResult>& results, double expected_gbps);

/// "node gpu-r2-n01 rail mlx5_11: 12 GB/s vs >= 45 expected" (the termination message line).
std::string SuspectLine(const Suspect& suspect);

}  // namespace hkim::health
