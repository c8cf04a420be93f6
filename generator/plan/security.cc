// Plan stage, security: the OpenShift SCC that lets the workload lock memory, the workload's
// ServiceAccount, and the Role/RoleBinding that grant it `use` of the SCC.

#include "plan/builder.h"

namespace hkim::plan {

using nlohmann::json;

void PlanClusterSecurity(PlanBuilder& b) {
  const Profile& p = b.profile();
  if (!p.IsOpenShift()) return;
  if (b.Rdma() && p.security.memlock_strategy != MemlockStrategy::kPrivileged) {
    PlannedObject& scc =
        b.Add("openshift/scc.yaml.mustache", "security.openshift.io/v1",
              "SecurityContextConstraints", p.security.scc_name, "", kWaveClusterAccess, false,
              /*keep_on_removal=*/true);
    json caps = json::array({json{{"value", "IPC_LOCK"}}});
    if (p.security.memlock_strategy == MemlockStrategy::kSysResourceScc)
      caps.push_back(json{{"value", "SYS_RESOURCE"}});
    scc.context["allowed_capabilities"] = caps;
    scc.context["host_ipc"] = p.security.host_ipc;
    scc.context["description"] = "hkimgen: lets " + p.security.service_account +
                                 " lock memory for RDMA (" +
                                 ToString(p.security.memlock_strategy) + ")";
  }
}

void PlanNamespaceSecurity(PlanBuilder& b, const std::string& ns) {
  const Profile& p = b.profile();
  const Security& s = p.security;
  b.Add("common/serviceaccount.yaml.mustache", "v1", "ServiceAccount", s.service_account, ns,
        kWaveNamespaceAccess, false);
  if (!p.IsOpenShift() || !b.Rdma()) return;
  // GitOps form of `oc adm policy add-scc-to-user <scc> -z <sa>`: `use` on the one SCC.
  const std::string scc =
      s.memlock_strategy == MemlockStrategy::kPrivileged ? std::string("privileged") : s.scc_name;
  const std::string role_name = s.service_account + "-use-scc-" + scc;
  PlannedObject& role = b.Add("openshift/role-scc.yaml.mustache", "rbac.authorization.k8s.io/v1",
                              "Role", role_name, ns, kWaveNamespaceAccess, false);
  role.context["scc"] = scc;
  PlannedObject& binding =
      b.Add("openshift/rolebinding-scc.yaml.mustache", "rbac.authorization.k8s.io/v1",
            "RoleBinding", role_name, ns, kWaveNamespaceAccess, false);
  binding.context["role"] = role_name;
  binding.context["service_account"] = s.service_account;
}

}  // namespace hkim::plan
