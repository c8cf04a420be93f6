// Plan stage of the fabric-health family: see plan/health.h. The CronJob starts
// `hkim-wrapper -- hkim-health node` (docs/CONTRACTS.md, "Fabric health").

#include "plan/health.h"

#include <algorithm>
#include <cstdio>

#include "model/wrapper_image.h"
#include "plan/embedded_documents.h"
#include "plan/pod_images.h"
#include "plan/requirements.h"

namespace hkim {
namespace {

using nlohmann::json;

constexpr const char* kBin = "/opt/hkim/bin";
// Where the coordinator finds the check pod (the ConfigMap's mount and key).
constexpr const char* kCheckPodDir = "/etc/hkim-health";
constexpr const char* kCheckPodFile = "check-pod.json";
// How long a check pod may wait for its node before the node counts as busy (a skip): the
// scheduler answers within seconds; a job that ends in the next minutes frees it tonight.
constexpr int kPlacementTimeoutSeconds = 300;
// Lowest priority, never preempts: the periodic check runs only on idle GPUs and yields to
// anything else.
constexpr int kHealthPriority = -100;

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}


// Sets (or adds) `name` in the pod's `env` list, keeping the order of the others.
void SetEnv(json& pod, const std::string& name, const std::string& value) {
  for (json& item : pod["env"]) {
    if (item["name"] == name) {
      item["value"] = value;
      return;
    }
  }
  pod["env"].push_back(json{{"name", name}, {"value", value}});
}

json Command(const std::string& mode) {
  return json::array({json{{"value", std::string(kBin) + "/hkim-wrapper"}}, json{{"value", "--"}},
                      json{{"value", std::string(kBin) + "/hkim-health"}}, json{{"value", mode}}});
}

// The pod values of a health Job: the workload's pod spec, restartPolicy Never, the health
// program as command, and the wrapper's own pre-job check off (hkim-health runs the checks).
json JobPod(const json& workload_pod, const std::string& app, const std::string& mode) {
  json pod = workload_pod;
  pod.erase("metadata");
  // The Jobs render no config checksum (their runs read the current ConfigMaps).
  pod.erase("config_checksum");
  // Nor do they join the workload's Kueue queue (plan/scheduling.cc).
  for (const char* key : {"has_queue", "queue_label", "queue", "topology_annotation",
                          "topology_level"})
    pod.erase(key);
  pod["app"] = app;
  pod["has_restart_policy"] = true;
  pod["restart_policy"] = "Never";
  pod["command"] = Command(mode);
  pod["field_env"] = json::array(
      {json{{"name", "HKIM_NODE_NAME"}, {"field_path", "spec.nodeName"}}});
  SetEnv(pod, "HKIM_NCCL_CHECK", "off");
  return pod;
}

std::string ExpectedResources(const Profile& p) {
  std::string out;
  if (p.workload.mode != WorkloadMode::kRdma) return out;
  std::map<std::string, int> counts;
  for (const Rail& rail : p.network.rails) counts[rail.resource_name] += rail.attachments_per_pod;
  for (const auto& [name, count] : counts)
    out += (out.empty() ? "" : ",") + name + "=" + std::to_string(count);
  return out;
}

// RDMA devices one pod gets (each attachment is one VF / device): what per-rail must find.
int ExpectedRails(const Profile& p) {
  if (p.workload.mode != WorkloadMode::kRdma) return 0;
  int rails = 0;
  for (const Rail& rail : p.network.rails) rails += rail.attachments_per_pod;
  return rails;
}

std::string NodeSelector(const Profile& p) {
  std::string out;
  for (const auto& [key, value] : p.node_shape.node_selector)
    out += (out.empty() ? "" : ",") + key + "=" + value;
  return out;
}

// Host names as a comma list (HKIM_HEALTH_INCLUDE_NODES / _EXCLUDE_NODES).
std::string HostList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

// The check pod's values: the workload's pod spec, under the check's own service account (no
// API rights, no token), at the lowest non-preempting priority, tolerating its own taint (it
// must reach the nodes it marked failed to release them), reporting to the coordinator.
json CheckPod(const Profile& p, const json& workload_pod) {
  const PeriodicHealth& h = p.fabric_health.periodic;
  const std::string check = HealthCheckName(p);
  json pod = JobPod(workload_pod, check, "node");
  pod["generate_name"] = check + "-";
  pod["service_account"] = HealthCheckServiceAccount(p);
  pod["has_priority_class"] = true;
  pod["priority_class"] = HealthPriorityClassName(p);
  pod["avoid_unhealthy_nodes"] = false;
  // include_nodes / exclude_nodes still hold: other teams' nodes are not its to check (the
  // coordinator adds the one node it is for).
  pod["has_node_affinity"] =
      pod["has_include_nodes"].get<bool>() || pod["has_exclude_nodes"].get<bool>();
  pod["has_tolerations"] = true;
  pod["tolerations"].push_back(json{{"operator", "Exists"}, {"has_key", true}, {"key", kHealthLabel},
                                    {"has_value", false}, {"value", ""}, {"has_effect", true},
                                    {"effect", "NoSchedule"}});
  // A node without RDMA must still be diagnosed and reported, not stopped by the wrapper.
  SetEnv(pod, "HKIM_ON_NO_RDMA", "tcp");
  SetEnv(pod, "HKIM_HEALTH_REPORT", "termination");
  SetEnv(pod, "HKIM_HEALTH_PER_RAIL", h.per_rail ? "true" : "false");
  // Per NCCL check: the diagnosis, the local and the per-rail check fit in timeout_seconds.
  SetEnv(pod, "HKIM_HEALTH_TIMEOUT_S", std::to_string(std::max(60, h.timeout_seconds / 3)));
  SetEnv(pod, "HKIM_NCCL_CHECK_SCOPE", "local");
  SetEnv(pod, "HKIM_NCCL_CHECK_MIN_BUSBW_GBPS", Number(h.min_busbw_gbps));
  SetEnv(pod, "HKIM_NCCL_CHECK_AT_BYTES", std::to_string(h.at_bytes));
  SetEnv(pod, "HKIM_NCCL_CHECK_MAX_BYTES", std::to_string(h.at_bytes));
  SetEnv(pod, "HKIM_NCCL_CHECK_TRANSPORT", "any");
  SetEnv(pod, "HKIM_NCCL_CHECK_MIN_RAIL_FRACTION", Number(p.fabric_health.min_rail_fraction));
  SetEnv(pod, "HKIM_NCCL_CHECK_EXPECT_RAILS", std::to_string(ExpectedRails(p)));
  return pod;
}

// The periodic check in health namespace `ns` (FabricHealthNamespace of the workload namespace
// it serves; plan/health_namespace.cc plans the rest of that namespace): the CronJob, whose one
// coordinator pod (the wrapper image's static hkim-health, no GPU) starts the check pods on
// tonight's idle nodes (wrapper/health/night.h); the ConfigMap with the check pod, rendered from
// the shared pod spec; the Role on pods that lets the coordinator start and remove them.
void PlanPeriodic(const Profile& p, const std::string& ns, const json& workload_pod,
                  const HealthWaves& waves, BundlePlan& plan) {
  const PeriodicHealth& h = p.fabric_health.periodic;
  const std::string name = HealthCronJobName(p);
  const std::string check = HealthCheckName(p);

  PlannedObject& pods_role =
      AddPlannedObject(plan, p, "health/role.yaml.mustache", "rbac.authorization.k8s.io/v1",
                       "Role", name + "-pods", ns, waves.access, false);
  // In the context, not the template: the Argo CD bootstrap role must hold what it grants.
  pods_role.context["rules"] = json::array(
      {json{{"api_groups", json::array({json{{"value", ""}}})},
            {"resources", json::array({json{{"value", "pods"}}})},
            {"verbs", json::array({json{{"value", "create"}}, json{{"value", "delete"}},
                                   json{{"value", "get"}}, json{{"value", "list"}}})},
            {"has_resource_names", false},
            {"resource_names", json::array()}}});
  PlannedObject& pods_binding = AddPlannedObject(
      plan, p, "health/rolebinding.yaml.mustache", "rbac.authorization.k8s.io/v1", "RoleBinding",
      name + "-pods", ns, waves.access, false);
  pods_binding.context["role"] = name + "-pods";
  pods_binding.context["service_account"] = HealthServiceAccount(p);

  PlannedObject& config = AddPlannedObject(plan, p, "health/configmap-check-pod.yaml.mustache",
                                           "v1", "ConfigMap", check, ns, waves.access, false);
  json pod = CheckPod(p, workload_pod);
  pod["part_of"] = config.context["metadata"]["part_of"];
  config.context[kEmbeddedDocuments] = json::array(
      {json{{"key", "check_pod_json"}, {"template", "health/check-pod.yaml.mustache"},
            {"context", pod}}});
  config.context["file"] = kCheckPodFile;
  NeedImage(config, p.workload.image, p.workload.pointer + "/image",
            "the check pods' containers run it", "data[check-pod.json].spec.containers[0].image");
  NeedImage(config, WrapperImageReference(p.wrapper), p.wrapper.pointer + "/image",
            "the check pods' init container installs hkim-wrapper from it",
            "data[check-pod.json].spec.initContainers[0].image");

  PlannedObject& cron = AddPlannedObject(plan, p, "health/cronjob.yaml.mustache", "batch/v1",
                                         "CronJob", name, ns, waves.periodic, false);
  NeedImage(cron, WrapperImageReference(p.wrapper), p.wrapper.pointer + "/image",
            "its coordinator runs hkim-health from it",
            "spec.jobTemplate.spec.template.spec.containers[0].image");
  json& c = cron.context;
  c["app"] = name;
  c["schedule"] = h.schedule;
  c["rotation_nights"] = h.nights;
  c["service_account"] = HealthServiceAccount(p);
  c["image"] = WrapperImageReference(p.wrapper);
  c["check_configmap"] = check;
  c["check_pod_dir"] = kCheckPodDir;
  // The coordinator waits kPlacementTimeoutSeconds for the pods to be placed, then
  // timeout_seconds at most for a placed one; the margin covers its API calls. A Job that ran
  // its course has succeeded unless a tested node failed (wrapper/health/night.h).
  c["active_deadline_seconds"] = kPlacementTimeoutSeconds + h.timeout_seconds + 300;
  c["field_env"] = json::array(
      {json{{"name", "HKIM_POD_NAME"}, {"field_path", "metadata.name"}},
       json{{"name", "HKIM_POD_NAMESPACE"}, {"field_path", "metadata.namespace"}},
       json{{"name", "HKIM_POD_UID"}, {"field_path", "metadata.uid"}}});
  c["env"] = json::array(
      {EnvEntry("HKIM_HEALTH_NODE_SELECTOR", NodeSelector(p)),
       EnvEntry("HKIM_HEALTH_INCLUDE_NODES", HostList(p.node_shape.include_nodes)),
       EnvEntry("HKIM_HEALTH_EXCLUDE_NODES", HostList(p.node_shape.exclude_nodes)),
       EnvEntry("HKIM_HEALTH_EXPECT_GPUS", std::to_string(p.node_shape.gpus_per_node)),
       EnvEntry("HKIM_HEALTH_EXPECT_RESOURCES", ExpectedResources(p)),
       EnvEntry("HKIM_HEALTH_TAINT", h.taint ? "true" : "false"),
       EnvEntry("HKIM_HEALTH_RELEASE_AFTER", std::to_string(h.release_after_passes)),
       EnvEntry("HKIM_HEALTH_ROTATION_NIGHTS", std::to_string(h.nights)),
       EnvEntry("HKIM_HEALTH_PLACEMENT_TIMEOUT_S", std::to_string(kPlacementTimeoutSeconds)),
       EnvEntry("HKIM_HEALTH_TIMEOUT_S", std::to_string(h.timeout_seconds)),
       EnvEntry("HKIM_HEALTH_CHECK_POD", std::string(kCheckPodDir) + "/" + kCheckPodFile)});
  const NodeConditionSettings& condition = p.fabric_health.node_condition;
  if (condition.enabled) {
    c["env"].push_back(EnvEntry("HKIM_HEALTH_MARKS", ToString(condition.marks)));
    c["env"].push_back(EnvEntry("HKIM_HEALTH_HEARTBEAT_S", std::to_string(condition.heartbeat_seconds)));
  }
  if (condition.enabled && condition.marks != FabricMarks::kLabels) {
    // The in-pod check's verdicts: the coordinator reads the workload's pods (get, list) in
    // each workload namespace and writes them as the condition's pod part.
    std::string namespaces;
    for (const std::string& workload_ns : p.namespaces)
      namespaces += (namespaces.empty() ? "" : ",") + workload_ns;
    c["env"].push_back(EnvEntry("HKIM_HEALTH_WORKLOAD_PODS", namespaces));
    c["env"].push_back(EnvEntry("HKIM_HEALTH_WORKLOAD_SELECTOR", "app=" + p.workload.name));
    // Added last: a new planned object may move `cron` (and `c`) in the plan's vector.
    for (const std::string& workload_ns : p.namespaces) {
      const std::string role_name = name + "-pod-results";
      PlannedObject& role = AddPlannedObject(plan, p, "health/role.yaml.mustache",
                                             "rbac.authorization.k8s.io/v1", "Role", role_name,
                                             workload_ns, waves.access, false);
      role.context["rules"] = json::array(
          {json{{"api_groups", json::array({json{{"value", ""}}})},
                {"resources", json::array({json{{"value", "pods"}}})},
                {"verbs", json::array({json{{"value", "get"}}, json{{"value", "list"}}})},
                {"has_resource_names", false},
                {"resource_names", json::array()}}});
      PlannedObject& binding = AddPlannedObject(
          plan, p, "health/rolebinding-pod-results.yaml.mustache", "rbac.authorization.k8s.io/v1",
          "RoleBinding", role_name, workload_ns, waves.access, false);
      binding.context["role"] = role_name;
      binding.context["service_account"] = HealthServiceAccount(p);
      binding.context["service_account_namespace"] = ns;
    }
  }
}

}  // namespace

