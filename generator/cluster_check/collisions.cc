// What a sync would collide with on a cluster that runs operators and other teams' jobs already:
// OLM installs, the operators' singleton CRs, SR-IOV node policies and the RDMA
// netns mode. The nodes' side (MachineConfigs, other tenants, the CPU vendor) is node_changes.cc.
// Every finding is located at the profile line that causes it and names the cluster object.

#include <algorithm>
#include <optional>

#include "cluster_check/findings.h"
#include "discover/json_at.h"
#include "model/operator_versions.h"
#include "plan/preconditions.h"

namespace hkim::cluster_check {
namespace {

using discover::At;
using discover::ExportObject;
using nlohmann::json;

std::string InstallPointer(const PlannedObject& planned) {
  const OperatorFacts* facts = FindOperatorFacts(planned.operator_key);
  return facts ? facts->InstallPointer() : "/operators";
}

std::string Title(const PlannedObject& planned) {
  const OperatorFacts* facts = FindOperatorFacts(planned.operator_key);
  return facts ? facts->title : planned.operator_key;
}

std::string Ctx(const PlannedObject& planned, const char* key) {
  auto it = planned.context.find(key);
  return it != planned.context.end() && it->is_string() ? it->get<std::string>() : "";
}

/// Whether the export holds `kind`; if not, the check `what` is noted as skipped.
bool Exported(const ClusterExport& cluster, const std::string& kind, const std::string& what,
              Findings& findings) {
  if (cluster.kinds.count(kind)) return true;
  findings.NotExported(kind, what);
  return false;
}

}  // namespace

bool OwnObjectSynced(const ClusterExport& cluster, const std::set<std::string>& apps,
                     const PlannedObject& planned) {
  auto it = cluster.by_id.find(planned.id());
  return it != cluster.by_id.end() && apps.count(TrackedBy(*it->second->json)) > 0;
}

namespace {

std::string Ours(const PlannedObject& planned) {
  return planned.kind + " " + (planned.namespace_name.empty() ? "" : planned.namespace_name + "/") +
         planned.name;
}

class OlmChecks {
 public:
  OlmChecks(const Profile& p, const ClusterExport& cluster, const std::set<std::string>& apps,
            Findings& findings)
      : p_(p), cluster_(cluster), apps_(apps), findings_(findings) {}

  void OperatorGroup(const PlannedObject& planned) {
    if (!Exported(cluster_, "OperatorGroup", "a second OperatorGroup in an operator's namespace",
                  findings_))
      return;
    for (const ExportObject* og : OfKind(cluster_, "OperatorGroup")) {
      if (og->namespace_name != planned.namespace_name || og->name == planned.name) continue;
      findings_.Add(Severity::kError, "cluster.operatorgroup", InstallPointer(planned),
                    Where(cluster_, *og),
                    "is the OperatorGroup of namespace " + og->namespace_name +
                        " already: the bundle's " + Ours(planned) +
                        " would be a second one, and OLM then fails every CSV of the namespace "
                        "(TooManyOperatorGroups), " + Title(planned) + " included",
                    "the operator is installed already: set operators." + planned.operator_key +
                        ".install: preinstalled (the bundle then renders no OLM objects for it)");
    }
  }

