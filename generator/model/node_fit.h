#pragma once

// Whether a pod of this bundle may run on a node, by the rules the pods' own spec states: the
// node selector, node_shape.include_nodes/exclude_nodes (required node affinity on
// kubernetes.io/hostname), the periodic health check's mark (the workload's affinity keeps pods
// off a node labelled hkimgen.io/nccl-health=fail; with fabric_health.periodic.taint the mark is
// also a NoSchedule taint), and the tolerations, matched as the scheduler matches them (key,
// value, operator and effect). The cluster check's node table, its node count and placement ask
// this one predicate; the closure check asks
// ToleratesWhatWorkloadTolerates, built on the same matching, of the node agents.

#include <map>
#include <string>
#include <vector>

#include "model/model.h"

namespace hkim {

/// A node's taint as the Node object states it.
struct NodeTaint {
  std::string key;
  std::string value;
  std::string effect;  ///< NoSchedule | PreferNoSchedule | NoExecute
};

/// Whether toleration `t` tolerates `taint` (Kubernetes "Taints and Tolerations"): the effects
/// match (an empty toleration effect matches every effect) and either the operator is Exists
/// and the key matches (an empty key with Exists matches every taint) or the operator is Equal
/// and key and value both match.
bool ToleratesTaint(const Toleration& t, const NodeTaint& taint);

/// Whether `agent` tolerates every taint that `workload` tolerates and that keeps a pod off a
/// node (NoSchedule, NoExecute), by ToleratesTaint: a node agent (device plugin, CNI, VF
/// creator) runs on every node the workload may be sent to. A workload toleration with operator
/// Exists tolerates every value of its key; an empty effect, every effect.
bool ToleratesWhatWorkloadTolerates(const Toleration& agent, const Toleration& workload);

/// The first taint of `taints` that keeps the profile's pods off the node (none of
/// node_shape.tolerations tolerates it; PreferNoSchedule never keeps a pod off), or null.
const NodeTaint* UntoleratedTaint(const Profile& profile, const std::vector<NodeTaint>& taints);

/// Whether the node's labels and taints carry the health check's fail mark.
bool MarkedUnhealthy(const std::map<std::string, std::string>& labels,
                     const std::vector<NodeTaint>& taints);

/// Whether the profile's selector and include/exclude lists pick the node (its
/// kubernetes.io/hostname label, else `name`).
bool SelectsNode(const Profile& profile, const std::string& name,
                 const std::map<std::string, std::string>& labels);

/// Why a pod of this bundle may not run on a picked node; kFits when it may.
enum class NodeFit { kFits, kMarkedUnhealthy, kUntoleratedTaint };

/// The one predicate: kFits when the profile's pods may run on the node SelectsNode picks.
NodeFit PodFit(const Profile& profile, const std::map<std::string, std::string>& labels,
               const std::vector<NodeTaint>& taints);

}  // namespace hkim
