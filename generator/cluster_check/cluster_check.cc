#include "cluster_check/cluster_check.h"
#include "support/untrusted_text.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "cluster_check/findings.h"
#include "model/health.h"
#include "model/placement.h"
#include "plan/operators/operators.h"
#include "support/join.h"

namespace hkim::cluster_check {
namespace {

using discover::NodeFacts;
using discover::PfFacts;
using discover::SriovStateFacts;

constexpr char kMellanox[] = "15b3";

std::string Hex(std::string id) {
  if (id.rfind("0x", 0) == 0) id = id.substr(2);
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return id;
}

// The items joined, or `empty` when there are none.
std::string JoinOr(const std::vector<std::string>& items, const std::string& empty = "none") {
  return items.empty() ? empty : Join(items);
}

bool Picks(const Profile& p, const NodeFacts& node) { return SelectsNode(p, node.name, node.labels); }

// "key=value:Effect" as kubectl prints a taint.
std::string TaintText(const NodeTaint& taint) {
  return taint.key + (taint.value.empty() ? "" : "=" + taint.value) + ":" + taint.effect;
}

// Whether the planned bundle advertises `resource` itself (its SR-IOV node policies, or the
// NicClusterPolicy's device plugin over the VF DaemonSet's VFs): then a node without it is
// waiting for the first sync. Asked of the plan, so the check and the render cannot disagree.
bool PlanProvidesResource(const BundlePlan& plan, const std::string& resource) {
  for (const PlannedObject& object : plan.objects)
    for (const Capability& c : object.provides)
      if (c.kind == CapabilityKind::kResource && CapabilityMatches(c.kind, c.name, resource))
        return true;
  return false;
}

bool ExcludedByName(const Profile& p, const NodeFacts& node) {
  auto host = node.labels.find("kubernetes.io/hostname");
  const std::string& hostname = host == node.labels.end() ? node.name : host->second;
  const auto& exclude = p.node_shape.exclude_nodes;
  return std::find(exclude.begin(), exclude.end(), hostname) != exclude.end();
}

class ProfileChecker {
 public:
  ProfileChecker(const Profile& p, const BundlePlan& plan, const LoadedProfile& merged,
                 const ClusterExport& cluster, DiagnosticSink& sink)
      : p_(p), plan_(plan), cluster_(cluster), findings_(merged, sink) {
    for (const SriovStateFacts& state : cluster.facts.sriov_states) states_[state.node] = &state;
  }

  ProfileReport Run() {
    ProfileReport report;
    report.profile = p_.source_path;
    std::vector<const NodeFacts*> picked;
    for (const NodeFacts& node : cluster_.facts.nodes) {
      if (ExcludedByName(p_, node)) report.excluded.insert(node.name);
      if (!Picks(p_, node)) continue;
      picked.push_back(&node);
      report.picked.insert(node.name);
    }
    CheckNodeSet(picked);
    CountEvidence(picked);
    for (const NodeFacts* node : picked) report.nodes.push_back(CheckNode(*node));
    for (const NodeFacts& node : cluster_.facts.nodes) {
      if (node.gpus == 0 || report.picked.count(node.name)) continue;
      NodeRow row;
      row.node = node.name;
      row.gpus = node.gpus;
      report.nodes.push_back(std::move(row));
    }
    const OtherTenants tenants = FindOtherTenants(p_, cluster_);
    for (NodeRow& row : report.nodes) {
      auto it = tenants.by_node.find(row.node);
      if (it != tenants.by_node.end()) row.others = it->second;
    }
    std::sort(report.nodes.begin(), report.nodes.end(),
              [](const NodeRow& a, const NodeRow& b) { return a.node < b.node; });
    CheckPreconditions(p_, plan_, cluster_, picked, findings_);
    CheckPlacement(p_, cluster_, picked, findings_);
    CheckFreeCapacity(p_, plan_, cluster_, picked, findings_);
    CheckTakeover(p_, plan_, cluster_, findings_);
    CheckPlatformNetworks(p_, cluster_, findings_);
    CheckCollisions(p_, plan_, cluster_, picked, tenants, findings_);
    findings_.Flush();
    return report;
  }

