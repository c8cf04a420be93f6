// What a sync does to the nodes, checked against the cluster (issue 35): a MachineConfig
// re-renders its pool (every node drains and reboots), kernel arguments a live MachineConfig
// sets already, iommu.already_set claims, nodes other teams run GPU or RDMA pods on, and the
// CPU vendor the IOMMU arguments are chosen for.

#include <algorithm>
#include <cctype>
#include <map>

#include "cluster_check/findings.h"
#include "discover/json_at.h"
#include "plan/preconditions.h"

namespace hkim::cluster_check {
namespace {

using discover::At;
using discover::ExportObject;
using discover::NodeFacts;
using nlohmann::json;

constexpr char kRoleLabel[] = "machineconfiguration.openshift.io/role";

/// The MachineConfig roles a pool renders (its machineConfigSelector: matchLabels role, or
/// matchExpressions role In [...], as Barcelona's h100 pool: worker and h100).
std::set<std::string> PoolRoles(const ExportObject& pool) {
  std::set<std::string> roles;
  const json& selector = At(*pool.json, {"spec", "machineConfigSelector"});
  const std::string label = Str(At(selector, {"matchLabels", kRoleLabel}));
  if (!label.empty()) roles.insert(label);
  const json& expressions = At(selector, {"matchExpressions"});
  if (!expressions.is_array()) return roles;
  for (const json& e : expressions) {
    if (Str(At(e, {"key"})) != kRoleLabel || Str(At(e, {"operator"})) != "In") continue;
    const json& values = At(e, {"values"});
    if (!values.is_array()) continue;
    for (const json& v : values)
      if (v.is_string()) roles.insert(v.get<std::string>());
  }
  if (roles.empty()) roles.insert(pool.name);  // worker and master select their own role
  return roles;
}

/// The nodes a pool takes (its nodeSelector's matchLabels; node-role.kubernetes.io/<name>).
std::vector<const NodeFacts*> PoolNodes(const ClusterExport& cluster, const ExportObject& pool) {
  json labels = At(*pool.json, {"spec", "nodeSelector", "matchLabels"});
  if (!labels.is_object() || labels.empty())
    labels = json{{"node-role.kubernetes.io/" + pool.name, ""}};
  std::vector<const NodeFacts*> nodes;
  for (const NodeFacts& node : cluster.facts.nodes) {
    bool all = true;
    for (const auto& [key, value] : labels.items()) {
      auto it = node.labels.find(key);
      all &= it != node.labels.end() && value.is_string() && it->second == value.get<std::string>();
    }
    if (all) nodes.push_back(&node);
  }
  return nodes;
}

/// How many of the pool's nodes reboot at once, as the message says it. The Machine Config
/// Operator's default is 1, and it updates one node at a time where maxUnavailable is 0 (or
/// 0%): a pool never stands still (openshift/machine-config-operator
/// pkg/controller/node/node_controller.go, maxUnavailable: `if maxunavail == 0 { maxunavail = 1 }`).
std::string MaxUnavailable(const ExportObject& pool) {
  const json& value = At(*pool.json, {"spec", "maxUnavailable"});
  if (value.is_number_integer())
    return value.get<long long>() <= 0 ? "1 (maxUnavailable 0 counts as 1)"
                                       : std::to_string(value.get<long long>());
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    return text == "0" || text == "0%" ? "1 (maxUnavailable " + text + " counts as 1)" : text;
  }
  return "1";
}

std::string NodeList(const std::vector<const NodeFacts*>& nodes) {
  std::string text;
  for (size_t i = 0; i < nodes.size() && i < 3; ++i) text += (i ? ", " : "") + nodes[i]->name;
  if (nodes.size() > 3) text += " and " + std::to_string(nodes.size() - 3) + " more";
  return text;
}

bool SetsArgument(const ExportObject& mc, const std::string& argument) {
  const json& args = At(*mc.json, {"spec", "kernelArguments"});
  if (!args.is_array()) return false;
  for (const json& a : args)
    if (a.is_string() && a.get<std::string>() == argument) return true;
  return false;
}

/// The pools of the export that render MachineConfigs of `role`.
std::vector<const ExportObject*> PoolsOfRole(const ClusterExport& cluster, const std::string& role) {
  std::vector<const ExportObject*> pools;
  for (const ExportObject* pool : OfKind(cluster, "MachineConfigPool"))
    if (PoolRoles(*pool).count(role)) pools.push_back(pool);
  return pools;
}

/// The cluster's MachineConfig (not the bundle's) that gives `pool` kernel argument `argument`.
const ExportObject* SetBy(const ClusterExport& cluster, const std::set<std::string>& apps,
                          const ExportObject& pool, const std::string& argument) {
  const std::set<std::string> roles = PoolRoles(pool);
  for (const ExportObject* mc : OfKind(cluster, "MachineConfig")) {
    if (apps.count(TrackedBy(*mc->json))) continue;
    if (roles.count(Str(At(*mc->json, {"metadata", "labels", kRoleLabel}))) && SetsArgument(*mc, argument))
      return mc;
  }
  return nullptr;
}

/// The kernel arguments a MachineConfig sets, in order.
std::vector<std::string> KernelArguments(const json& config) {
  std::vector<std::string> args;
  const json& list = At(config, {"spec", "kernelArguments"});
  if (list.is_array())
    for (const json& a : list)
      if (a.is_string()) args.push_back(a.get<std::string>());
  return args;
}

/// Whether the bundle's MachineConfig runs already as the bundle renders it (synced by its
/// Application, the same kernel arguments): the sync changes nothing and no pool re-renders.
bool SyncedUnchanged(const ClusterExport& cluster, const std::set<std::string>& apps,
                     const PlannedObject& planned) {
  auto it = cluster.by_id.find(planned.id());
  if (it == cluster.by_id.end() || !apps.count(TrackedBy(*it->second->json))) return false;
  std::vector<std::string> mine;
  for (const json& argument : planned.context.value("kernel_arguments", json::array()))
    mine.push_back(argument.value("value", ""));
  return KernelArguments(*it->second->json) == mine;
}

void CheckMachineConfig(const ClusterExport& cluster, const std::set<std::string>& apps,
                        const PlannedObject& planned, Findings& findings) {
  const std::string role = planned.context.value("role", "");
  if (cluster.kinds.count("MachineConfig") && SyncedUnchanged(cluster, apps, planned)) return;
  if (!cluster.kinds.count("MachineConfigPool")) {
    findings.NotExported("MachineConfigPool", "which pool a MachineConfig re-renders");
    return;
  }
  const bool configs = cluster.kinds.count("MachineConfig") > 0;
  if (!configs) findings.NotExported("MachineConfig", "kernel arguments the pool boots with already");
  for (const ExportObject* pool : PoolsOfRole(cluster, role)) {
    const std::vector<const NodeFacts*> nodes = PoolNodes(cluster, *pool);
    findings.Add(Severity::kWarning, "cluster.machineconfig-reboot", planned.source_pointer,
                 Where(cluster, *pool),
                 "renders MachineConfigs of role " + role + ": the bundle's MachineConfig " +
                     planned.name + " re-renders it, and its " + std::to_string(nodes.size()) +
                     " node(s) (" + NodeList(nodes) + ") drain and reboot, " + MaxUnavailable(*pool) +
                     " at a time",
                 "list the kernel arguments the pool boots with already in iommu.already_set; "
                 "sync the rest in a maintenance window");
    if (!configs) continue;
    for (const json& argument : planned.context.value("kernel_arguments", json::array())) {
      const std::string value = argument.value("value", "");
      const ExportObject* mc = SetBy(cluster, apps, *pool, value);
      if (mc == nullptr) continue;
      findings.Add(Severity::kError, "cluster.kernel-args-set", planned.source_pointer,
                   Where(cluster, *mc),
                   "sets kernel argument " + value + " already for role " +
                       Str(At(*mc->json, {"metadata", "labels", kRoleLabel})) + ", which pool " +
                       pool->name + " renders: the bundle's MachineConfig " + planned.name +
                       " repeats it and reboots every node of the pool for nothing",
                   "add it to iommu.already_set: [" + value + "]");
    }
  }
}

void CheckAlreadySet(const Profile& p, const ClusterExport& cluster, const std::set<std::string>& apps,
                     Findings& findings) {
  if (!p.IsOpenShift() || p.iommu.already_set.empty()) return;
  if (!cluster.kinds.count("MachineConfig") || !cluster.kinds.count("MachineConfigPool")) {
    findings.NotExported(cluster.kinds.count("MachineConfig") ? "MachineConfigPool" : "MachineConfig",
                         "iommu.already_set against the pool's MachineConfigs");
    return;
  }
  const std::vector<const ExportObject*> pools = PoolsOfRole(cluster, p.iommu.machine_config_role);
  for (size_t i = 0; i < p.iommu.already_set.size(); ++i) {
    const std::string& argument = p.iommu.already_set[i];
    for (const ExportObject* pool : pools) {
      if (SetBy(cluster, apps, *pool, argument)) continue;
      findings.Add(Severity::kError, "cluster.kernel-arg-missing",
                   p.iommu.pointer + "/already_set/" + std::to_string(i), Where(cluster, *pool),
                   "boots its nodes without " + argument +
                       ": no MachineConfig of its roles sets it, so iommu.already_set is wrong",
                   "remove it from iommu.already_set so that the bundle sets it (a reboot per node)");
    }
  }
}

void CheckCpuVendor(const Profile& p, const ClusterExport& cluster,
                    const std::vector<const NodeFacts*>& picked, Findings& findings) {
  const std::string mine = ToString(p.node_shape.cpu_vendor);
  for (const NodeFacts* node : picked) {
    auto it = node->labels.find("feature.node.kubernetes.io/cpu-model.vendor_id");
    if (it == node->labels.end()) continue;
    std::string theirs = it->second;
    std::transform(theirs.begin(), theirs.end(), theirs.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (theirs.find("amd") != std::string::npos) theirs = "amd";
    else if (theirs.find("intel") != std::string::npos) theirs = "intel";
    else continue;
    if (theirs == mine) continue;
    findings.Add(Severity::kError, "cluster.cpu-vendor", p.node_shape.pointer + "/cpu_vendor",
                 Named("Node", node->name, node->location),
                 "has an " + theirs + " CPU (cpu-model.vendor_id=" + it->second +
                     ") but node_shape.cpu_vendor is " + mine +
                     ": the IOMMU kernel arguments would be the other vendor's",
                 "set node_shape.cpu_vendor: " + theirs);
  }
  (void)cluster;
}

/// The last '-' part of a node name when it is a word ("moc-r4pcc02u15-yunshi" -> "yunshi").
std::string LastToken(const std::string& name) {
  const auto dash = name.rfind('-');
  if (dash == std::string::npos) return "";
  const std::string token = name.substr(dash + 1);
  const bool word = token.size() >= 3 && std::all_of(token.begin(), token.end(), [](unsigned char c) {
    return std::isalpha(c);
  });
  return word ? token : "";
}

/// The name suffix most picked nodes share, or "" when no single one holds the majority.
std::string MajorityToken(const std::vector<const NodeFacts*>& picked) {
  std::map<std::string, size_t> counts;
  for (const NodeFacts* node : picked) ++counts[LastToken(node->name)];
  for (const auto& [token, count] : counts)
    if (!token.empty() && count * 2 > picked.size()) return token;
  return "";
}

void CheckTenants(const Profile& p, const std::vector<const NodeFacts*>& picked,
                  const OtherTenants& tenants, Findings& findings) {
  const std::string majority = MajorityToken(picked);
  for (const NodeFacts* node : picked) {
    const std::string name = Named("Node", node->name, node->location);
    const std::string fix = "leave the node to them: node_shape.exclude_nodes: [" + node->name +
                            "] (or narrow node_shape.node_selector)";
    if (auto it = tenants.by_node.find(node->name); it != tenants.by_node.end()) {
      std::string spaces;
      for (const std::string& ns : it->second) spaces += (spaces.empty() ? "" : ", ") + ns;
      findings.Add(Severity::kWarning, "cluster.node-shared", p.node_shape.pointer + "/node_selector",
                   name,
                   "runs GPU or RDMA pods of namespace " + spaces +
                       ": the bundle's pods compete for its GPUs and VFs, and its node changes "
                       "reach those pods too",
                   fix);
    }
    const std::string token = LastToken(node->name);
    if (!majority.empty() && !token.empty() && token != majority) {
      findings.Add(Severity::kWarning, "cluster.node-shared", p.node_shape.pointer + "/node_selector",
                   name,
                   "is named ...-" + token + ", unlike most picked nodes (...-" + majority +
                       "): a name like this often says which team owns the node",
                   fix);
    }
  }
}

bool UsesGpuOrRdma(const json& pod, const std::set<std::string>& rail_resources) {
  if (!Str(At(pod, {"metadata", "annotations", "k8s.v1.cni.cncf.io/networks"})).empty()) return true;
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

/// The namespaces that are the profile's or its operators' own, read once per check (an export
/// may hold a pod per GPU of thousands of nodes).
std::set<std::string> OwnNamespaces(const Profile& p) {
  std::set<std::string> own(p.namespaces.begin(), p.namespaces.end());
  const Operators ops = OperatorsOf(p);
  for (const OperatorFacts& facts : OperatorCatalog())
    if (const OperatorCommon* op = OperatorByKey(ops, facts.key)) own.insert(op->namespace_name);
  return own;
}

/// Whether `ns` is one of `own` or the platform's (the system, the operators' usual homes).
bool OwnNamespace(const std::set<std::string>& own, const std::string& ns) {
  if (own.count(ns)) return true;
  for (const char* prefix : {"openshift-", "kube-", "nvidia-", "gpu-operator", "network-operator"})
    if (ns.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

OtherTenants FindOtherTenants(const Profile& p, const ClusterExport& cluster) {
  OtherTenants tenants;
  const std::set<std::string> own = OwnNamespaces(p);
  std::set<std::string> rails;
  for (const Rail& rail : p.network.rails) rails.insert(rail.resource_name);
  for (const ExportObject* pod : OfKind(cluster, "Pod")) {
    if (OwnNamespace(own, pod->namespace_name) || !UsesGpuOrRdma(*pod->json, rails)) continue;
    const std::string phase = Str(At(*pod->json, {"status", "phase"}));
    if (phase == "Succeeded" || phase == "Failed") continue;  // finished: holds nothing
    const std::string node = Str(At(*pod->json, {"spec", "nodeName"}));
    if (!node.empty()) tenants.by_node[node].insert(pod->namespace_name);
  }
  return tenants;
}

void CheckNodeChanges(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                      const std::vector<const NodeFacts*>& picked, const OtherTenants& tenants,
                      Findings& findings) {
  const std::set<std::string> apps = BundleApplications(plan);
  if (p.IsOpenShift()) {
    for (const PlannedObject& planned : plan.objects)
      if (planned.kind == "MachineConfig") CheckMachineConfig(cluster, apps, planned, findings);
    CheckAlreadySet(p, cluster, apps, findings);
  }
  CheckCpuVendor(p, cluster, picked, findings);
  if (!cluster.kinds.count("Pod")) {
    findings.NotExported("Pod", "other teams' GPU and RDMA pods on the picked nodes");
    return;
  }
  CheckTenants(p, picked, tenants, findings);
}

}  // namespace hkim::cluster_check