json EnvEntry(const std::string& name, const std::string& value) {
  return json{{"name", name}, {"value", value}};
}

std::string ResolvedTransport(const Profile& p, const std::string& transport) {
  if (transport != "auto") return transport;
  if (p.workload.mode != WorkloadMode::kRdma) return "NET/Socket";
  // A profile that names its GPUDirect mode relies on it: the check proves it.
  return p.nccl.gpudirect == GpuDirect::kAuto ? "NET/IB" : "NET/IB/GDRDMA";
}

std::string HealthCronJobName(const Profile& p) { return p.workload.name + kPeriodicNameSuffix; }
std::string HealthServiceAccount(const Profile& p) { return p.workload.name + kPeriodicNameSuffix; }
std::string HealthCheckName(const Profile& p) {
  return p.workload.name + kPeriodicNameSuffix + "-check";
}
std::string HealthCheckServiceAccount(const Profile& p) { return HealthCheckName(p); }
std::string HealthClusterRoleName(const Profile& p) {
  return "hkimgen:" + p.cluster_name + ":fabric-health";
}
std::string HealthPriorityClassName(const Profile& p) {
  return p.cluster_name + "-fabric-health-low";
}

std::string HealthNamespace(const Profile& p) {
  return p.namespaces.empty() ? std::string() : FabricHealthNamespace(p.namespaces.front());
}