 private:
  std::string NodeName(const NodeFacts& node) const {
    return Named("Node", node.name, node.location);
  }

  void CheckNodeSet(const std::vector<const NodeFacts*>& picked) {
    const std::string selector = p_.node_shape.pointer + "/node_selector";
    if (picked.empty()) {
      std::string wanted;
      for (const auto& [key, value] : p_.node_shape.node_selector)
        wanted += (wanted.empty() ? "" : ", ") + key + "=" + value;
      int gpu_nodes = 0;
      for (const NodeFacts& node : cluster_.facts.nodes) gpu_nodes += node.gpus > 0;
      findings_.Add(Severity::kError, "cluster.no-nodes", selector, "cluster " + cluster_.label,
                    "no node of the cluster carries " + (wanted.empty() ? "the selector" : wanted) +
                        " (the export holds " + std::to_string(cluster_.facts.nodes.size()) +
                        " nodes, " + std::to_string(gpu_nodes) + " with GPUs)",
                    "this profile does not describe this cluster: fix node_shape.node_selector "
                    "(or include_nodes), or check against the right cluster's export");
      return;
    }
    // Nodes the pods may run on (model/node_fit.h): not marked failed, every taint tolerated.
    int fit = 0;
    for (const NodeFacts* node : picked) fit += PodFit(p_, node->labels, node->taints) == NodeFit::kFits;
    if (fit * kPodsPerNode < p_.workload.replicas) {
      const int unfit = static_cast<int>(picked.size()) - fit;
      findings_.Add(Severity::kError, "cluster.node-count", p_.workload.pointer + "/replicas",
                    "cluster " + cluster_.label,
                    "the workload runs " + std::to_string(p_.workload.replicas) +
                        " pods, one per node, but the selector picks " +
                        std::to_string(picked.size()) + " node(s)" +
                        (unfit ? ", " + std::to_string(unfit) +
                                     " of which the pods may not run on (marked failed or "
                                     "tainted: named below)"
                               : std::string()) +
                        ": the rest stay Pending",
                    "set workload.replicas to at most " + std::to_string(fit) +
                        ", or label more nodes" + (unfit ? " (or repair those)" : ""));
    }
  }

  // Which resources and rails' VFs some picked node already has: where none does, the bundle
  // has yet to create them (a note); where some do, a node without them is an error.
  void CountEvidence(const std::vector<const NodeFacts*>& picked) {
    for (const NodeFacts* node : picked) {
      for (const auto& [name, count] : node->capacity)
        if (count > 0) ++advertised_[name];
      auto it = states_.find(node->name);
      if (it == states_.end()) continue;
      for (const PfFacts& pf : it->second->interfaces)
        if (pf.num_vfs > 0) ++with_vfs_[pf.name];
    }
  }

