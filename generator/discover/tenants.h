#pragma once

// Who else uses a cluster's GPU nodes, as an export shows it: pods of other namespaces that hold
// GPUs or RDMA devices, and node names whose last word is not most nodes' (...-yunshi among
// ...-nairr). discover leaves such nodes out of its draft; the cluster check warns about the ones
// a profile picks.

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "discover/cluster_facts.h"

namespace hkim::discover {

/// Whether a Pod object holds GPUs or RDMA devices: it has not finished (status.phase is not
/// Succeeded or Failed), and a container requests or limits an nvidia.com resource, one of
/// `rail_resources` or one whose name holds "rdma", or it attaches a secondary network (Multus).
bool PodHoldsGpuOrRdma(const nlohmann::json& pod, const std::set<std::string>& rail_resources);

/// Namespaces of the platform itself: the system's and the operators' usual homes
/// (openshift-*, kube-*, nvidia-*, gpu-operator*, network-operator*).
bool PlatformNamespace(const std::string& namespace_name);

/// The last '-' part of a node name when it is a word of three letters or more
/// ("moc-r4pcc02u15-yunshi" -> "yunshi"); "" otherwise.
std::string NameSuffix(const std::string& node_name);

/// The name suffix more than half of `nodes` share, or "" when none does.
std::string MajoritySuffix(const std::vector<const NodeFacts*>& nodes);

}  // namespace hkim::discover
