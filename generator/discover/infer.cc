#include "discover/infer.h"

#include <algorithm>
#include <set>

namespace hkim::discover {

namespace {

constexpr char kProduct[] = "nvidia.com/gpu.product";
constexpr char kInstanceType[] = "node.kubernetes.io/instance-type";
constexpr char kBetaInstanceType[] = "beta.kubernetes.io/instance-type";
constexpr char kCpuVendor[] = "feature.node.kubernetes.io/cpu-model.vendor_id";

std::string Label(const NodeFacts& node, const std::string& key) {
  auto it = node.labels.find(key);
  return it == node.labels.end() ? "" : it->second;
}

std::string InstanceType(const NodeFacts& node) {
  std::string type = Label(node, kInstanceType);
  return type.empty() ? Label(node, kBetaInstanceType) : type;
}

std::string LabelField(const std::string& key) { return ".metadata.labels[" + key + "]"; }

std::vector<NodeGroup> GroupGpuNodes(const ClusterFacts& facts, DiagnosticSink& sink,
                                     const SourceLocation& where) {
  std::map<std::pair<std::string, std::string>, NodeGroup> groups;
  for (const NodeFacts& node : facts.nodes) {
    if (node.gpus <= 0) continue;
    NodeGroup& group = groups[{Label(node, kProduct), InstanceType(node)}];
    group.gpu_product = Label(node, kProduct);
    group.instance_type = InstanceType(node);
    group.nodes.push_back(&node);
  }
  std::vector<NodeGroup> sorted;
  for (auto& [key, group] : groups) {
    std::map<int, int> counts;
    for (const NodeFacts* node : group.nodes) ++counts[node->gpus];
    int best = 0;
    for (const auto& [gpus, n] : counts) {
      if (n > best || (n == best && gpus > group.gpus_per_node)) {
        best = n;
        group.gpus_per_node = gpus;
      }
    }
    if (counts.size() > 1) {
      std::string odd;
      for (const NodeFacts* node : group.nodes) {
        if (node->gpus != group.gpus_per_node) {
          odd += (odd.empty() ? "" : ", ") + node->name + " (" + std::to_string(node->gpus) + ")";
        }
      }
      sink.Report(Diagnostic{Severity::kWarning, where, "", "discover.gpu-count",
                             "nodes of " + group.Describe() + " report different GPU counts: " +
                                 odd + " against " + std::to_string(group.gpus_per_node),
                             "check those nodes' GPU operator pods; the profile assumes " +
                                 std::to_string(group.gpus_per_node)});
    }
    sorted.push_back(std::move(group));
  }
  // The largest group wins; equal sizes go to the one with more GPUs, then by name (stable).
  std::stable_sort(sorted.begin(), sorted.end(), [](const NodeGroup& a, const NodeGroup& b) {
    if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
    return a.gpus_per_node > b.gpus_per_node;
  });
  return sorted;
}

void InferPlatform(const DiscoveredProfile& p, const ClusterFacts& facts, std::string& platform,
                   std::string& from) {
  // The group's nodes decide first; then any node (an OpenShift cluster may label only some).
  std::vector<const NodeFacts*> order(p.group.nodes.begin(), p.group.nodes.end());
  for (const NodeFacts& node : facts.nodes) order.push_back(&node);
  for (const NodeFacts* node : order) {
    if (!Label(*node, "node.openshift.io/os_id").empty()) {
      platform = "openshift";
      from = "Node " + node->name + " " + LabelField("node.openshift.io/os_id") + " = " +
             Label(*node, "node.openshift.io/os_id");
      return;
    }
    if (node->os_image.find("CoreOS") != std::string::npos) {
      platform = "openshift";
      from = "Node " + node->name + " .status.nodeInfo.osImage = " + node->os_image;
      return;
    }
  }
  for (const NodeFacts* node : order) {
    const std::string type = InstanceType(*node);
    if (type.starts_with("BM.") || type.starts_with("VM.")) {
      platform = "oke";
      from = "Node " + node->name + " " + LabelField(kInstanceType) + " = " + type + " (OCI shape)";
      return;
    }
    for (const auto& [key, value] : node->labels) {
      if (key.starts_with("oci.oraclecloud.com/")) {
        platform = "oke";
        from = "Node " + node->name + " " + LabelField(key) + " (OCI label)";
        return;
      }
    }
    if (node->provider_id.starts_with("oci://") || node->provider_id.starts_with("ocid1.")) {
      platform = "oke";
      from = "Node " + node->name + " .spec.providerID (OCI)";
      return;
    }
  }
  platform = "kubernetes";
  from = "no node carries an OpenShift (node.openshift.io/os_id, RHCOS) or OCI marker";
}

void InferCpuVendor(DiscoveredProfile& p, DiagnosticSink& sink, const SourceLocation& where) {
  std::map<std::string, std::string> vendors;  // vendor -> first node
  for (const NodeFacts* node : p.group.nodes) {
    std::string value = Label(*node, kCpuVendor);
    std::string vendor = value == "AMD" || value == "AuthenticAMD"     ? "amd"
                         : value == "Intel" || value == "GenuineIntel" ? "intel"
                                                                       : "";
    if (vendor.empty()) continue;
    if (vendors.emplace(vendor, node->name).second && p.cpu_vendor.empty()) {
      p.cpu_vendor = vendor;
      p.cpu_vendor_from = "Node " + node->name + " " + LabelField(kCpuVendor) + " = " + value;
    }
  }
  if (vendors.size() > 1) {
    sink.Report(
        Diagnostic{Severity::kWarning, where, "", "discover.cpu-vendor",
                   "the nodes of " + p.group.Describe() + " mix AMD (" + vendors["amd"] +
                       ") and Intel (" + vendors["intel"] + ") CPUs",
                   "split the group with a node selector; the IOMMU kernel arguments differ"});
  }
}

void InferSelector(DiscoveredProfile& p, const ClusterFacts& facts, DiagnosticSink& sink,
                   const SourceLocation& where) {
  const NodeFacts& first = *p.group.nodes.front();
  std::vector<std::string> keys = {kInstanceType, kBetaInstanceType, kProduct};
  for (const auto& [key, value] : first.labels) {
    static const std::set<std::string> kGeneric = {"worker", "master", "control-plane", "infra"};
    const std::string prefix = "node-role.kubernetes.io/";
    if (key.starts_with(prefix) && !kGeneric.count(key.substr(prefix.size()))) keys.push_back(key);
  }
  keys.push_back("nvidia.com/gpu.present");
  size_t best_outside = SIZE_MAX;
  for (const std::string& key : keys) {
    const std::string value = Label(first, key);
    if (!first.labels.count(key)) continue;
    bool on_all = std::all_of(p.group.nodes.begin(), p.group.nodes.end(), [&](const NodeFacts* n) {
      return n->labels.count(key) && Label(*n, key) == value;
    });
    if (!on_all) continue;
    size_t outside = 0;
    for (const NodeFacts& node : facts.nodes) {
      bool in_group =
          std::find(p.group.nodes.begin(), p.group.nodes.end(), &node) != p.group.nodes.end();
      if (!in_group && node.labels.count(key) && Label(node, key) == value) ++outside;
    }
    if (outside < best_outside) {
      best_outside = outside;
      p.selector_key = key;
      p.selector_value = value;
      p.selector_from = "Node " + first.name + " " + LabelField(key) + ", on all " +
                        std::to_string(p.group.nodes.size()) + " nodes of the group";
    }
  }
  if (!p.selector_key.empty() && best_outside > 0) {
    sink.Report(Diagnostic{Severity::kWarning, where, "", "discover.selector",
                           "no label selects only " + p.group.Describe() + "; " + p.selector_key +
                               "=" + p.selector_value + " also selects " +
                               std::to_string(best_outside) + " other node(s)",
                           "label the group's nodes (e.g. node-role.kubernetes.io/<pool>) and "
                           "set node_shape.node_selector to it"});
  }
}

// The taints on every node the draft runs on (the group less its excluded nodes).
void InferTaints(DiscoveredProfile& p) {
  std::set<std::string> excluded;
  for (const ExcludedNode& node : p.excluded) excluded.insert(node.host);
  std::map<std::string, size_t> counts;
  size_t kept = 0;
  for (const NodeFacts* node : p.group.nodes) {
    if (excluded.count(HostOf(*node))) continue;
    ++kept;
    for (const std::string& taint : node->taint_keys) ++counts[taint];
  }
  for (const auto& [taint, n] : counts) {
    if (TransientTaint(taint)) continue;
    if (n == kept) p.taints.push_back(taint);
  }
}

}  // namespace

std::string NodeGroup::Describe() const {
  std::string text = (gpu_product.empty() ? "unlabelled GPUs" : gpu_product) + " on " +
                     (instance_type.empty() ? "no instance type" : instance_type) + " (" +
                     std::to_string(nodes.size()) + (nodes.size() == 1 ? " node: " : " nodes: ");
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i == 3) {
      text += ", ...";
      break;
    }
    text += (i ? ", " : "") + nodes[i]->name;
  }
  return text + ")";
}