  NodeRow CheckNode(const NodeFacts& node) {
    NodeRow row;
    row.node = node.name;
    row.gpus = node.gpus;
    row.picked = true;
    const std::string name = NodeName(node);
    if (node.gpus == 0) {
      Error(row, "cluster.node-no-gpu", p_.node_shape.pointer + "/node_selector", name,
            "the selector picks a node without GPUs (no nvidia.com/gpu capacity or "
            "nvidia.com/gpu.count label)",
            "narrow node_shape.node_selector to the GPU nodes, or exclude_nodes this one");
    } else if (node.gpus != p_.node_shape.gpus_per_node) {
      Error(row, "cluster.node-gpus", p_.node_shape.pointer + "/gpus_per_node", name,
            "has " + std::to_string(node.gpus) + " GPUs, not the " +
                std::to_string(p_.node_shape.gpus_per_node) + " of node_shape " +
                p_.node_shape.name,
            "set node_shape.gpus_per_node to the nodes' count, or select only " +
                p_.node_shape.name + " nodes");
    }
    if (MarkedUnhealthy(node.labels, node.taints)) {
      row.unhealthy = true;
      Warn(row, "cluster.node-unhealthy", p_.fabric_health.periodic.pointer, name,
           std::string("is marked failed by the periodic health check (") + kHealthMarkKey +
               "=fail): the pods avoid it until it passes again",
           "repair the node's fabric; the periodic check releases it after " +
               std::to_string(p_.fabric_health.periodic.release_after_passes) +
               " passing run(s) (once repaired, `kubectl label node " + node.name + " " +
               kHealthMarkKey + "-` releases it now)");
    }
    for (const NodeTaint& taint : node.taints) {
      if (taint.key == kHealthMarkKey) continue;  // the mark, reported above
      if (UntoleratedTaint(p_, {taint}) == nullptr) continue;
      Error(row, "cluster.node-taint", p_.node_shape.pointer + "/tolerations", name,
            "is tainted " + TaintText(taint) +
                ", which no toleration of the pods matches (key, value, operator and effect): "
                "they never land on it",
            "add {key: " + taint.key +
                (taint.value.empty() ? ", operator: Exists" : ", value: " + taint.value) +
                ", effect: " + taint.effect +
                "} to node_shape.tolerations if the pods belong there, or leave the node out "
                "(node_shape.exclude_nodes)");
    }
    if (p_.UsesRails()) CheckRails(node, row);
    CheckResources(node, row);
    return row;
  }

  void CheckRails(const NodeFacts& node, NodeRow& row) {
    auto it = states_.find(node.name);
    const SriovStateFacts* state = it == states_.end() ? nullptr : it->second;
    row.rails_total = static_cast<int>(p_.network.rails.size());
    if (state == nullptr) {
      // OKE has no SR-IOV operator and so no node states: the device plugin's capacity
      // (CheckResources) is what shows the VFs there.
      if (p_.IsOpenShift() && cluster_.kinds.count("SriovNetworkNodeState")) {
        Warn(row, "cluster.no-sriov-state", p_.network.pointer + "/rails", NodeName(node),
             "has no SriovNetworkNodeState: its PFs cannot be checked",
             "check that the SR-IOV operator's config daemon runs on the node");
      }
      row.rails_ok = row.rails_total;
      return;
    }
    const std::string state_name = Named("SriovNetworkNodeState", state->node, state->location);
    row.vfs = 0;
    for (const Rail& rail : p_.network.rails) {
      if (rail.interface_name.empty()) {
        ++row.rails_ok;  // no PF named: nothing to compare
        continue;
      }
      const PfFacts* pf = nullptr;
      for (const PfFacts& candidate : state->interfaces) {
        if (candidate.name == rail.interface_name) pf = &candidate;
      }
      if (pf == nullptr) {
        MissingPf(rail, *state, state_name, row);
        continue;
      }
      row.vfs += pf->num_vfs;
      if (CheckPf(rail, *pf, state_name, row)) ++row.rails_ok;
    }
  }

  void MissingPf(const Rail& rail, const SriovStateFacts& state, const std::string& state_name,
                 NodeRow& row) {
    std::vector<std::string> unnamed;  // Mellanox PFs no rail names: a renamed one is among them
    std::vector<std::string> all;
    for (const PfFacts& pf : state.interfaces) {
      all.push_back(pf.name);
      if (pf.vendor != kMellanox) continue;
      bool named = false;
      for (const Rail& other : p_.network.rails) named |= other.interface_name == pf.name;
      if (!named) unnamed.push_back(pf.name);
    }
    row.rails_missing.push_back(rail.name + ": " + rail.interface_name);
    Error(row, "cluster.rail-pf", rail.pointer + "/interface", state_name,
          "has no PF " + rail.interface_name + " (rail " + rail.name + ")",
          unnamed.empty() ? "check the NIC and its firmware on the node, or fix the interface"
                          : "if the PF was renamed (re-imaging changes names), set "
                            "network.rails[].interface to its new name",
          "its PFs: " + JoinOr(all) +
              (unnamed.empty() ? "" : "; Mellanox PFs no rail names: " + Join(unnamed)));
  }

