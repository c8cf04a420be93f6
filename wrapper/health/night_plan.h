#pragma once
// The night coordinator's decisions, pure (no I/O; night.h runs them against the API):
//   which nodes are the pool (the selector's nodes less exclude_nodes, within include_nodes),
//   which of them are tested tonight (the least recently tested slice), the check pod for a node
//   (the generator's pod template pinned to it), and what a check pod's status says (waiting,
//   not placeable, running, a verdict, preempted, or ended without one).

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "summary.h"

namespace hkim::health {

/// The pool's nodes among `listed` (the selector's nodes as the API lists them): those not in
/// `exclude` and, when `include` is not empty, in it; sorted by name, each once.
std::vector<nlohmann::json> PoolOf(const std::vector<nlohmann::json>& listed,
                                   const std::set<std::string>& include,
                                   const std::set<std::string>& exclude);

/// A node's metadata.name ("" when it has none).
std::string NodeName(const nlohmann::json& node);

/// When the health check last marked `node` (annotation hkimgen.io/nccl-health-time), "" never.
std::string LastTested(const nlohmann::json& node);

/// Tonight's slice of `candidates`: ceil(size / nights) of them (all when nights <= 1), the
/// least recently tested first: never tested first, then by the time annotation (RFC 3339 UTC
/// compares as text), ties by name. Returns their names in that order.
std::vector<std::string> TonightsSlice(const std::vector<nlohmann::json>& candidates, int nights);

/// Who the check pods belong to: the coordinator's own pod (garbage collection removes them with
/// it) and the label value that finds one run's pods.
struct CheckPodOwner {
  std::string namespace_name;
  std::string pod_name;
  std::string pod_uid;
};

inline constexpr const char* kRunLabel = "hkimgen.io/health-run";
inline constexpr const char* kNodeAnnotation = "hkimgen.io/health-node";

/// The check pod for `node` from the generator's `pod_template` (a v1 Pod): in the owner's
/// namespace, owned by its pod, labelled with its uid (kRunLabel), annotated with the node, and
/// pinned to the node by a required node affinity on kubernetes.io/hostname added to every
/// term (the scheduler still decides: no nodeName). No service-account token is mounted.
nlohmann::json CheckPodFor(const nlohmann::json& pod_template, const std::string& node,
                           const CheckPodOwner& owner);

/// Where a check pod stands.
enum class CheckPodPhase {
  kWaiting,        ///< not scheduled yet, no reason given
  kUnschedulable,  ///< PodScheduled False: no node fits now (the node is busy)
  kPlaced,         ///< scheduled, not finished
  kPassed,         ///< exit 0
  kFailed,         ///< exit 1 with its report: the node failed a check
  kPreempted,      ///< evicted or preempted (DisruptionTarget): the node's job wanted it back
  kNoVerdict,      ///< ended without a result (crash, OOM, init failure, other exit code)
};

struct CheckPodState {
  CheckPodPhase phase = CheckPodPhase::kWaiting;
  std::vector<CheckOutcome> checks;  ///< from the report in its termination message
  std::string why;                   ///< the scheduler's or the kubelet's words, the exit code
};

/// Reads a check pod as the API returns it (status.phase, conditions, the first container's
/// terminated state and termination message).
CheckPodState ReadCheckPod(const nlohmann::json& pod);

}  // namespace hkim::health