std::string HostOf(const NodeFacts& node) {
  const std::string host = Label(node, "kubernetes.io/hostname");
  return host.empty() ? node.name : host;
}

bool TransientTaint(const std::string& key) {
  return key.starts_with("node.kubernetes.io/") || key.starts_with("node.cloudprovider") ||
         key.starts_with("hkimgen.io/");
}

long long DraftReplicas(const DiscoveredProfile& profile) {
  const long long nodes = static_cast<long long>(profile.group.nodes.size()) -
                          static_cast<long long>(profile.excluded.size());
  return std::clamp<long long>(nodes, 1, kMaxDraftReplicas);
}

std::vector<DiscoveredProfile> Infer(const ClusterFacts& facts, const SourceLocation& where,
                                     bool all_groups, const std::vector<std::string>& namespaces,
                                     DiagnosticSink& sink) {
  std::vector<NodeGroup> groups = GroupGpuNodes(facts, sink, where);
  if (groups.empty()) {
    sink.Report(Diagnostic{
        Severity::kError, where, "", "discover.no-gpu-nodes",
        "the export holds " + std::to_string(facts.nodes.size()) +
            " node(s) and none reports nvidia.com/gpu capacity or an nvidia.com/gpu.count label",
        std::string("export the nodes with their status (GPU operator running): ") +
            kExportCommand});
    return {};
  }
  std::vector<DiscoveredProfile> profiles;
  for (size_t i = 0; i < (all_groups ? groups.size() : 1); ++i) {
    DiscoveredProfile profile;
    profile.group = groups[i];
    for (size_t j = 0; j < groups.size(); ++j) {
      if (j != i) profile.other_groups.push_back(groups[j]);
    }
    InferPlatform(profile, facts, profile.platform, profile.platform_from);
    InferCpuVendor(profile, sink, where);
    InferSelector(profile, facts, sink, where);
    InferOtherTeams(facts, namespaces, profile, sink);
    profile.pods_exported = facts.pods_exported;
    InferTaints(profile);
    InferRails(facts, where, profile, sink);
    for (const NadFacts& nad : facts.nads) {
      if (!nad.owner.empty()) continue;
      for (const std::string& plugin : nad.plugins)
        profile.cni_used_by.emplace(
            plugin, "NetworkAttachmentDefinition " + nad.namespace_name + "/" + nad.name);
    }
    for (const NadFacts& nad : facts.nads)
      profile.exported_ranges.insert(profile.exported_ranges.end(), nad.ranges.begin(),
                                     nad.ranges.end());
    for (const PoolFacts& pool : facts.pools)
      if (!pool.subnet.empty()) profile.exported_ranges.push_back(pool.subnet);
    profiles.push_back(std::move(profile));
  }
  return profiles;
}

}  // namespace hkim::discover
