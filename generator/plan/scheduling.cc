// Plan stage, fabric-aware placement (scheduling.kueue): Kueue's Topology over the
// fabric's node labels, the GPU pool's ResourceFlavor, a ClusterQueue holding one job's quota
// and a LocalQueue per namespace; the StatefulSet's queue label and topology annotation come
// from QueueContext (plan/workload.cc). Kueue itself is installed by plan/operators (its chart
// on OKE) or is a precondition; its CRDs and the level labels go through the closure check.

#include <cstdio>
#include <map>

#include "plan/builder.h"
#include "plan/health.h"

namespace hkim::plan {
namespace {

using nlohmann::json;

constexpr const char* kKueueTemplates = "kueue/";

json Values(const std::vector<std::string>& values) {
  json out = json::array();
  for (const std::string& v : values) out.push_back(json{{"value", v}});
  return out;
}

/// `quantity` (a Kubernetes quantity such as "1Gi", "500m", "16") times `count`, spelt as a
/// quantity with the same suffix.
std::string Times(const std::string& quantity, int count) {
  size_t digits = 0;
  while (digits < quantity.size() && quantity[digits] >= '0' && quantity[digits] <= '9') ++digits;
  const std::string suffix = quantity.substr(digits);
  if (digits > 0 && digits <= 15 && suffix.find_first_of(".eE+-") == std::string::npos)
    return std::to_string(std::stoll(quantity.substr(0, digits)) * count) + suffix;
  size_t used = 0;
  double number = 0;
  try {
    number = std::stod(quantity, &used);
  } catch (...) {
    return quantity;  // the model checked the quantity; keep it rather than invent one
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.15g", number * count);
  return text + quantity.substr(used);
}

/// What one job requests, times its replicas, by resource name (sorted).
std::map<std::string, std::string> JobQuota(const Profile& p) {
  const Workload& w = p.workload;
  std::map<std::string, int64_t> counted;
  counted["nvidia.com/gpu"] = int64_t{w.gpus_per_pod} * w.replicas;
  if (p.UsesRails())
    for (const Rail& rail : p.network.rails)
      counted[rail.resource_name] += int64_t{rail.attachments_per_pod} * w.replicas;
  std::map<std::string, std::string> quota;
  for (const auto& [name, value] : counted) quota[name] = std::to_string(value);
  // The workload's own requests (a limit alone is its request too); GPUs and rails win.
  std::map<std::string, std::string> requests = w.resource_limits;
  for (const auto& [name, value] : w.resource_requests) requests[name] = value;
  for (const auto& [name, value] : requests) quota.emplace(name, Times(value, w.replicas));
  return quota;
}

std::string LevelPointer(const KueueScheduling& k, size_t index) {
  return k.levels_set ? k.pointer + "/levels/" + std::to_string(index) : k.pointer;
}

}  // namespace

json QueueContext(const Profile& p) {
  json c = {{"has_queue", false}, {"queue_label", "kueue.x-k8s.io/queue-name"}, {"queue", ""},
            {"topology_annotation", ""}, {"topology_level", ""}};
  if (!p.scheduling.kueue) return c;
  const KueueScheduling& k = *p.scheduling.kueue;
  c["has_queue"] = true;
  c["queue"] = k.queue;
  c["topology_annotation"] = k.TopologyAnnotation();
  c["topology_level"] = k.level;
  return c;
}

void PlanScheduling(PlanBuilder& b) {
  const Profile& p = b.profile();
  if (!p.scheduling.kueue) return;
  const KueueScheduling& k = *p.scheduling.kueue;
  const std::string& name = k.cluster_queue;

  PlannedObject& topology = b.Add(std::string(kKueueTemplates) + "topology.yaml.mustache",
                                  k.api_version, "Topology", name, "", kWaveOperatorConfig, true);
  topology.context["api_version"] = k.api_version;
  topology.context["levels"] = Values(k.levels);
  topology.source_pointer = k.pointer;
  for (size_t i = 0; i < k.levels.size(); ++i)
    Needs(topology, CapabilityKind::kNodeLabel, k.levels[i], LevelPointer(k, i),
          "a topology level: Kueue places pods by it");

  PlannedObject& flavor = b.Add(std::string(kKueueTemplates) + "resourceflavor.yaml.mustache",
                                k.api_version, "ResourceFlavor", name, "", kWaveOperatorConfig, true);
  flavor.context["api_version"] = k.api_version;
  json labels = json::array();
  for (const auto& [key, value] : p.node_shape.node_selector)
    labels.push_back(json{{"key", key}, {"value", value}});
  flavor.context["has_node_labels"] = !labels.empty();
  flavor.context["node_labels"] = labels;
  flavor.context.update(TolerationsContext(p.node_shape.tolerations));
  flavor.context["topology"] = name;
  flavor.source_pointer = k.pointer;
  NeedNodeLabels(flavor, p.node_shape.node_selector, NodeSelectorPointer, "its nodeLabels");

  PlannedObject& queue = b.Add(std::string(kKueueTemplates) + "clusterqueue.yaml.mustache",
                               k.api_version, "ClusterQueue", name, "", kWaveOperatorConfig, true);
  queue.context["api_version"] = k.api_version;
  queue.context["namespaces"] = Values(p.namespaces);
  json resources = json::array();
  for (const auto& [resource, quota] : JobQuota(p))
    resources.push_back(json{{"name", resource}, {"quota", quota}});
  queue.context["resources"] = resources;
  queue.context["flavor"] = name;
  queue.source_pointer = k.pointer;
}

void PlanNamespaceScheduling(PlanBuilder& b, const std::string& ns) {
  const Profile& p = b.profile();
  if (!p.scheduling.kueue) return;
  const KueueScheduling& k = *p.scheduling.kueue;
  PlannedObject& local = b.Add(std::string(kKueueTemplates) + "localqueue.yaml.mustache",
                               k.api_version, "LocalQueue", k.queue, ns, kWaveNamespaceAccess, true);
  local.context["api_version"] = k.api_version;
  local.context["cluster_queue"] = k.cluster_queue;
  local.source_pointer = k.pointer + "/queue";
}

}  // namespace hkim::plan