  void Subscription(const PlannedObject& planned) {
    if (!Exported(cluster_, "Subscription", "Subscriptions of the same package", findings_)) return;
    const std::string package = Ctx(planned, "package");
    const std::string channel = Ctx(planned, "channel"), source = Ctx(planned, "source");
    for (const ExportObject* sub : OfKind(cluster_, "Subscription")) {
      if (Str(At(*sub->json, {"spec", "name"})) != package || apps_.count(TrackedBy(*sub->json)))
        continue;
      const std::string theirs_channel = Str(At(*sub->json, {"spec", "channel"}));
      const std::string theirs_source = Str(At(*sub->json, {"spec", "source"}));
      const std::string runs = "channel " + (theirs_channel.empty() ? std::string("(the package's default)") : theirs_channel) +
                               ", source " + theirs_source;
      const std::string fix = "keep the operator as it runs: set operators." + planned.operator_key +
                              ".install: preinstalled";
      if (sub->namespace_name != planned.namespace_name || sub->name != planned.name) {
        findings_.Add(Severity::kError, "cluster.subscription", InstallPointer(planned),
                      Where(cluster_, *sub),
                      "subscribes package " + package + " already (" + runs + "): the bundle's " +
                          Ours(planned) + " would be a second Subscription of it",
                      fix);
      } else if (theirs_channel != channel || theirs_source != source) {
        findings_.Add(Severity::kError, "cluster.subscription", InstallPointer(planned),
                      Where(cluster_, *sub),
                      "runs " + runs + "; the bundle's says channel " + channel + ", source " +
                          source + ": the sync switches it and OLM upgrades the running operator live",
                      fix + ", or pin the channel the cluster runs");
      }
    }
    // After the bundle's own sync its Subscription runs the CSV: nothing was installed outside
    // it (a version OLM moved since is versions.cc's).
    if (!OwnObjectSynced(cluster_, apps_, planned)) InstalledCsv(planned, package);
  }

 private:
  // A managed operator whose CSV runs already: installed outside this bundle.
  void InstalledCsv(const PlannedObject& planned, const std::string& package) {
    if (!Exported(cluster_, "ClusterServiceVersion", "operators installed already", findings_)) return;
    for (const ExportObject* csv : OfKind(cluster_, "ClusterServiceVersion")) {
      if (csv->name.rfind(package + ".", 0) != 0) continue;
      const std::string version = csv->name.substr(package.size() + 1);
      const std::string key = planned.operator_key;
      findings_.Add(Severity::kError, "cluster.operator-installed", InstallPointer(planned),
                    Where(cluster_, *csv),
                    "runs " + Title(planned) + " " + version +
                        " already, installed outside this bundle: a second install fights it",
                    "set operators." + key + ".install: preinstalled (it runs " + version + ")");
      Downgrade(planned, *csv, version);
      return;  // one CSV names the install (OLM lists it in every watched namespace)
    }
  }

  void Downgrade(const PlannedObject& planned, const ExportObject& csv, const std::string& runs) {
    // Any operator whose profile pins a release (its `version`); OLM's channel decides the rest.
    const OperatorCommon* op =
        p_.operators ? OperatorByKey(*p_.operators, planned.operator_key) : nullptr;
    if (op == nullptr || op->version.empty()) return;
    const std::string& wanted = op->version;
    if (!IsOlderVersion(wanted, runs)) return;
    findings_.Add(Severity::kError, "cluster.operator-downgrade", op->pointer + "/version",
                  Where(cluster_, csv),
                  "runs " + Title(planned) + " " + runs + ", newer than the profile's " + wanted +
                      ": OLM cannot downgrade an operator",
                  "set operators." + planned.operator_key + ".version: " + runs +
                      " (or install: preinstalled to leave it as it runs)");
  }