  bool CheckPf(const Rail& rail, const PfFacts& pf, const std::string& state_name, NodeRow& row) {
    bool ok = true;
    const std::string pf_name = "PF " + pf.name + " (rail " + rail.name + ")";
    const std::string& nic = p_.node_shape.topology.nic_pci_device;
    if (pf.vendor != kMellanox) {
      ok = Error(row, "cluster.rail-pf-device", rail.pointer + "/interface", state_name,
                 pf_name + " is vendor " + pf.vendor + ", not Mellanox/NVIDIA (15b3)",
                 "name a ConnectX PF in network.rails[].interface");
    } else if (!nic.empty() && !pf.device_id.empty() && Hex(pf.device_id) != Hex(nic)) {
      ok = Error(row, "cluster.rail-pf-device", rail.pointer + "/interface", state_name,
                 pf_name + " is device " + pf.device_id + ", not the " + Hex(nic) +
                     " of node_shape " + p_.node_shape.name,
                 "check the node shape (topology.preset) against the nodes' NICs");
    }
    if (pf.link_admin_state == "down") {
      ok = Error(row, "cluster.rail-link", rail.pointer + "/interface", state_name,
                 pf_name + " is administratively down", "bring the link up on the node");
    }
    const bool ib = p_.network.fabric == Fabric::kInfiniBand;
    if (!pf.link_type.empty() && pf.link_type != (ib ? "IB" : "ETH")) {
      ok = Error(row, "cluster.rail-link-type", p_.network.pointer + "/fabric", state_name,
                 pf_name + " has link type " + pf.link_type + " but the fabric is " +
                     ToString(p_.network.fabric),
                 std::string("set network.fabric: ") + (ib ? "roce-v2" : "infiniband"));
    }
    if (pf.mtu > 0 && pf.mtu < rail.mtu_bytes) {
      ok = Error(row, "cluster.rail-mtu", rail.pointer + "/mtu_bytes", state_name,
                 pf_name + " has MTU " + std::to_string(pf.mtu) + ", below the rail's " +
                     std::to_string(rail.mtu_bytes),
                 "raise the PF's MTU (SriovNetworkNodePolicy mtu) or lower mtu_bytes");
    }
    const int needed = rail.attachments_per_pod * kPodsPerNode;
    if (pf.num_vfs < needed) {
      const bool fits = pf.total_vfs == 0 || pf.total_vfs >= needed;
      if (PlanProvidesResource(plan_, rail.resource_name) && fits && with_vfs_[pf.name] == 0) {
        findings_.Add(Severity::kNote, "cluster.vfs-pending", rail.pointer + "/attachments_per_pod",
                      state_name,
                      pf_name + " has " + std::to_string(pf.num_vfs) + " VF(s) of the " +
                          std::to_string(needed) + " a node's pod takes; the bundle's "
                          "SR-IOV policy creates them",
                      "");
      } else {
        ok = Error(row, "cluster.rail-vfs", rail.pointer + "/attachments_per_pod", state_name,
                   pf_name + " has " + std::to_string(pf.num_vfs) + " VF(s)" +
                       (pf.total_vfs ? " (totalvfs " + std::to_string(pf.total_vfs) + ")" : "") +
                       " but a node's pod takes " + std::to_string(needed),
                   !fits ? "enable more VFs in the NIC firmware (SRIOV_EN, NUM_OF_VFS)"
                   : PlanProvidesResource(plan_, rail.resource_name)
                       ? "the bundle's node policy creates them and other nodes have them: check "
                         "the node's SriovNetworkNodeState (status.syncStatus, lastSyncError) "
                         "and the SR-IOV config daemon on it (oc logs -n <sriov namespace> "
                         "ds/sriov-network-config-daemon), which drains the node to create them"
                       : "create the VFs (numVfs) on the node, or let the bundle do it "
                         "(operators.sriov_network_operator.node_policies)");
      }
    }
    return ok;
  }

