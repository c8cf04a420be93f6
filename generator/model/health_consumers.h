#pragma once

// Model part of the fabric-health family, its consumers (profile section
// `fabric_health.consumers`): the tools a cluster already runs that act on the pool's fabric node
// condition, each opt-in. Read by ReadFabricHealth (model/health.cc); planned by
// plan/health_consumers.cc; templates in templates/consumers/.

#include <nlohmann/json.hpp>
#include <string>

namespace hkim {

/// The node condition the fabric checks write for the pool (node-problem-detector's convention:
/// True = the fabric has issues, Unknown = the check went stale), and its reasons.
inline constexpr const char* kFabricConditionType = "RdmaFabric";
inline constexpr const char* kFabricConditionIssues = "RdmaFabricHasIssues";
inline constexpr const char* kFabricConditionNoIssues = "RdmaFabricHasNoIssues";
inline constexpr const char* kFabricConditionStale = "RdmaFabricCheckStale";

/// OpenShift's Node Health Check operator (medik8s): a NodeHealthCheck over the pool that never
/// remediates (minHealthy 100%): detection, status and events only.
struct NodeHealthCheckConsumer {
  bool enabled = false;
  int true_seconds = 300;
  int unknown_seconds = 1800;
  std::string template_namespace = "openshift-workload-availability";
  std::string pointer = "/fabric_health/consumers/node_health_check";
};

/// NVIDIA NVSentinel: a kubernetes-object-monitor policy and a fault-quarantine rule set (taint,
/// no cordon), as Helm values of its chart.
struct NvSentinelConsumer {
  bool enabled = false;
  std::string namespace_name = "nvsentinel";
  std::string taint_key = "hkimgen.io/rdma-fabric";
  std::string pointer = "/fabric_health/consumers/nvsentinel";
};

/// node-problem-detector: a custom plugin monitor config whose rule runs `hkim-health links
/// --once` (exit 0/1/2 = False/True/Unknown); node-problem-detector writes the condition.
struct NodeProblemDetectorConsumer {
  bool enabled = false;
  std::string namespace_name = "kube-system";
  int interval_seconds = 60;
  std::string hkim_health_path = "/opt/hkim/bin/hkim-health";
  std::string sysfs = "/sys/class/infiniband";
  std::string pointer = "/fabric_health/consumers/node_problem_detector";
};

struct FabricConsumers {
  NodeHealthCheckConsumer node_health_check;
  NvSentinelConsumer nvsentinel;
  NodeProblemDetectorConsumer node_problem_detector;
  std::string pointer = "/fabric_health/consumers";
};

/// Reads the schema-valid `consumers` object (`section` may be empty: defaults) into `out`.
void ReadFabricConsumers(const nlohmann::json& section, FabricConsumers& out);

}  // namespace hkim