  const Profile& p_;
  const ClusterExport& cluster_;
  const std::set<std::string>& apps_;
  Findings& findings_;
};

// A second CR of a kind its operator keeps one of (ClusterPolicy, NicClusterPolicy, ...).
void CheckSingleton(const ClusterExport& cluster, const std::set<std::string>& apps,
                    const PlannedObject& planned, Findings& findings) {
  const OperatorFacts* facts = OperatorOfSingletonKind(planned.kind);
  if (facts == nullptr) return;
  const SingletonCr* cr = nullptr;
  for (const SingletonCr& candidate : facts->singletons)
    if (candidate.kind == planned.kind) cr = &candidate;
  if (!Exported(cluster, planned.kind, "a second " + planned.kind, findings)) return;
  for (const ExportObject* existing : OfKind(cluster, planned.kind)) {
    const std::string owner = TrackedBy(*existing->json);
    if (apps.count(owner)) continue;
    const bool same = existing->name == planned.name && existing->namespace_name == planned.namespace_name;
    const std::string fix =
        "leave the operator's " + planned.kind + " to the cluster: set operators." + facts->key +
        ".install: preinstalled, and check that " + existing->name +
        " says what the bundle needs (the bundle's README lists it as a precondition)";
    if (same) {
      findings.Add(Severity::kError, "cluster.takeover", facts->InstallPointer(),
                   Where(cluster, *existing),
                   "exists, made outside this bundle" +
                       (owner.empty() ? std::string() : " (labelled by Application " + owner + ")") +
                       ": the sync would replace its spec with the bundle's " + Ours(planned),
                   fix);
      continue;
    }
    findings.Add(Severity::kError, "cluster.singleton", facts->InstallPointer(),
                 Where(cluster, *existing),
                 "is the cluster's " + planned.kind + " already, and " + cr->why +
                     ": the bundle's " + Ours(planned) + " would " +
                     (cr->name.empty() ? "be ignored (nor would its settings apply)"
                                       : "be one the operator " +
                                             std::string(cr->name == planned.name
                                                             ? "reads while the existing one is not"
                                                             : "never reads")),
                 fix);
  }
}

// --- SR-IOV node policies -----------------------------------------------------------------

struct VfRange {
  int first = 0, last = 0;
};

/// "eno5np0#0-3" -> PF eno5np0, VFs 0..3; "eno5np0" -> every VF (0..num_vfs-1).
std::pair<std::string, VfRange> PfOf(const std::string& entry, int num_vfs) {
  const auto hash = entry.find('#');
  VfRange range{0, std::max(0, num_vfs - 1)};
  if (hash == std::string::npos) return {entry, range};
  const std::string spec = entry.substr(hash + 1);
  const auto dash = spec.find('-');
  auto number = [](const std::string& text) {
    return !text.empty() && text.size() < 6 && text.find_first_not_of("0123456789") == std::string::npos
               ? std::stoi(text) : 0;
  };
  range.first = number(spec.substr(0, dash));
  range.last = dash == std::string::npos ? range.first : number(spec.substr(dash + 1));
  return {entry.substr(0, hash), range};
}

bool Selects(const json& selector, const discover::NodeFacts& node) {
  if (!selector.is_object()) return false;
  for (const auto& [key, value] : selector.items()) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || !value.is_string() || it->second != value.get<std::string>())
      return false;
  }
  return true;
}

json PlannedSelector(const PlannedObject& planned) {
  json selector = json::object();
  for (const json& kv : planned.context.value("node_selector", json::array()))
    selector[kv.value("key", "")] = kv.value("value", "");
  return selector;
}

const Rail* RailNamed(const Profile& p, const std::string& name) {
  for (const Rail& rail : p.network.rails)
    if (rail.name == name) return &rail;
  return nullptr;
}

