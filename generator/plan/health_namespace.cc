// Plan stage of the fabric-health family, the health namespace (plan/health.h): the periodic
// check of a workload namespace runs in a namespace of its own, so that its service account,
// which may patch Nodes, is a token only the platform team's sync can put pods under. Everything
// the check's pods use comes with it: the Namespace (Pod Security as the workload's), the
// coordinator's ServiceAccount and the check pods' (no token; on OpenShift the `use` of the
// workload's SCC), and copies of the workload
// namespace's NADs (a Multus network is looked up in the pod's namespace; the copies name the
// same nv-ipam pool or whereabouts range, so they share the rail's addresses) and ConfigMaps
// (the NCCL settings and topology the pods mount). Its objects sync in the bundle's `health`
// layer, after the nodes layer that provides what its pods need (plan/layers.cc).

#include <string>
#include <vector>

#include "plan/health.h"

namespace hkim {
namespace {

using nlohmann::json;

// The kinds of a workload namespace the check's pods use, copied as they are planned there.
bool UsedByTheCheck(const PlannedObject& object) {
  return object.kind == "NetworkAttachmentDefinition" || object.kind == "ConfigMap";
}

void PlanNamespaceObject(const Profile& p, const std::string& ns, const HealthWaves& waves,
                         BundlePlan& plan) {
  const bool rdma = p.workload.mode == WorkloadMode::kRdma;
  if (p.IsOpenShift()) {
    PlannedObject& n = AddPlannedObject(plan, p, "openshift/namespace.yaml.mustache", "v1",
                                        "Namespace", ns, "", waves.namespace_wave, false);
    n.context["managed_by"] = p.gitops.argocd_namespace;
    return;
  }
  // The bundle's own: pruned with it (no team keeps anything here).
  PlannedObject& n = AddPlannedObject(plan, p, "oke/namespace.yaml.mustache", "v1", "Namespace",
                                      ns, "", waves.namespace_wave, false);
  n.context["pod_security_level"] = rdma ? "privileged" : "baseline";
}

// OpenShift: `use` of the SCC the workload's service account uses, as a Role of this namespace.
void PlanSccUse(const Profile& p, const std::string& ns, const HealthWaves& waves,
                BundlePlan& plan) {
  const std::string scc = p.security.memlock_strategy == MemlockStrategy::kPrivileged
                              ? std::string("privileged")
                              : p.security.scc_name;
  // The check pods run the workload's pod spec; the coordinator needs no SCC beyond the
  // default restricted one.
  const std::string sa = HealthCheckServiceAccount(p);
  const std::string role_name = sa + "-use-scc-" + scc;
  PlannedObject& role =
      AddPlannedObject(plan, p, "openshift/role-scc.yaml.mustache", "rbac.authorization.k8s.io/v1",
                       "Role", role_name, ns, waves.access, false);
  role.context["scc"] = scc;
  PlannedObject& binding = AddPlannedObject(
      plan, p, "openshift/rolebinding-scc.yaml.mustache", "rbac.authorization.k8s.io/v1",
      "RoleBinding", role_name, ns, waves.access, false);
  binding.context["role"] = role_name;
  binding.context["service_account"] = sa;
}

// Copies of the NADs and ConfigMaps of `workload_ns` in `ns`: same template, values, wave and
// needs (a NAD's CNI chain is needed wherever it is).
void CopyPodInputs(const Profile& p, const std::string& workload_ns, const std::string& ns,
                   BundlePlan& plan) {
  std::vector<PlannedObject> sources;
  for (const PlannedObject& object : plan.objects)
    if (object.namespace_name == workload_ns && UsedByTheCheck(object)) sources.push_back(object);
  for (PlannedObject& source : sources) {
    const json& meta = source.context["metadata"];
    PlannedObject& copy = AddPlannedObject(plan, p, source.template_name, source.api_version,
                                           source.kind, source.name, ns, source.sync_wave,
                                           meta.value("skip_dry_run", false));
    const json metadata = copy.context["metadata"];
    copy.context = std::move(source.context);
    copy.context["metadata"] = metadata;
    copy.needs = std::move(source.needs);
    copy.source_pointer = std::move(source.source_pointer);
  }
}

}  // namespace

void PlanFabricHealthNamespaceAccess(const Profile& p, const std::string& workload_ns,
                                     const HealthWaves& waves, BundlePlan& plan) {
  const std::string ns = FabricHealthNamespace(workload_ns);
  PlanNamespaceObject(p, ns, waves, plan);
  AddPlannedObject(plan, p, "common/serviceaccount.yaml.mustache", "v1", "ServiceAccount",
                   HealthServiceAccount(p), ns, waves.access, false);
  AddPlannedObject(plan, p, "health/serviceaccount-check.yaml.mustache", "v1", "ServiceAccount",
                   HealthCheckServiceAccount(p), ns, waves.access, false);
  if (p.IsOpenShift() && p.workload.mode == WorkloadMode::kRdma) PlanSccUse(p, ns, waves, plan);
  CopyPodInputs(p, workload_ns, ns, plan);
}

}  // namespace hkim
