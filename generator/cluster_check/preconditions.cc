// What the bundle assumes of the cluster (the pool and node-role labels, operators it does not
// install, the OpenShift release) and what it would collide with (objects of the same name not
// synced by this bundle's Argo CD Applications, address ranges in use).

#include <arpa/inet.h>

#include <optional>
#include <set>

#include "cluster_check/findings.h"
#include "cluster_check/versions.h"
#include "discover/json_at.h"
#include "plan/plan.h"

namespace hkim::cluster_check {
namespace {

using nlohmann::json;

using discover::At;

std::string Str(const json& value) { return value.is_string() ? value.get<std::string>() : ""; }

std::string Where(const ClusterExport& cluster, const discover::ExportObject& object) {
  return Named(object.kind,
               (object.namespace_name.empty() ? "" : object.namespace_name + "/") + object.name,
               cluster.set.Locate(object, ""));
}

// A note, once per profile, that the export cannot show something (the type was not exported).
void NotExported(const ClusterExport& cluster, const std::string& kind, const std::string& what,
                 const std::string& pointer, Findings& findings) {
  findings.Add(Severity::kNote, "cluster.not-exported", pointer, "cluster " + cluster.label,
               "the export holds no " + kind + ": " + what + " is not checked",
               "export it too: " + std::string(discover::kExportCommand));
}

std::vector<const discover::ExportObject*> OfKind(const ClusterExport& cluster,
                                                   const std::string& kind) {
  std::vector<const discover::ExportObject*> found;
  for (const discover::ExportObject& object : cluster.set.objects) {
    if (object.kind == kind) found.push_back(&object);
  }
  return found;
}

void CheckMachineConfigPool(const Profile& p, const ClusterExport& cluster,
                            const std::vector<const discover::NodeFacts*>& picked,
                            Findings& findings) {
  const std::string& role = p.iommu.machine_config_role;
  if (!p.IsOpenShift() || role == "worker" || role == "master") return;
  const std::string label = "node-role.kubernetes.io/" + role;
  for (const discover::NodeFacts* node : picked) {
    if (node->labels.count(label)) continue;
    findings.Add(Severity::kError, "cluster.node-role", p.iommu.pointer + "/machine_config_role",
                 Named("Node", node->name, node->location),
                 "lacks the label " + label + ": the MachineConfigs and SR-IOV policies of pool " +
                     role + " never reach it",
                 "oc label node " + node->name + " " + label + "=");
  }
  if (p.iommu.create_pool) return;  // the bundle renders the pool itself
  if (!cluster.kinds.count("MachineConfigPool")) {
    NotExported(cluster, "MachineConfigPool", "the existing pool " + role,
                p.iommu.pointer + "/machine_config_pool", findings);
    return;
  }
  if (!cluster.by_key.count("MachineConfigPool//" + role)) {
    findings.Add(Severity::kError, "cluster.pool-missing", p.iommu.pointer + "/machine_config_pool",
                 "cluster " + cluster.label,
                 "machine_config_pool is existing but the cluster has no MachineConfigPool " +
                     role,
                 "create the pool first, or set iommu.machine_config_pool: create");
  }
}

// An operator the bundle does not install must be there: its CSV (OLM) or Helm release (a
// Secret of type helm.sh/release.v1 labelled name=<release>), or its cluster-wide CR.
void CheckOperator(const ClusterExport& cluster, const OperatorCommon* op, const std::string& name,
                   const std::string& cr_kind, bool openshift, Findings& findings) {
  if (op == nullptr || op->managed()) return;
  bool seen = false, checkable = false;
  if (openshift) {
    checkable = cluster.kinds.count("ClusterServiceVersion") > 0;
    for (const discover::ExportObject* csv : OfKind(cluster, "ClusterServiceVersion")) {
      seen |= csv->name.rfind(op->package + ".", 0) == 0;
    }
  } else {
    checkable = cluster.kinds.count("Secret") > 0 || cluster.kinds.count(cr_kind) > 0;
    for (const discover::ExportObject* secret : OfKind(cluster, "Secret")) {
      seen |= Str(At(*secret->json, {"type"})) == "helm.sh/release.v1" &&
              Str(At(*secret->json, {"metadata", "labels", "name"})).find(op->chart) !=
                  std::string::npos;
    }
  }
  seen |= !cr_kind.empty() && cluster.kinds.count(cr_kind) > 0;
  checkable |= !cr_kind.empty() && cluster.kinds.count(cr_kind) > 0;
  if (seen) return;
  const std::string what = name + " (" + (openshift ? "CSV " + op->package + ".*" : "Helm release " + op->chart) + ")";
  if (!checkable) {
    NotExported(cluster, openshift ? "ClusterServiceVersion" : "Helm release Secret or " + cr_kind,
                "whether " + what + " is installed", op->pointer + "/install", findings);
    return;
  }
  findings.Add(Severity::kError, "cluster.operator-missing", op->pointer + "/install",
               "cluster " + cluster.label,
               std::string("the bundle leaves ") + name + " to the cluster (install: " +
                   ToString(op->install) + ") but the export shows no " + what +
                   (cr_kind.empty() ? "" : " and no " + cr_kind),
               "install it first, or set install: managed so that the bundle does");
}

void CheckOpenShiftVersion(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  if (!p.IsOpenShift() || !p.operators || p.operators->openshift_version.empty()) return;
  const std::string pointer = p.operators->pointer + "/openshift_version";
  auto it = cluster.by_key.find("ClusterVersion//version");
  if (it == cluster.by_key.end()) {
    NotExported(cluster, "ClusterVersion", "the OpenShift release", pointer, findings);
    return;
  }
  std::string version = Str(At(*it->second->json, {"status", "desired", "version"}));
  if (version.empty()) return;
  const auto second_dot = version.find('.', version.find('.') + 1);
  const std::string minor = version.substr(0, second_dot);
  if (minor == p.operators->openshift_version) return;
  findings.Add(Severity::kError, "cluster.openshift-version", pointer, Where(cluster, *it->second),
               "the cluster runs OpenShift " + version + ", not " +
                   p.operators->openshift_version +
                   ": the NFD operand image and operator channels are for another release",
               "set operators.openshift_version: \"" + minor + "\"");
}

}  // namespace

void CheckPreconditions(const Profile& p, const ClusterExport& cluster,
                        const std::vector<const discover::NodeFacts*>& picked, Findings& findings) {
  CheckMachineConfigPool(p, cluster, picked, findings);
  CheckOpenShiftVersion(p, cluster, findings);
  CheckVersions(p, cluster, findings);  // versions.h: releases against the profile and catalog
  if (!p.operators) return;
  const Operators& ops = *p.operators;
  const bool oc = p.IsOpenShift();
  auto ptr = [](const auto& op) -> const OperatorCommon* { return op ? &*op : nullptr; };
  if (oc) {
    CheckOperator(cluster, ptr(ops.sriov_network_operator), "the SR-IOV Network Operator",
                  "SriovOperatorConfig", true, findings);
    CheckOperator(cluster, ptr(ops.nfd), "Node Feature Discovery", "NodeFeatureDiscovery", true,
                  findings);
    CheckOperator(cluster, ptr(ops.gpu_operator), "the GPU Operator", "ClusterPolicy", true,
                  findings);
  } else {
    CheckOperator(cluster, ptr(ops.gpu_operator), "the GPU Operator", "ClusterPolicy", false,
                  findings);
    CheckOperator(cluster, ptr(ops.network_operator), "the Network Operator", "NicClusterPolicy",
                  false, findings);
  }
}

namespace {

// The Argo CD Application that syncs an object, from its tracking label or annotation ("" for
// none): app.kubernetes.io/instance (label tracking, Argo CD's default) or
// argocd.argoproj.io/tracking-id "<app>:<group>/<kind>:<namespace>/<name>" (annotation tracking).
std::string TrackedBy(const json& object) {
  std::string id = Str(At(object, {"metadata", "annotations", "argocd.argoproj.io/tracking-id"}));
  if (!id.empty()) return id.substr(0, id.find(':'));
  return Str(At(object, {"metadata", "labels", "app.kubernetes.io/instance"}));
}

std::optional<std::pair<uint32_t, uint32_t>> Cidr(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  in_addr address{};
  if (inet_pton(AF_INET, text.substr(0, slash).c_str(), &address) != 1) return std::nullopt;
  const std::string bits_text = text.substr(slash + 1);
  if (bits_text.empty() || bits_text.size() > 2 ||
      bits_text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const int bits = std::stoi(bits_text);
  if (bits > 32) return std::nullopt;
  const uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
  const uint32_t first = ntohl(address.s_addr) & mask;
  return std::make_pair(first, first | ~mask);
}

// Where the profile asks for an object of this kind and name (for the diagnostic's line).
std::string PointerOf(const Profile& p, const PlannedObject& object) {
  for (const Rail& rail : p.network.rails) {
    if (object.kind == "NetworkAttachmentDefinition" && object.name == rail.nad_name)
      return rail.pointer + "/nad_name";
    if (object.kind == "IPPool" && rail.ipam.pool && rail.ipam.pool->name == object.name)
      return rail.ipam.pool->pointer + "/name";
  }
  if (object.kind == "SecurityContextConstraints") return p.security.pointer;
  if (object.kind == "NicClusterPolicy" && p.operators && p.operators->network_operator)
    return p.operators->network_operator->pointer;
  if (object.kind == "ClusterPolicy" && p.operators && p.operators->gpu_operator)
    return p.operators->gpu_operator->pointer;
  return "/cluster/name";
}

// An unmanaged object that says what the bundle would say (the NAD of a draft's rail, with its
// resource; the pool with its subnet) is adopted by the first sync, not overwritten.
bool SameContent(const Profile& p, const PlannedObject& planned, const discover::ExportObject& e) {
  for (const Rail& rail : p.network.rails) {
    if (planned.kind == "NetworkAttachmentDefinition" && planned.name == rail.nad_name) {
      return Str(At(*e.json, {"metadata", "annotations", "k8s.v1.cni.cncf.io/resourceName"})) ==
             rail.resource_name;
    }
    if (planned.kind == "IPPool" && rail.ipam.pool && rail.ipam.pool->name == planned.name) {
      return Str(At(*e.json, {"spec", "subnet"})) == rail.ipam.pool->subnet;
    }
  }
  return false;
}

void CheckOverlaps(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  for (const Rail& rail : p.network.rails) {
    const bool nv = rail.ipam.type == IpamType::kNvIpam && rail.ipam.pool;
    const std::string mine = nv ? rail.ipam.pool->subnet : rail.ipam.range;
    const auto range = Cidr(mine);
    if (!range) continue;
    auto overlaps = [&](const std::string& theirs) {
      auto other = Cidr(theirs);
      return other && other->first <= range->second && range->first <= other->second;
    };
    const std::string pointer = rail.ipam.pointer;
    for (const discover::PoolFacts& pool : cluster.facts.pools) {
      if (nv && pool.name == rail.ipam.pool->name) continue;  // the rail's own pool
      if (!overlaps(pool.subnet)) continue;
      findings.Add(Severity::kError, "cluster.ip-overlap", pointer,
                   Named("IPPool", pool.namespace_name + "/" + pool.name, pool.location),
                   "holds " + pool.subnet + ", which overlaps rail " + rail.name + "'s " + mine,
                   "give the rail a subnet no existing pool or NAD uses");
    }
    for (const discover::NadFacts& nad : cluster.facts.nads) {
      if (nad.name == rail.nad_name) continue;  // the rail's own NAD, adopted or synced
      if (nad.ipam_type != "whereabouts" || !overlaps(nad.range)) continue;
      findings.Add(Severity::kError, "cluster.ip-overlap", pointer,
                   Named("NetworkAttachmentDefinition", nad.namespace_name + "/" + nad.name,
                         nad.location),
                   "allocates from " + nad.range + ", which overlaps rail " + rail.name + "'s " +
                       mine,
                   "give the rail a range no existing pool or NAD uses");
    }
  }
}

}  // namespace

void CheckTakeover(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  const BundlePlan plan = PlanBundle(p);
  std::set<std::string> apps = {plan.application.name};
  for (const PlannedObject& file : plan.layer_files)
    if (file.kind == "Application") apps.insert(file.name);
  for (const PlannedObject& object : plan.objects)
    if (object.kind == "Application") apps.insert(object.name);
  // Kinds the cluster has one of, whatever its name: the operator reads only its own.
  static const std::set<std::string> kSingletons = {"NicClusterPolicy", "ClusterPolicy"};
  for (const PlannedObject& planned : plan.objects) {
    if (planned.kind == "Namespace" || planned.kind == "Application") continue;
    std::vector<const discover::ExportObject*> existing;
    if (kSingletons.count(planned.kind)) {
      existing = OfKind(cluster, planned.kind);
    } else if (auto it = cluster.by_key.find(planned.kind + "/" + planned.namespace_name + "/" +
                                             planned.name);
               it != cluster.by_key.end()) {
      existing.push_back(it->second);
    }
    for (const discover::ExportObject* object : existing) {
      const std::string owner = TrackedBy(*object->json);
      if (apps.count(owner)) continue;
      const std::string ours = planned.kind + " " +
                               (planned.namespace_name.empty() ? "" : planned.namespace_name + "/") +
                               planned.name + " (" + planned.file_name + ")";
      if (owner.empty() && SameContent(p, planned, *object)) {
        findings.Add(Severity::kWarning, "cluster.adopt", PointerOf(p, planned),
                     Where(cluster, *object),
                     "exists, synced by no Argo CD Application, and says what the bundle's " + ours +
                         " says: the first sync adopts it",
                     "nothing to do if this cluster's objects are to move under the bundle; "
                     "otherwise rename the bundle's object");
        continue;
      }
      findings.Add(Severity::kError, "cluster.takeover", PointerOf(p, planned),
                   Where(cluster, *object),
                   "exists" +
                       (owner.empty() ? std::string(", created outside Argo CD,")
                                      : ", synced by Argo CD Application " + owner + ",") +
                       " and the bundle's " + ours + " would take it over (this bundle syncs as Application " +
                       plan.application.name + ")",
                   owner.empty() ? "rename the bundle's object, or delete the existing one (or "
                                   "mark it install: shared / preinstalled) before the first sync"
                                 : "let one Application own it: remove it from " + owner +
                                       " or from this profile");
    }
  }
  CheckOverlaps(p, cluster, findings);
}

}  // namespace hkim::cluster_check
