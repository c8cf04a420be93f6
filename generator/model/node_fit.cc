// The pods' placement rules (node_fit.h), one implementation for every check that asks.

#include "model/node_fit.h"

#include <algorithm>

#include "model/health.h"

namespace hkim {

bool ToleratesTaint(const Toleration& t, const NodeTaint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.operator_name == "Exists") return t.key.empty() || t.key == taint.key;
  return t.key == taint.key && t.value == taint.value;
}

bool ToleratesWhatWorkloadTolerates(const Toleration& agent, const Toleration& workload) {
  // Taint keys and values are label-shaped: "<" is in neither, so these stand for a key or value
  // no Equal toleration names, and only Exists (or an empty key) tolerates them.
  constexpr char kAnyKey[] = "<any key>";
  constexpr char kAnyValue[] = "<any value>";
  const bool exists = workload.operator_name == "Exists";
  const std::string key = workload.key.empty() && exists ? kAnyKey : workload.key;
  const std::string value = exists ? kAnyValue : workload.value;
  for (const char* effect : {"NoSchedule", "NoExecute"}) {
    if (!workload.effect.empty() && workload.effect != effect) continue;
    if (!ToleratesTaint(agent, NodeTaint{key, value, effect})) return false;
  }
  return true;
}

const NodeTaint* UntoleratedTaint(const Profile& p, const std::vector<NodeTaint>& taints) {
  for (const NodeTaint& taint : taints) {
    if (taint.effect == "PreferNoSchedule") continue;
    const bool tolerated = std::any_of(p.node_shape.tolerations.begin(), p.node_shape.tolerations.end(),
                                       [&](const Toleration& t) { return ToleratesTaint(t, taint); });
    if (!tolerated) return &taint;
  }
  return nullptr;
}

bool MarkedUnhealthy(const std::map<std::string, std::string>& labels,
                     const std::vector<NodeTaint>& taints) {
  auto it = labels.find(kHealthMarkKey);
  if (it != labels.end() && it->second == "fail") return true;
  return std::any_of(taints.begin(), taints.end(),
                     [](const NodeTaint& taint) { return taint.key == kHealthMarkKey; });
}

bool SelectsNode(const Profile& p, const std::string& name,
                 const std::map<std::string, std::string>& labels) {
  for (const auto& [key, value] : p.node_shape.node_selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  auto host = labels.find("kubernetes.io/hostname");
  const std::string& hostname = host == labels.end() ? name : host->second;
  const auto& include = p.node_shape.include_nodes;
  const auto& exclude = p.node_shape.exclude_nodes;
  if (!include.empty() && std::find(include.begin(), include.end(), hostname) == include.end())
    return false;
  return std::find(exclude.begin(), exclude.end(), hostname) == exclude.end();
}

NodeFit PodFit(const Profile& p, const std::map<std::string, std::string>& labels,
               const std::vector<NodeTaint>& taints) {
  if (MarkedUnhealthy(labels, taints)) return NodeFit::kMarkedUnhealthy;
  if (UntoleratedTaint(p, taints) != nullptr) return NodeFit::kUntoleratedTaint;
  return NodeFit::kFits;
}

}  // namespace hkim
