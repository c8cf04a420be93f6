// The nightly health check's reach over the pool (issue 37): its CronJob runs
// fabric_health.periodic.nodes pods a run (0: workload.replicas), one per node, and its rotation
// spreads the NCCL checks over the nodes those pods land on. The bundle cannot count the pool at
// render time; the export can.

#include "cluster_check/findings.h"

namespace hkim::cluster_check {

void CheckHealthCoverage(const Profile& p, const ClusterExport& cluster,
                         const std::vector<const discover::NodeFacts*>& picked, Findings& findings) {
  const PeriodicHealth& periodic = p.fabric_health.periodic;
  if (!periodic.enabled || picked.empty()) return;
  const int pool = static_cast<int>(picked.size());
  const bool stated = periodic.nodes > 0;
  const int pods = stated ? periodic.nodes : p.workload.replicas;
  const std::string count = std::to_string(pool);
  const std::string fix = "set fabric_health.periodic.nodes: " + count + " (the pool's size)" +
                          (periodic.nights > 1 ? ""
                                               : "; periodic.nights: N spreads the NCCL checks "
                                                 "over N nights");
  const std::string pointer = periodic.pointer + "/nodes";
  const std::string runs =
      std::to_string(pods) + " pod(s) a run (" +
      (stated ? "fabric_health.periodic.nodes" : "periodic.nodes unset: workload.replicas") + ")";
  if (pool > pods) {
    findings.Add(Severity::kWarning, "cluster.health-coverage", pointer,
                 "cluster " + cluster.label,
                 "node_shape.node_selector picks " + count + " nodes, but the nightly health "
                 "check runs " + runs + ", one per node: " + std::to_string(pool - pods) +
                     " node(s) are never checked, over any number of nights",
                 fix);
  } else if (pool < pods && stated) {
    // Unstated, the pods are the workload's replicas: cluster.node-count reports too few nodes.
    findings.Add(Severity::kWarning, "cluster.health-coverage", pointer,
                 "cluster " + cluster.label,
                 "the nightly health check runs " + runs + ", one per node, but "
                 "node_shape.node_selector picks " + count + " nodes: " +
                     std::to_string(pods - pool) +
                     " pods find no node and stay Pending until the run's deadline",
                 fix);
  }
}

}  // namespace hkim::cluster_check
