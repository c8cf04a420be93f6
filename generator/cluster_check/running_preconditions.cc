// The plan's "running" preconditions (NAMESPACE/CONTAINER: a program the bundle's glue
// configures, such as NVSentinel's modules for fabric_health.consumers.nvsentinel) against the
// exported Pods: one pod in that namespace with a container of that name.

#include "cluster_check/findings.h"
#include "discover/json_at.h"

namespace hkim::cluster_check {

using discover::At;
using discover::ExportObject;

void CheckRunningPreconditions(const BundlePlan& plan, const ClusterExport& cluster,
                               Findings& findings) {
  for (const Precondition& pre : plan.preconditions) {
    if (pre.kind != "running") continue;
    if (!cluster.kinds.count("Pod")) {
      findings.NotExported("Pod", "whether " + pre.what + " runs");
      continue;
    }
    const size_t slash = pre.what.find('/');
    const std::string ns = pre.what.substr(0, slash);
    const std::string container = slash == std::string::npos ? "" : pre.what.substr(slash + 1);
    bool found = false;
    for (const ExportObject* pod : OfKind(cluster, "Pod")) {
      if (Str(At(*pod->json, {"metadata", "namespace"})) != ns) continue;
      const nlohmann::json& containers = At(*pod->json, {"spec", "containers"});
      if (!containers.is_array()) continue;
      for (const nlohmann::json& c : containers)
        found |= c.is_object() && Str(At(c, {"name"})) == container;
    }
    if (!found)
      findings.Add(Severity::kError, "cluster.precondition", pre.pointer,
                   "cluster " + cluster.label,
                   "runs no pod with a container " + container + " in namespace " + ns +
                       ", which the bundle takes as given (" + pre.why + ")",
                   "install it first, or fix the namespace: " + pre.check);
  }
}

}  // namespace hkim::cluster_check