  // What one pod requests of each extended resource.
  std::map<std::string, std::pair<long long, std::string>> Requests() const {
    std::map<std::string, std::pair<long long, std::string>> wanted;  // -> count, pointer
    if (p_.workload.gpus_per_pod > 0)
      wanted["nvidia.com/gpu"] = {p_.workload.gpus_per_pod, p_.workload.pointer + "/gpus_per_pod"};
    if (p_.UsesRails()) {
      for (const Rail& rail : p_.network.rails) {
        auto& entry = wanted[rail.resource_name];
        entry.first += rail.attachments_per_pod;
        if (entry.second.empty()) entry.second = rail.pointer + "/resource_name";
      }
    }
    for (const auto& [name, quantity] : p_.workload.resource_requests) {
      if (name.find('/') == std::string::npos || name.starts_with("hugepages-")) continue;
      if (auto count = discover::ParseCount(quantity))
        wanted[name] = {*count, p_.workload.pointer + "/resources/requests"};
    }
    return wanted;
  }

  void CheckResources(const NodeFacts& node, NodeRow& row) {
    for (const auto& [resource, want] : Requests()) {
      auto it = node.capacity.find(resource);
      const long long have = it == node.capacity.end() ? 0 : it->second;
      row.resources[resource] = have;
      const long long needed = want.first * kPodsPerNode;
      if (have >= needed) continue;
      bool rail_resource = false;
      for (const Rail& rail : p_.network.rails) rail_resource |= rail.resource_name == resource;
      const std::string what = "advertises " + std::to_string(have) + " " + resource +
                               " but a node's pod requests " + std::to_string(needed);
      // The OKE VF DaemonSet's label: the node waits for its declared reboot into exclusive
      // RDMA mode and offers no VFs until then (a step the bundle README names, not a fault).
      auto pending = node.labels.find(kRdmaModePendingLabel);
      if (rail_resource && have == 0 && pending != node.labels.end() && pending->second == "true") {
        Warn(row, "cluster.rdma-reboot-pending", want.second, NodeName(node),
             "carries " + std::string(kRdmaModePendingLabel) +
                 "=true: it waits for its reboot into exclusive RDMA mode and offers no " +
                 resource + " until then",
             "kubectl drain " + node.name + " --ignore-daemonsets --delete-emptydir-data, reboot "
             "it, kubectl uncordon " + node.name + ", one node at a time (bundle README: \"RDMA "
             "exclusive mode: nodes waiting for a reboot\")");
        continue;
      }
      if (rail_resource && have == 0 && PlanProvidesResource(plan_, resource) &&
          advertised_[resource] == 0) {
        findings_.Add(Severity::kNote, "cluster.resource-pending", want.second, NodeName(node),
                      "advertises no " + resource + " yet; the device plugin will once the "
                      "bundle's VFs exist",
                      "");
        continue;
      }
      Error(row, "cluster.resource", want.second, NodeName(node), what + ": the pod stays Pending",
            rail_resource ? "check the VFs and the SR-IOV device plugin on the node (the "
                            "resource name must match what it advertises)"
                          : "check the device plugin that advertises " + resource);
    }
  }

  bool Error(NodeRow& row, const std::string& rule, const std::string& pointer,
             const std::string& object, const std::string& message, const std::string& fix,
             const std::string& detail = "") {
    row.ok = false;
    findings_.Add(Severity::kError, rule, pointer, object, message, fix, detail);
    return false;
  }
  void Warn(NodeRow&, const std::string& rule, const std::string& pointer,
            const std::string& object, const std::string& message, const std::string& fix) {
    findings_.Add(Severity::kWarning, rule, pointer, object, message, fix);
  }

