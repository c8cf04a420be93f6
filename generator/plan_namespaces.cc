// Plan stage, namespaces: the workload namespaces with their Pod Security level (OKE).

#include "plan_builder.h"

namespace hkim::plan {

void PlanNamespaces(PlanBuilder& b) {
  const Profile& p = b.profile();
  if (p.IsOpenShift()) return;
  for (const std::string& ns : p.namespaces) {
    PlannedObject& n = b.Add("oke/namespace.yaml.mustache", "v1", "Namespace", ns, "",
                             kWaveClusterAccess, false);
    // Adding IPC_LOCK (and privileged, if asked) is beyond the baseline Pod Security level;
    // tcp mode adds no capability.
    n.context["pod_security_level"] = b.Rdma() ? "privileged" : "baseline";
  }
}

}  // namespace hkim::plan
