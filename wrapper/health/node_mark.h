#pragma once
// How hkim-health marks a node (the shared convention: label hkimgen.io/nccl-health = pass |
// fail, optional taint hkimgen.io/nccl-health=fail:NoSchedule that the workload avoids), as a
// JSON merge patch of the Node. The taint list of a Node is replaced whole by a patch (it has
// no merge key), so the patch carries the node's resourceVersion: the API server refuses it
// with 409 when another writer changed the node in between, and the caller reads it again.

#include <nlohmann/json.hpp>
#include <string>

namespace hkim::health {

inline constexpr const char* kHealthLabel = "hkimgen.io/nccl-health";
inline constexpr const char* kReasonAnnotation = "hkimgen.io/nccl-health-reason";
inline constexpr const char* kTimeAnnotation = "hkimgen.io/nccl-health-time";
/// When the node was marked failed (kept while it heals), and the passes counted since.
inline constexpr const char* kSinceAnnotation = "hkimgen.io/nccl-health-since";
inline constexpr const char* kPassesAnnotation = "hkimgen.io/nccl-health-passes";

/// The verdict to record on a node.
struct NodeMark {
  bool passed = true;
  std::string reason;  ///< why it failed (one line; cut to 1000 characters); ignored on pass
  std::string time;    ///< RFC 3339 UTC time of the check
  bool taint = false;  ///< the profile consents to a NoSchedule taint on failure
  /// A node marked fail is released only after this many consecutive passes (profile
  /// fabric_health.periodic.release_after_passes, default 2): one lucky pass of a flaky node
  /// must not put it back into the pool. Each pass in between is counted in kPassesAnnotation;
  /// a failure starts the count again.
  int release_after = 2;
};

/// What MarkPatch does to a node: "fail", "pass", or "healing 1/2" (a pass counted, still
/// marked).
std::string MarkEffect(const nlohmann::json& node, const NodeMark& mark);

/// The merge patch that turns `node` (as read from the API) into one carrying `mark`: label
/// pass|fail, reason annotation set (fail) or removed (released), time annotation, since (set
/// when first marked failed), the pass count while healing, and our taint present exactly while
/// marked failed with consent (other taints untouched; spec is left out of the patch when the
/// taints do not change). A pass on a node marked fail only counts until release_after passes.
nlohmann::json MarkPatch(const nlohmann::json& node, const NodeMark& mark);

}  // namespace hkim::health
