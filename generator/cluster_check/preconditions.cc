// What the bundle assumes of the cluster (the pool and node-role labels, operators it does not
// install, the OpenShift release) and what it would collide with (objects of the same name not
// synced by this bundle's Argo CD Applications, address ranges in use).

#include <optional>
#include <set>

#include "cluster_check/findings.h"
#include "cluster_check/versions.h"
#include "discover/json_at.h"
#include "plan/preconditions.h"
#include "support/ipv4_network.h"

namespace hkim::cluster_check {

using nlohmann::json;

using discover::At;

std::string Str(const json& value) { return value.is_string() ? value.get<std::string>() : ""; }

std::string Where(const ClusterExport& cluster, const discover::ExportObject& object) {
  return Named(object.kind,
               (object.namespace_name.empty() ? "" : object.namespace_name + "/") + object.name,
               cluster.set.Locate(object, ""));
}

std::vector<const discover::ExportObject*> OfKind(const ClusterExport& cluster,
                                                   const std::string& kind) {
  std::vector<const discover::ExportObject*> found;
  for (const discover::ExportObject& object : cluster.set.objects) {
    if (object.kind == kind) found.push_back(&object);
  }
  return found;
}

namespace {

void NotExported(const ClusterExport&, const std::string& kind, const std::string& what,
                 const std::string&, Findings& findings) {
  findings.NotExported(kind, what);
}

void CheckMachineConfigPool(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                            const std::vector<const discover::NodeFacts*>& picked,
                            Findings& findings) {
  const std::string& role = p.iommu.machine_config_role;
  if (!p.IsOpenShift() || role == "worker" || role == "master") return;
  const std::string label = "node-role.kubernetes.io/" + role;
  // Only where the bundle goes through the pool (its preconditions name the pool or the role's
  // label, or it renders the pool): plan/preconditions.h drops them otherwise.
  bool used = false;
  for (const Precondition& pre : plan.preconditions)
    used |= (pre.kind == "machine-config-pool" && pre.what == role) ||
            (pre.kind == "node-label" && pre.what == label);
  for (const PlannedObject& o : plan.objects) used |= o.kind == "MachineConfigPool";
  if (!used) return;
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
  if (!cluster.by_id.count(ObjectId{kMachineConfigGroup, "MachineConfigPool", "", role})) {
    findings.Add(Severity::kError, "cluster.pool-missing", p.iommu.pointer + "/machine_config_pool",
                 "cluster " + cluster.label,
                 "machine_config_pool is existing but the cluster has no MachineConfigPool " +
                     role,
                 "create the pool first, or set iommu.machine_config_pool: create");
  }
}

// An operator the bundle does not install must be there: its CSV (OLM) or Helm release (a
// Secret of type helm.sh/release.v1 labelled name=<release>), or its cluster-wide CR.
void CheckOperator(const ClusterExport& cluster, const OperatorCommon* op, const OperatorFacts& facts,
                   bool openshift, Findings& findings) {
  if (op == nullptr || op->managed()) return;
  const std::string& name = facts.title;
  const std::string cr_kind = facts.singletons.empty() ? "" : facts.singletons.front().kind;
  // Nothing of an export names it (the OKE VF DaemonSet has no package, chart or CR): its
  // precondition's check is the bundle README's.
  if ((openshift ? op->package : op->chart).empty() && cr_kind.empty()) return;
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
               openshift && !facts.managed_on_openshift
                   ? "install it first (the bundle does not install " + name +
                         " on OpenShift), or remove what needs it from the profile"
                   : "install it first, or set install: managed so that the bundle does");
}

void CheckOpenShiftVersion(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                           Findings& findings) {
  if (!p.IsOpenShift() || !p.operators || p.operators->openshift_version.empty()) return;
  const std::string pointer = p.operators->pointer + "/openshift_version";
  auto it = cluster.by_id.find(kClusterVersion);
  if (it == cluster.by_id.end()) {
    NotExported(cluster, "ClusterVersion", "the OpenShift release", pointer, findings);
    return;
  }
  std::string version = Str(At(*it->second->json, {"status", "desired", "version"}));
  if (version.empty()) return;
  const auto second_dot = version.find('.', version.find('.') + 1);
  const std::string minor = version.substr(0, second_dot);
  if (minor == p.operators->openshift_version) return;
  // Only the OLM installs and the NFD operand depend on the release: a bundle that leaves every
  // operator to the cluster renders the same for any.
  bool depends = false;
  for (const PlannedObject& o : plan.objects)
    depends |= o.kind == "Subscription" || o.kind == "NodeFeatureDiscovery";
  findings.Add(depends ? Severity::kError : Severity::kNote, "cluster.openshift-version", pointer,
               Where(cluster, *it->second),
               "the cluster runs OpenShift " + version + ", not " +
                   p.operators->openshift_version +
                   (depends ? ": the NFD operand image and operator channels are for another release"
                            : "; nothing this bundle renders depends on it"),
               "set operators.openshift_version: \"" + minor + "\"");
}

// The bundle's declared and implied node-label and CRD preconditions against the export: the
// labels on every picked node (the pool's role label is CheckMachineConfigPool's), the CRDs among
// the exported CustomResourceDefinitions when the export holds them.
void CheckDeclared(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                   const std::vector<const discover::NodeFacts*>& picked, Findings& findings) {
  const std::string role_label = "node-role.kubernetes.io/" + p.iommu.machine_config_role;
  for (const Precondition& pre : plan.preconditions) {
    if (pre.kind == "node-label" && pre.what != role_label) {
      for (const discover::NodeFacts* node : picked) {
        bool has = false;
        for (const auto& [key, value] : node->labels)
          has |= CapabilityMatches(CapabilityKind::kNodeLabel, pre.what, key);
        if (has) continue;
        findings.Add(Severity::kError, "cluster.precondition", pre.pointer,
                     Named("Node", node->name, node->location),
                     "lacks the label " + pre.what + ", which the bundle takes as given (" +
                         pre.why + ")",
                     "label the node, or fix the precondition: " + pre.check);
      }
    }
    if (pre.kind != "crd") continue;
    if (!cluster.kinds.count("CustomResourceDefinition")) {
      findings.NotExported("CustomResourceDefinition", "the CRDs the preconditions name");
      continue;
    }
    const std::string group = pre.what.substr(0, pre.what.find('/'));
    const std::string kind = pre.what.find('/') == std::string::npos ? "*" : pre.what.substr(pre.what.find('/') + 1);
    bool found = false;
    for (const discover::ExportObject* crd : OfKind(cluster, "CustomResourceDefinition"))
      found |= Str(At(*crd->json, {"spec", "group"})) == group &&
               (kind == "*" || Str(At(*crd->json, {"spec", "names", "kind"})) == kind);
    if (!found)
      findings.Add(Severity::kError, "cluster.precondition", pre.pointer, "cluster " + cluster.label,
                   "has no CRD " + pre.what + ", which the bundle takes as given (" + pre.why + ")",
                   "install what provides it first: " + pre.check);
  }
}

}  // namespace

