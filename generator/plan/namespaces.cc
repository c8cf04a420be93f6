// Plan stage, namespaces: the workload namespaces. OKE: with their Pod Security level.
// OpenShift: labelled argocd.argoproj.io/managed-by, so that OpenShift GitOps may manage what is
// in them (a fresh cluster has no such namespace, and the sync failed with "namespace not found").
// A namespace may exist already (Barcelona's nccl-test, a team's project): the sync adopts it, so
// it carries Prune=false,Delete=false; deleting the Application or dropping the namespace from the
// profile must never delete it and everything people keep in it.

#include "plan/builder.h"

namespace hkim::plan {

void PlanNamespaces(PlanBuilder& b) {
  const Profile& p = b.profile();
  for (const std::string& ns : p.namespaces) {
    if (p.IsOpenShift()) {
      PlannedObject& n = b.Add("openshift/namespace.yaml.mustache", "v1", "Namespace", ns, "",
                               kWaveClusterAccess, false, /*keep_on_removal=*/true);
      n.context["managed_by"] = p.gitops.argocd_namespace;
      continue;
    }
    PlannedObject& n = b.Add("oke/namespace.yaml.mustache", "v1", "Namespace", ns, "",
                             kWaveClusterAccess, false, /*keep_on_removal=*/true);
    // Adding IPC_LOCK (and privileged, if asked) is beyond the baseline Pod Security level;
    // tcp mode adds no capability.
    n.context["pod_security_level"] = b.Rdma() ? "privileged" : "baseline";
  }
}

}  // namespace hkim::plan