void CheckNodePolicy(const Profile& p, const ClusterExport& cluster, const std::set<std::string>& apps,
                     const PlannedObject& planned, Findings& findings) {
  if (!Exported(cluster, "SriovNetworkNodePolicy", "node policies over the same PFs", findings)) return;
  const Rail* rail = RailNamed(p, Ctx(planned, "rail"));
  const std::string pointer = rail ? rail->pointer + "/interface" : planned.source_pointer;
  const std::string pf = Ctx(planned, "pf_name"), resource = Ctx(planned, "resource_name");
  const int num_vfs = planned.context.value("num_vfs", 1);
  const json mine = PlannedSelector(planned);
  for (const ExportObject* policy : OfKind(cluster, "SriovNetworkNodePolicy")) {
    if (apps.count(TrackedBy(*policy->json)) || policy->name == planned.name) continue;
    const json& spec = At(*policy->json, {"spec"});
    const json& theirs_selector = At(spec, {"nodeSelector"});
    const int their_vfs = At(spec, {"numVfs"}).is_number_integer() ? At(spec, {"numVfs"}).get<int>() : 1;
    std::vector<std::string> shared_nodes;
    for (const discover::NodeFacts& node : cluster.facts.nodes)
      if (Selects(mine, node) && Selects(theirs_selector, node)) shared_nodes.push_back(node.name);
    const std::string their_resource = Str(At(spec, {"resourceName"}));
    const std::string use_theirs =
        "use the cluster's policies: set operators.sriov_network_operator.node_policies: false "
        "(the bundle renders none) and the rail's resource_name to the one they advertise, "
        "openshift.io/" + their_resource;
    bool overlaps = false;
    for (const json& entry : At(spec, {"nicSelector", "pfNames"}).is_array()
                                 ? At(spec, {"nicSelector", "pfNames"}) : json::array()) {
      if (!entry.is_string()) continue;
      const auto [their_pf, range] = PfOf(entry.get<std::string>(), their_vfs);
      if (their_pf != pf || shared_nodes.empty()) continue;
      if (range.first > num_vfs - 1 || range.last < 0) continue;
      overlaps = true;
      std::string nodes;
      for (size_t i = 0; i < shared_nodes.size() && i < 3; ++i) nodes += (i ? ", " : "") + shared_nodes[i];
      if (shared_nodes.size() > 3) nodes += " and " + std::to_string(shared_nodes.size() - 3) + " more";
      findings.Add(Severity::kError, "cluster.node-policy-overlap", pointer, Where(cluster, *policy),
                   "selects PF " + pf + " (VFs " + std::to_string(range.first) + "-" +
                       std::to_string(range.last) + ") on the nodes the bundle's " + Ours(planned) +
                       " selects (" + nodes + ", VFs 0-" + std::to_string(num_vfs - 1) +
                       "): the SR-IOV operator's webhook rejects the second policy and the sync fails",
                   use_theirs);
    }
    if (!overlaps && !their_resource.empty() && their_resource == resource) {
      findings.Add(Severity::kError, "cluster.resource-taken", rail ? rail->pointer + "/resource_name" : pointer,
                   Where(cluster, *policy),
                   "advertises resource openshift.io/" + their_resource +
                       " already: the bundle's " + Ours(planned) +
                       " would add other VFs under the same name, and pods of both get either",
                   use_theirs);
    }
  }
}

// --- RDMA netns mode ----------------------------------------------------------------------

/// The CNI plugin types a NAD's spec.config chains ("" entries skipped); empty when unreadable.
std::vector<std::string> ChainedTypes(const ExportObject& nad) {
  const json& config = At(*nad.json, {"spec", "config"});
  if (!config.is_string()) return {};
  const json parsed = json::parse(config.get<std::string>(), nullptr, false);
  std::vector<std::string> types;
  if (!parsed.is_object()) return types;
  if (parsed.contains("type") && parsed["type"].is_string()) types.push_back(parsed["type"]);
  if (parsed.contains("plugins") && parsed["plugins"].is_array())
    for (const json& plugin : parsed["plugins"])
      if (plugin.is_object() && plugin.contains("type") && plugin["type"].is_string())
        types.push_back(plugin["type"]);
  return types;
}