bool IsFabricHealthNamespace(const Profile& p, const std::string& ns) {
  const std::string suffix = kFabricHealthNamespaceSuffix;
  if (ns.size() < suffix.size() || ns.compare(ns.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  return ns == HealthNamespace(p);
}

void PlanFabricHealthNamespace(const Profile& p, const std::string& ns, const json& workload_pod,
                               const HealthWaves& waves, BundlePlan& plan) {
  if (!p.fabric_health.periodic.enabled || ns != p.namespaces.front()) return;
  PlanFabricHealthNamespaceAccess(p, ns, waves, plan);
  PlanPeriodic(p, HealthNamespace(p), workload_pod, waves, plan);
  PlanLinkAgent(p, HealthNamespace(p), waves, plan);
}

void PlanFabricHealthCluster(const Profile& p, const HealthWaves& waves, BundlePlan& plan) {
  if (!p.fabric_health.periodic.enabled) return;
  const int wave = waves.access;
  PlannedObject& priority =
      AddPlannedObject(plan, p, "health/priorityclass.yaml.mustache", "scheduling.k8s.io/v1",
                       "PriorityClass", HealthPriorityClassName(p), "", wave, false);
  priority.context["value"] = kHealthPriority;
  PlannedObject& role =
      AddPlannedObject(plan, p, "health/clusterrole.yaml.mustache", "rbac.authorization.k8s.io/v1",
                       "ClusterRole", HealthClusterRoleName(p), "", wave, false);
  // In the context, not the template, so that the Argo CD bootstrap role can hold them too
  // (plan/argocd_bootstrap.cc: RBAC lets nobody grant more than they hold). Patch on nodes for
  // the labels, on nodes/status for the condition: what fabric_health.node_condition.marks says
  // the coordinator writes.
  const FabricMarks marks = p.fabric_health.node_condition.marks;
  const bool labels = marks != FabricMarks::kCondition;
  json node_verbs = json::array({json{{"value", "get"}}, json{{"value", "list"}}});
  if (labels) node_verbs.push_back(json{{"value", "patch"}});
  json rules = json::array({json{{"api_groups", json::array({json{{"value", ""}}})},
                                 {"resources", json::array({json{{"value", "nodes"}}})},
                                 {"verbs", node_verbs},
                                 {"has_resource_names", false},
                                 {"resource_names", json::array()}}});
  if (marks != FabricMarks::kLabels)
    rules.push_back(json{{"api_groups", json::array({json{{"value", ""}}})},
                         {"resources", json::array({json{{"value", "nodes/status"}}})},
                         {"verbs", json::array({json{{"value", "patch"}}})},
                         {"has_resource_names", false},
                         {"resource_names", json::array()}});
  role.context["rules"] = rules;
  PlannedObject& binding = AddPlannedObject(
      plan, p, "health/clusterrolebinding.yaml.mustache", "rbac.authorization.k8s.io/v1",
      "ClusterRoleBinding", HealthClusterRoleName(p), "", wave, false);
  binding.context["role"] = HealthClusterRoleName(p);
  // Exactly the account the admission policy matches (NodeMarkingUsers): the periodic check's,
  // in the health namespace; none in a workload namespace.
  binding.context["subjects"] = json::array(
      {json{{"name", HealthServiceAccount(p)}, {"namespace", HealthNamespace(p)}}});
  if (labels) PlanHealthNodeFence(p, wave, plan);
  PlanNodeCondition(p, waves, plan);
}

}  // namespace hkim
