#pragma once

// How the workload's pods land on nodes: one per node, by the required pod anti-affinity of the
// StatefulSet's pod spec (templates/common/pod-spec.mustache). Lint and the cluster check count
// a node's resources with it.

namespace hkim {

/// The workload's pods on one node.
inline constexpr int kPodsPerNode = 1;

}  // namespace hkim