void CheckRdmaMode(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                   const std::set<std::string>& apps, Findings& findings) {
  if (!p.IsOpenShift() || !p.UsesRails()) return;
  const std::string pointer = p.network.pointer + "/rdma_netns";
  const PlannedObject* switcher = nullptr;
  for (const PlannedObject& o : plan.objects)
    if (o.kind == "SriovNetworkPoolConfig") switcher = &o;
  if (switcher && Exported(cluster, "NetworkAttachmentDefinition",
                           "NADs that lose RDMA in exclusive mode", findings)) {
    std::vector<const ExportObject*> victims;
    std::set<std::string> namespaces;
    for (const ExportObject* nad : OfKind(cluster, "NetworkAttachmentDefinition")) {
      const auto& mine = p.namespaces;
      if (std::find(mine.begin(), mine.end(), nad->namespace_name) != mine.end()) continue;
      const std::vector<std::string> types = ChainedTypes(*nad);
      const bool sriov = std::count(types.begin(), types.end(), "sriov") > 0;
      if (!sriov || std::count(types.begin(), types.end(), "rdma") > 0) continue;
      victims.push_back(nad);
      namespaces.insert(nad->namespace_name);
    }
    if (!victims.empty()) {
      std::string names;
      for (size_t i = 0; i < victims.size() && i < 4; ++i)
        names += (i ? ", " : "") + victims[i]->namespace_name + "/" + victims[i]->name;
      if (victims.size() > 4) names += " and " + std::to_string(victims.size() - 4) + " more";
      std::string spaces;
      for (const std::string& ns : namespaces) spaces += (spaces.empty() ? "" : ", ") + ns;
      findings.Add(Severity::kError, "cluster.rdma-mode",
                   p.network.rdma_netns_set ? pointer : switcher->source_pointer,
                   "cluster " + cluster.label,
                   "the bundle's " + Ours(*switcher) +
                       " switches the GPU nodes to exclusive RDMA mode (each node drains and "
                       "reboots), which cuts RDMA from every pod whose NAD chains no rdma CNI: " +
                       names + " (namespaces " + spaces +
                       "): their pods keep the VF netdev but lose the HCA and fall back to TCP",
                   "set network.rdma_netns: shared (the NADs then chain the sriov CNI alone, as "
                   "the cluster's do), or have those NADs' owners add the rdma CNI first");
    }
  }
  // An export without SriovNetworkPoolConfigs shows the kernel's shared default (or left them
  // out): only a profile that claims exclusive mode needs to see one.
  if (!cluster.kinds.count("SriovNetworkPoolConfig")) {
    if (p.network.rdma_netns == RdmaNetns::kAlreadyExclusive)
      findings.NotExported("SriovNetworkPoolConfig", "whether the nodes run exclusive RDMA mode");
    return;
  }
  const ExportObject* exclusive = nullptr;
  for (const ExportObject* pool : OfKind(cluster, "SriovNetworkPoolConfig"))
    if (!apps.count(TrackedBy(*pool->json)) && Str(At(*pool->json, {"spec", "rdmaMode"})) == "exclusive")
      exclusive = pool;
  if (exclusive && p.network.rdma_netns == RdmaNetns::kShared) {
    findings.Add(Severity::kError, "cluster.rdma-mode", pointer, Where(cluster, *exclusive),
                 "puts the nodes in exclusive RDMA mode, but network.rdma_netns is shared: the "
                 "bundle's NADs chain no rdma CNI, so its pods get no RDMA device",
                 "set network.rdma_netns: already-exclusive");
  } else if (!exclusive && p.network.rdma_netns == RdmaNetns::kAlreadyExclusive) {
    findings.Add(Severity::kError, "cluster.rdma-mode", pointer, "cluster " + cluster.label,
                 "no SriovNetworkPoolConfig sets exclusive RDMA mode, so the nodes run the "
                 "kernel's shared default; the rdma CNI the bundle's NADs chain refuses to run there",
                 "set network.rdma_netns: shared (as the cluster runs), or exclusive to let the "
                 "bundle switch the nodes (a reboot each)");
  }
}

}  // namespace

void CheckCollisions(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                     const std::vector<const discover::NodeFacts*>& picked,
                     const OtherTenants& tenants, Findings& findings) {
  const std::set<std::string> apps = BundleApplications(plan);
  OlmChecks olm(p, cluster, apps, findings);
  for (const PlannedObject& planned : plan.objects) {
    if (planned.kind == "OperatorGroup") olm.OperatorGroup(planned);
    if (planned.kind == "Subscription") olm.Subscription(planned);
    if (planned.kind == "SriovNetworkNodePolicy") CheckNodePolicy(p, cluster, apps, planned, findings);
    CheckSingleton(cluster, apps, planned, findings);
  }
  CheckRdmaMode(p, plan, cluster, apps, findings);
  CheckNodeChanges(p, plan, cluster, picked, tenants, findings);
}

}  // namespace hkim::cluster_check
