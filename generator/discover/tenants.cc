#include "discover/tenants.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "discover/json_at.h"

namespace hkim::discover {

using nlohmann::json;

bool PodHoldsGpuOrRdma(const json& pod, const std::set<std::string>& rail_resources) {
  const json& phase = At(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") return false;
  const json& networks = At(pod, {"metadata", "annotations", "k8s.v1.cni.cncf.io/networks"});
  if (networks.is_string() && !networks.get<std::string>().empty()) return true;
  const json& containers = At(pod, {"spec", "containers"});
  if (!containers.is_array()) return false;
  for (const json& c : containers) {
    for (const char* part : {"requests", "limits"}) {
      const json& resources = At(c, {"resources", part});
      if (!resources.is_object()) continue;
      for (const auto& [name, value] : resources.items()) {
        (void)value;
        if (name.rfind("nvidia.com/", 0) == 0 || rail_resources.count(name) ||
            name.find("rdma") != std::string::npos)
          return true;
      }
    }
  }
  return false;
}

bool PlatformNamespace(const std::string& namespace_name) {
  for (const char* prefix : {"openshift-", "kube-", "nvidia-", "gpu-operator", "network-operator"})
    if (namespace_name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string NameSuffix(const std::string& node_name) {
  const auto dash = node_name.rfind('-');
  if (dash == std::string::npos) return "";
  const std::string token = node_name.substr(dash + 1);
  const bool word =
      token.size() >= 3 &&
      std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isalpha(c); });
  return word ? token : "";
}

std::string MajoritySuffix(const std::vector<const NodeFacts*>& nodes) {
  std::map<std::string, size_t> counts;
  for (const NodeFacts* node : nodes) ++counts[NameSuffix(node->name)];
  for (const auto& [token, count] : counts)
    if (!token.empty() && count * 2 > nodes.size()) return token;
  return "";
}

}  // namespace hkim::discover
