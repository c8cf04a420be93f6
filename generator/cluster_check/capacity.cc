// Free capacity for the workload's first start (the plan's free-capacity precondition): the
// picked nodes the pods may run on (model/node_fit.h) whose GPUs and rails' VFs other pods have
// not requested, counted against the replicas. Without Pods in the export it cannot be counted:
// the precondition's command is the check, and the not-exported note says what to export.

#include <algorithm>
#include <map>
#include <set>

#include "cluster_check/findings.h"
#include "discover/json_at.h"
#include "model/placement.h"

namespace hkim::cluster_check {
namespace {

using discover::At;
using discover::ExportObject;
using discover::NodeFacts;
using nlohmann::json;

/// What one pod of the workload requests of each extended resource it needs a node to hold idle.
std::map<std::string, long long> PodRequests(const Profile& p) {
  std::map<std::string, long long> wanted;
  if (p.workload.gpus_per_pod > 0) wanted["nvidia.com/gpu"] = p.workload.gpus_per_pod;
  if (p.UsesRails())
    for (const Rail& rail : p.network.rails) wanted[rail.resource_name] += rail.attachments_per_pod;
  for (const auto& [name, quantity] : p.workload.resource_requests) {
    if (name.find('/') == std::string::npos || name.starts_with("hugepages-")) continue;
    if (auto count = discover::ParseCount(quantity)) wanted[name] = *count;
  }
  return wanted;
}

/// A container's request of `resource`: requests, else limits (an extended resource's request
/// defaults to its limit); 0 when it names none or an unreadable quantity.
long long ContainerRequest(const json& container, const std::string& resource) {
  for (const char* part : {"requests", "limits"}) {
    const json& value = At(container, {"resources", part});
    if (!value.is_object() || !value.contains(resource)) continue;
    return discover::ParseCount(Str(value[resource])).value_or(0);
  }
  return 0;
}

/// The namespaces of the bundle's own objects: its pods take the nodes it is meant to.
std::set<std::string> BundleNamespaces(const Profile& p, const BundlePlan& plan) {
  std::set<std::string> own(p.namespaces.begin(), p.namespaces.end());
  for (const PlannedObject& o : plan.objects)
    if (!o.namespace_name.empty()) own.insert(o.namespace_name);
  return own;
}

struct Held {
  std::map<std::string, long long> requested;  ///< resource -> what other pods request
  std::set<std::string> namespaces;            ///< of the pods that request some
};

/// What the running pods of other namespaces hold on each node, of the resources in `wanted`.
std::map<std::string, Held> HeldByNode(const ClusterExport& cluster,
                                       const std::set<std::string>& own,
                                       const std::map<std::string, long long>& wanted) {
  std::map<std::string, Held> held;
  for (const ExportObject* pod : OfKind(cluster, "Pod")) {
    if (own.count(pod->namespace_name)) continue;
    const std::string node = Str(At(*pod->json, {"spec", "nodeName"}));
    const std::string phase = Str(At(*pod->json, {"status", "phase"}));
    if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;  // holds nothing
    const json& containers = At(*pod->json, {"spec", "containers"});
    if (!containers.is_array()) continue;
    for (const auto& [resource, per_pod] : wanted) {
      (void)per_pod;
      long long sum = 0;
      for (const json& container : containers) sum += ContainerRequest(container, resource);
      if (sum <= 0) continue;
      held[node].requested[resource] += sum;
      held[node].namespaces.insert(pod->namespace_name);
    }
  }
  return held;
}

}  // namespace

void CheckFreeCapacity(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                       const std::vector<const NodeFacts*>& picked, Findings& findings) {
  const Precondition* pre = nullptr;
  for (const Precondition& candidate : plan.preconditions)
    if (candidate.kind == "free-capacity") pre = &candidate;
  if (pre == nullptr || picked.empty()) return;
  std::vector<const NodeFacts*> fit;
  for (const NodeFacts* node : picked)
    if (PodFit(p, node->labels, node->taints) == NodeFit::kFits) fit.push_back(node);
  const int needed = (p.workload.replicas + kPodsPerNode - 1) / kPodsPerNode;
  // Too few nodes whatever runs on them: cluster.node-count says so already.
  if (static_cast<int>(fit.size()) < needed) return;
  if (!cluster.kinds.count("Pod")) {
    findings.NotExported("Pod", "free capacity for the workload's first start (the free-capacity "
                                "precondition: " + pre->check + ")");
    return;
  }
  const std::map<std::string, long long> wanted = PodRequests(p);
  const std::map<std::string, Held> held = HeldByNode(cluster, BundleNamespaces(p, plan), wanted);
  int idle = 0;
  std::vector<std::string> busy;
  for (const NodeFacts* node : fit) {
    auto it = held.find(node->name);
    std::string short_of;
    for (const auto& [resource, per_pod] : wanted) {
      auto cap = node->capacity.find(resource);
      const long long have = cap == node->capacity.end() ? 0 : cap->second;
      const long long taken =
          it == held.end() || !it->second.requested.count(resource) ? 0 : it->second.requested.at(resource);
      if (taken > 0 && have - taken < per_pod * kPodsPerNode)
        short_of += (short_of.empty() ? "" : ", ") + std::to_string(taken) + " of " +
                    std::to_string(have) + " " + resource;
    }
    if (short_of.empty()) {
      ++idle;
      continue;
    }
    std::string spaces;
    for (const std::string& ns : it->second.namespaces) spaces += (spaces.empty() ? "" : ", ") + ns;
    busy.push_back(node->name + ": pods of " + spaces + " request " + short_of);
  }
  if (idle >= needed) return;
  constexpr size_t kNamed = 3;
  std::string detail;
  for (size_t i = 0; i < busy.size() && i < kNamed; ++i) detail += (i ? "; " : "") + busy[i];
  if (busy.size() > kNamed) detail += "; and " + std::to_string(busy.size() - kNamed) + " more";
  findings.Add(Severity::kWarning, "cluster.capacity", pre->pointer, "cluster " + cluster.label,
               "the workload's " + std::to_string(p.workload.replicas) +
                   " pod(s) start one per node, but only " + std::to_string(idle) + " of the " +
                   std::to_string(fit.size()) +
                   " picked node(s) they may run on have what a pod requests idle: the rest stay "
                   "Pending until other pods free their GPUs and VFs",
               std::string(idle > 0 ? "set workload.replicas to at most " +
                                          std::to_string(idle * kPodsPerNode) + ", or " : "") +
                   "free the nodes named before the first sync (or leave them out: "
                   "node_shape.exclude_nodes)",
               detail);
}

}  // namespace hkim::cluster_check