void CheckPreconditions(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                        const std::vector<const discover::NodeFacts*>& picked, Findings& findings) {
  CheckMachineConfigPool(p, plan, cluster, picked, findings);
  CheckDeclared(p, plan, cluster, picked, findings);
  CheckOpenShiftVersion(p, plan, cluster, findings);
  CheckVersions(p, plan, cluster, findings);  // versions.h: releases against the profile and catalog
  CheckOkePreconditions(plan, cluster, picked, findings);
  CheckRunningPreconditions(plan, cluster, findings);
  if (!p.operators) return;
  for (const OperatorFacts& facts : OperatorCatalog()) {
    if (!(p.IsOpenShift() ? facts.openshift : facts.kubernetes)) continue;
    CheckOperator(cluster, OperatorByKey(*p.operators, facts.key), facts, p.IsOpenShift(),
                  findings);
  }
}

namespace {

// Where the profile asks for an object of this kind and name (for the diagnostic's line).
std::string PointerOf(const Profile& p, const PlannedObject& object) {
  for (const Rail& rail : p.network.rails) {
    if (object.kind == "NetworkAttachmentDefinition" && object.name == rail.nad_name)
      return rail.pointer + "/nad_name";
    if (object.kind == "IPPool" && rail.ipam.pool && rail.ipam.pool->name == object.name)
      return rail.ipam.pool->pointer + "/name";
  }
  if (object.kind == "SecurityContextConstraints") return p.security.pointer;
  // An operator's objects point at its install: that is the line that hands them to the cluster.
  if (const OperatorFacts* facts = FindOperatorFacts(object.operator_key))
    return facts->InstallPointer();
  return object.source_pointer.empty() ? "/cluster/name" : object.source_pointer;
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
    const std::optional<Ipv4Network> range = ParseCidr(mine);
    if (!range) continue;
    auto overlaps = [&](const std::string& theirs) {
      const std::optional<Ipv4Network> other = ParseCidr(theirs);
      return other && other->Overlaps(*range);
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
      // whereabouts keeps one pool per range: a NAD of another namespace on the same range
      // shares the rail's allocations (another tenant of the same PFs), it does not collide.
      if (rail.ipam.type == IpamType::kWhereabouts && nad.range == rail.ipam.range) continue;
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

namespace {

bool HasApplication(const ClusterExport& cluster, const std::string& name) {
  for (const discover::ExportObject* app : OfKind(cluster, "Application"))
    if (app->name == name) return true;
  return false;
}

}  // namespace

std::string TrackedBy(const json& object) {
  std::string id = Str(At(object, {"metadata", "annotations", "argocd.argoproj.io/tracking-id"}));
  if (!id.empty()) return id.substr(0, id.find(':'));
  return Str(At(object, {"metadata", "labels", "app.kubernetes.io/instance"}));
}

std::set<std::string> BundleApplications(const BundlePlan& plan) {
  std::set<std::string> apps = {plan.application.name};
  for (const PlannedObject& file : plan.layer_files)
    if (file.kind == "Application") apps.insert(file.name);
  for (const PlannedObject& object : plan.objects)
    if (object.kind == "Application") apps.insert(object.name);
  return apps;
}

void CheckTakeover(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                   Findings& findings) {
  const std::set<std::string> apps = BundleApplications(plan);
  const bool apps_exported = cluster.kinds.count("Application") > 0;
  for (const PlannedObject& planned : plan.objects) {
    // Namespaces are shared by design; singleton CRs and OLM objects are collisions.cc's.
    if (planned.kind == "Namespace" || planned.kind == "Application" ||
        planned.kind == "OperatorGroup" || planned.kind == "Subscription" ||
        OperatorOfSingletonKind(planned.kind) != nullptr)
      continue;
    auto it = cluster.by_id.find(planned.id());
    if (it == cluster.by_id.end()) continue;
    const discover::ExportObject* object = it->second;
    const std::string owner = TrackedBy(*object->json);
    if (apps.count(owner)) continue;
    const std::string ours = planned.kind + " " +
                             (planned.namespace_name.empty() ? "" : planned.namespace_name + "/") +
                             planned.name + " (" + planned.file_name + ")";
    // An object whose Application is gone (its deployer was removed, its objects left running)
    // has no owner to hand it back to: adopt it or leave it.
    const bool orphan = !owner.empty() && apps_exported && !HasApplication(cluster, owner);
    if ((owner.empty() || orphan) && SameContent(p, planned, *object)) {
      findings.Add(Severity::kWarning, "cluster.adopt", PointerOf(p, planned),
                   Where(cluster, *object),
                   std::string("exists, synced by no ") + (orphan ? "live " : "") +
                       "Argo CD Application, and says what the bundle's " + ours +
                       " says: the first sync adopts it",
                   "nothing to do if this cluster's objects are to move under the bundle; "
                   "otherwise rename the bundle's object");
      continue;
    }
    std::string how = owner.empty() ? ", created outside Argo CD,"
                      : orphan      ? ", labelled by Argo CD Application " + owner +
                                     ", which no longer exists (an orphan),"
                                    : ", synced by Argo CD Application " + owner + ",";
    std::string fix =
        owner.empty() || orphan
            ? "adopt it on purpose (rename the bundle's object to it and make the profile say "
              "what it says) or leave it alone (rename the bundle's object; for an operator's "
              "objects, install: preinstalled)"
            : "let one Application own it: remove it from " + owner + " or from this profile";
    findings.Add(Severity::kError, "cluster.takeover", PointerOf(p, planned),
                 Where(cluster, *object),
                 "exists" + how + " and the bundle's " + ours +
                     " would take it over (this bundle syncs as Application " +
                     plan.application.name + ")",
                 fix);
  }
  CheckOverlaps(p, cluster, findings);
}

}  // namespace hkim::cluster_check
