#include "discover/cluster_facts.h"

#include <algorithm>
#include <set>

#include "discover/json_at.h"
#include "discover/tenants.h"
#include "support/untrusted_text.h"

namespace hkim::discover {
namespace {

using nlohmann::json;

std::string Str(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  return "";
}

// Counts from an untrusted export, clamped so that no later sum overflows.
int Int(const json& value) {
  long long n = 0;
  if (value.is_number_integer()) n = value.get<long long>();
  if (value.is_string()) n = ParseCount(value.get<std::string>()).value_or(0);
  return static_cast<int>(std::clamp<long long>(n, 0, 1 << 24));
}

NodeFacts ReadNode(const ExportObject& object) {
  const json& node = *object.json;
  NodeFacts facts;
  facts.name = object.name;
  for (const auto& [key, value] : At(node, {"metadata", "labels"}).items()) {
    if (value.is_string()) facts.labels[key] = value.get<std::string>();
  }
  // Capacity is what the device plugins advertise; allocatable only when capacity is missing.
  const json& capacity = At(node, {"status", "capacity"}).is_object()
                             ? At(node, {"status", "capacity"})
                             : At(node, {"status", "allocatable"});
  for (const auto& [key, value] : capacity.items()) {
    if (auto count = ParseCount(Str(value))) facts.capacity[key] = *count;
  }
  std::set<std::string> taints;
  for (const json& taint : At(node, {"spec", "taints"})) {
    std::string key = Str(At(taint, {"key"}));
    if (key.empty()) continue;
    taints.insert(key + ":" + Str(At(taint, {"effect"})));
    facts.taints.push_back({key, Str(At(taint, {"value"})), Str(At(taint, {"effect"}))});
  }
  facts.taint_keys.assign(taints.begin(), taints.end());
  facts.os_image = Str(At(node, {"status", "nodeInfo", "osImage"}));
  facts.provider_id = Str(At(node, {"spec", "providerID"}));
  const std::string object_name = "Node " + object.name;
  if (auto it = facts.capacity.find("nvidia.com/gpu"); it != facts.capacity.end() && it->second) {
    facts.gpus = static_cast<int>(std::min<long long>(it->second, 1 << 24));
    facts.gpus_from = {object_name, ".status.capacity[nvidia.com/gpu]"};
  } else if (auto label = facts.labels.find("nvidia.com/gpu.count"); label != facts.labels.end()) {
    facts.gpus = static_cast<int>(std::min<long long>(ParseCount(label->second).value_or(0), 1 << 24));
    facts.gpus_from = {object_name, ".metadata.labels[nvidia.com/gpu.count]"};
  }
  return facts;
}

SriovStateFacts ReadSriovState(const ExportObject& object) {
  SriovStateFacts state;
  state.node = object.name;
  const json& interfaces = At(*object.json, {"status", "interfaces"});
  if (!interfaces.is_array()) return state;
  for (size_t i = 0; i < interfaces.size(); ++i) {
    const json& pf = interfaces[i];
    PfFacts facts;
    facts.name = Str(At(pf, {"name"}));
    facts.vendor = Str(At(pf, {"vendor"}));
    facts.device_id = Str(At(pf, {"deviceID"}));
    facts.driver = Str(At(pf, {"driver"}));
    facts.pci_address = Str(At(pf, {"pciAddress"}));
    facts.link_type = Str(At(pf, {"linkType"}));
    facts.link_admin_state = Str(At(pf, {"linkAdminState"}));
    facts.total_vfs = Int(At(pf, {"totalvfs"}));
    facts.mtu = Int(At(pf, {"mtu"}));
    // The operator's Go type spells the VF list "Vfs" (json:"Vfs,omitempty").
    for (const json& vf : At(pf, {"Vfs"})) {
      facts.vfs.push_back({Str(At(vf, {"name"})), Str(At(vf, {"deviceID"})), Int(At(vf, {"mtu"}))});
    }
    facts.num_vfs = Int(At(pf, {"numVfs"}));
    if (facts.num_vfs == 0) facts.num_vfs = static_cast<int>(facts.vfs.size());
    facts.pointer = ".status.interfaces[" + std::to_string(i) + "]";
    state.interfaces.push_back(std::move(facts));
  }
  return state;
}

// The plugin that owns the VF (sriov, ib-sriov, host-device) and, for chained configs, the MTU
// a tuning plugin sets.
void ReadCniConfig(const json& config, NadFacts& nad) {
  nad.cni_version = Str(At(config, {"cniVersion"}));
  std::vector<const json*> plugins;
  if (At(config, {"plugins"}).is_array()) {
    for (const json& plugin : config["plugins"]) plugins.push_back(&plugin);
  } else {
    plugins.push_back(&config);
  }
  for (const json* plugin : plugins) {
    const std::string type = Str(At(*plugin, {"type"}));
    if (!type.empty()) nad.plugins.push_back(type);
    for (const char* key : {"range", "subnet"})
      if (std::string r = Str(At(*plugin, {"ipam", key})); !r.empty()) nad.ranges.push_back(r);
    if (type == "tuning" && nad.mtu == 0) nad.mtu = Int(At(*plugin, {"mtu"}));
    if (type != "sriov" && type != "ib-sriov" && type != "host-device") continue;
    nad.cni_type = type;
    if (int mtu = Int(At(*plugin, {"mtu"}))) nad.mtu = mtu;
    nad.master = Str(At(*plugin, {"master"}));
    const json& ipam = At(*plugin, {"ipam"});
    nad.ipam_type = Str(At(ipam, {"type"}));
    nad.range = Str(At(ipam, {"range"}));
    if (nad.range.empty()) nad.range = Str(At(ipam, {"subnet"}));
    nad.gateway = Str(At(ipam, {"gateway"}));
    nad.pool_name = Str(At(ipam, {"poolName"}));
    for (const json& route : At(ipam, {"routes"})) {
      if (std::string dst = Str(At(route, {"dst"})); !dst.empty()) nad.routes.push_back(dst);
    }
  }
}

NadFacts ReadNad(const ExportSet& exports, const ExportObject& object, DiagnosticSink& sink) {
  NadFacts nad;
  nad.name = object.name;
  nad.namespace_name = object.namespace_name.empty() ? "default" : object.namespace_name;
  nad.resource_name =
      Str(At(*object.json, {"metadata", "annotations", "k8s.v1.cni.cncf.io/resourceName"}));
  nad.owner =
      Str(At(*object.json, {"metadata", "annotations", "sriovnetwork.openshift.io/owner-ref"}));
  const std::string text = Str(At(*object.json, {"spec", "config"}));
  json config = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    sink.Report(Diagnostic{Severity::kWarning, exports.Locate(object, "/spec/config"),
                           object.pointer + "/spec/config", "discover.nad-config",
                           "the CNI config of NetworkAttachmentDefinition " + nad.namespace_name +
                               "/" + nad.name +
                               " is not a JSON object; its MTU and IPAM are unknown",
                           "check the NAD with: kubectl get net-attach-def -n " +
                               nad.namespace_name + " " + nad.name + " -o yaml"});
    return nad;
  }
  ReadCniConfig(config, nad);
  return nad;
}

PoolFacts ReadPool(const ExportObject& object) {
  const json& spec = At(*object.json, {"spec"});
  PoolFacts pool;
  pool.name = object.name;
  pool.namespace_name = object.namespace_name;
  pool.subnet = Str(At(spec, {"subnet"}));
  pool.gateway = Str(At(spec, {"gateway"}));
  pool.per_node_block_size = Int(At(spec, {"perNodeBlockSize"}));
  return pool;
}

// A GPU capacity that is there but not a count (-5, "-5", "1e99Ki") would read as no GPUs
// without a word: the nodes that have one are named in one warning at the first one's field
// (100,000 such nodes are one finding, not 100,000).
struct UnreadableGpuCounts {
  std::size_t count = 0;
  std::string first;  // the first node and its value, for the message
  std::vector<std::string> more;
  SourceLocation at;
};

void NoteUnreadableGpuCount(const ExportSet& exports, const ExportObject& object,
                            UnreadableGpuCounts& found) {
  const char* field = At(*object.json, {"status", "capacity"}).is_object() ? "capacity"
                                                                            : "allocatable";
  const json& value = At(*object.json, {"status", field, "nvidia.com/gpu"});
  if (value.is_null() || ParseCount(Str(value))) return;
  const std::string shown = value.is_string() ? QuoteUntrusted(value.get<std::string>(), 40)
                                              : UntrustedText(value.dump(), 40);
  if (found.count++ == 0) {
    found.first = "Node " + QuoteUntrusted(object.name) + " advertises nvidia.com/gpu " + field +
                  " " + shown;
    found.at = exports.Locate(object, std::string("/status/") + field + "/nvidia.com~1gpu");
  } else if (found.more.size() < 3) {
    found.more.push_back(QuoteUntrusted(object.name) + " (" + shown + ")");
  }
}

void ReportUnreadableGpuCounts(const UnreadableGpuCounts& found, DiagnosticSink& sink) {
  if (found.count == 0) return;
  std::string message = found.first + ", which is not a count of GPUs; the node is read as having none";
  if (found.count > 1) {
    message += "; so are nodes";
    for (std::size_t i = 0; i < found.more.size(); ++i) message += (i ? ", " : " ") + found.more[i];
    if (found.count - 1 > found.more.size()) {
      message += " and " + std::to_string(found.count - 1 - found.more.size()) + " more";
    }
  }
  sink.Report(Diagnostic{Severity::kWarning, found.at, "", "discover.gpu-capacity", message,
                         "check the NVIDIA device plugin on those nodes (kubectl describe node), "
                         "then export the cluster again"});
}

}  // namespace