  const Profile& p_;
  const BundlePlan& plan_;
  const ClusterExport& cluster_;
  Findings findings_;
  std::unordered_map<std::string, const SriovStateFacts*> states_;
  std::map<std::string, int> advertised_;  ///< resource -> picked nodes advertising some
  std::map<std::string, int> with_vfs_;    ///< PF name -> picked nodes where it has VFs
};

}  // namespace

std::string Named(const std::string& kind, const std::string& name, const SourceLocation& at) {
  std::string text = kind + "/" + name;
  if (at.known()) {
    text += " (" + at.file + ":" + std::to_string(at.line) + ")";
  }
  return text;
}

void Findings::Add(Severity severity, const std::string& rule, const std::string& pointer,
                   const std::string& object, const std::string& message, const std::string& fix,
                   const std::string& detail) {
  auto key = std::make_tuple(rule, pointer, message);
  auto [it, added] = index_.emplace(key, entries_.size());
  if (added) entries_.push_back({severity, rule, pointer, message, fix, detail, {}});
  entries_[it->second].objects.push_back(object);
}

void Findings::NotExported(const std::string& kind, const std::string& what) {
  std::vector<std::string>& checks = skipped_[kind];
  if (std::find(checks.begin(), checks.end(), what) == checks.end()) checks.push_back(what);
}

void Findings::Flush() {
  constexpr size_t kNamed = 3;  // objects named in one message; the rest are counted
  if (!skipped_.empty()) {
    std::string kinds, checks;
    for (const auto& [kind, whats] : skipped_) {
      kinds += (kinds.empty() ? "" : ", ") + kind;
      for (const std::string& what : whats) checks += (checks.empty() ? "" : "; ") + what;
    }
    entries_.push_back({Severity::kNote, "cluster.not-exported", "/cluster/name",
                        "the export holds no " + kinds + ", so these checks were skipped: " + checks,
                        std::string("export every kind the check reads: ") +
                            discover::kExportCommand +
                            (skipped_.count("Secret")
                                 ? std::string("; the Helm releases, as a second --cluster file "
                                               "(a SecretList, which says so when there is "
                                               "none): ") +
                                       discover::kHelmReleaseExportCommand
                                 : std::string()),
                        "", {"cluster export"}});
    skipped_.clear();
  }
  for (Entry& e : entries_) {
    std::string who;
    for (size_t i = 0; i < e.objects.size() && i < kNamed; ++i)
      who += (i == 0 ? "" : ", ") + e.objects[i];
    if (e.objects.size() > kNamed)
      who += " and " + std::to_string(e.objects.size() - kNamed) + " more";
    std::string message = who + ": " + e.message;
    if (!e.detail.empty()) message += " (" + e.detail + ")";
    sink_.Report(Diagnostic{e.severity, merged_.locations.Find(e.pointer), e.pointer, e.rule,
                            message, e.fix});
  }
  entries_.clear();
  index_.clear();
}

std::unique_ptr<ClusterExport> LoadClusterExport(std::vector<discover::ExportInput> inputs,
                                                 DiagnosticSink& sink, SourceTexts* sources) {
  auto cluster = std::make_unique<ClusterExport>();
  cluster->label = inputs.empty() ? "<stdin>" : inputs.front().path;
  cluster->set = discover::LoadExports(std::move(inputs), sink);
  if (!cluster->set.files.empty()) cluster->facts = discover::ExtractFacts(cluster->set, sink);
  if (sources != nullptr) {
    discover::FillCitedSourceLines(cluster->set, sink);
    for (const LoadedProfile& file : cluster->set.files)
      (*sources)[file.path] = file.source_lines;
  }
  if (cluster->set.files.empty()) return nullptr;
  cluster->kinds = cluster->set.listed_kinds;
  for (const discover::ExportObject& object : cluster->set.objects) {
    cluster->kinds.insert(object.kind);
    cluster->by_id.emplace(object.id(), &object);
  }
  return cluster;
}

ProfileReport CheckProfile(const Profile& profile, const BundlePlan& plan,
                           const LoadedProfile& merged, const ClusterExport& cluster,
                           DiagnosticSink& sink) {
  return ProfileChecker(profile, plan, merged, cluster, sink).Run();
}

void CheckUnpickedNodes(const std::vector<ProfileReport>& reports, const Profile& first,
                        const LoadedProfile& first_merged, const ClusterExport& cluster,
                        DiagnosticSink& sink) {
  Findings findings(first_merged, sink);
  for (const NodeFacts& node : cluster.facts.nodes) {
    if (node.gpus == 0) continue;
    bool picked = false, excluded = false;
    for (const ProfileReport& report : reports) {
      picked |= report.picked.count(node.name) > 0;
      excluded |= report.excluded.count(node.name) > 0;
    }
    if (picked || excluded) continue;  // a node named in exclude_nodes is left out on purpose
    auto product = node.labels.find("nvidia.com/gpu.product");
    findings.Add(Severity::kWarning, "cluster.node-unpicked",
                 first.node_shape.pointer + "/node_selector", Named("Node", node.name, node.location),
                 "has GPUs" +
                     (product == node.labels.end() ? std::string() : " (" + product->second + ")") +
                     " but no profile's selector picks it",
                 "if it belongs to this group, label it or widen node_shape.node_selector; if it "
                 "is another group, check that group's profile too (validate A.yaml B.yaml "
                 "--cluster ...)");
  }
  findings.Flush();
}

std::string FormatNodeTable(const ProfileReport& report) {
  std::vector<std::vector<std::string>> rows = {
      {"NODE", "GPUS", "RAILS", "VFS", "RESOURCES", "OTHER TENANTS", "STATUS"}};
  for (const NodeRow& row : report.nodes) {
    std::string rails = std::to_string(row.rails_ok) + "/" + std::to_string(row.rails_total);
    if (!row.rails_missing.empty()) rails += " missing " + Join(row.rails_missing);
    std::string resources;
    for (const auto& [name, count] : row.resources)
      resources += (resources.empty() ? "" : " ") + name + "=" + std::to_string(count);
    const std::vector<std::string> others(row.others.begin(), row.others.end());
    rows.push_back({row.node, std::to_string(row.gpus), rails,
                    row.vfs < 0 ? "-" : std::to_string(row.vfs), resources.empty() ? "-" : resources,
                    JoinOr(others, "-"),
                    !row.picked ? "not picked" : !row.ok ? "error" : row.unhealthy ? "marked failed" : "ok"});
  }
  // Node, rail and resource names are export text: escaped and cut (the one sanitiser).
  for (auto& row : rows)
    for (std::string& cell : row) cell = UntrustedText(cell, 80);
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::ostringstream out;
  out << UntrustedText(report.profile) << ": " << report.picked.size() << " node(s) picked\n";
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      out << row[c];
      if (c + 1 < row.size()) out << std::string(width[c] - row[c].size() + 2, ' ');
    }
    out << '\n';
  }
  return out.str();
}

nlohmann::json NodeTableJson(const ProfileReport& report) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeRow& row : report.nodes) {
    nodes.push_back({{"node", row.node},
                     {"gpus", row.gpus},
                     {"picked", row.picked},
                     {"rails_ok", row.rails_ok},
                     {"rails_total", row.rails_total},
                     {"rails_missing", row.rails_missing},
                     {"vfs", row.vfs < 0 ? nlohmann::json(nullptr) : nlohmann::json(row.vfs)},
                     {"resources", row.resources},
                     {"other_tenants", row.others},
                     {"ok", row.ok},
                     {"marked_failed", row.unhealthy}});
  }
  return {{"profile", report.profile}, {"picked", report.picked.size()}, {"nodes", nodes}};
}

}  // namespace hkim::cluster_check