std::optional<long long> ParseCount(const std::string& quantity) {
  if (quantity.empty() || quantity.size() > 12) return std::nullopt;
  if (!std::all_of(quantity.begin(), quantity.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoll(quantity);
}

const SriovStateFacts* ClusterFacts::StateOf(const std::string& node) const {
  // sriov_states is sorted by node (ExtractFacts): a search, not a scan per node, so that
  // 100,000 nodes with their states are not 10^10 comparisons.
  auto it = std::lower_bound(
      sriov_states.begin(), sriov_states.end(), node,
      [](const SriovStateFacts& state, const std::string& name) { return state.node < name; });
  if (it != sriov_states.end() && it->node == node) return &*it;
  return nullptr;
}

ClusterFacts ExtractFacts(const ExportSet& exports, DiagnosticSink& sink) {
  ClusterFacts facts;
  std::set<ObjectId> seen;  // the same object given twice counts once
  UnreadableGpuCounts unreadable;
  for (const ExportObject& object : exports.objects) {
    if (!seen.insert(object.id()).second)
      continue;
    // Findings about one object point at where it starts in its file.
    const SourceLocation at = exports.Locate(object, "");
    if (object.kind == "Node") {
      facts.nodes.push_back(ReadNode(object));
      facts.nodes.back().location = at;
      NoteUnreadableGpuCount(exports, object, unreadable);
    } else if (object.kind == "SriovNetworkNodeState") {
      facts.sriov_states.push_back(ReadSriovState(object));
      facts.sriov_states.back().location = at;
    } else if (object.kind == "NetworkAttachmentDefinition") {
      facts.nads.push_back(ReadNad(exports, object, sink));
      facts.nads.back().location = at;
    } else if (object.kind == "IPPool") {
      facts.pools.push_back(ReadPool(object));
      facts.pools.back().location = at;
    } else if (object.kind == "Pod" && object.group.empty()) {
      facts.pods_exported = true;
      const std::string node = Str(At(*object.json, {"spec", "nodeName"}));
      if (!node.empty() && PodHoldsGpuOrRdma(*object.json, {}))
        facts.gpu_pods.push_back({object.name, object.namespace_name, node});
    }
  }
  ReportUnreadableGpuCounts(unreadable, sink);
  std::sort(facts.nodes.begin(), facts.nodes.end(),
            [](const NodeFacts& a, const NodeFacts& b) { return a.name < b.name; });
  std::sort(facts.gpu_pods.begin(), facts.gpu_pods.end(), [](const PodFacts& a, const PodFacts& b) {
    return std::tie(a.node, a.namespace_name, a.name) < std::tie(b.node, b.namespace_name, b.name);
  });
  std::sort(facts.sriov_states.begin(), facts.sriov_states.end(),
            [](const auto& a, const auto& b) { return a.node < b.node; });
  std::sort(facts.nads.begin(), facts.nads.end(), [](const NadFacts& a, const NadFacts& b) {
    return std::tie(a.namespace_name, a.name) < std::tie(b.namespace_name, b.name);
  });
  std::sort(facts.pools.begin(), facts.pools.end(), [](const PoolFacts& a, const PoolFacts& b) {
    return std::tie(a.namespace_name, a.name) < std::tie(b.namespace_name, b.name);
  });
  return facts;
}

}  // namespace hkim::discover
