// Plan stage of the fabric-health family, the node condition RdmaFabric (plan/health.h;
// wrapper/health/node_condition.h writes it): the link agent's DaemonSet, ServiceAccount and
// rights in the health namespace, the writers' ClusterRole on nodes/status, and the fence that
// lets them change only that condition, only on the pool's nodes.

#include <algorithm>

#include "model/health_consumers.h"
#include "model/wrapper_image.h"
#include "plan/health.h"
#include "plan/pod_images.h"

namespace hkim {
namespace {

using nlohmann::json;

// Where the agent sees the host's sysfs (read-only): /sys/class/infiniband's entries are links
// into /sys/devices, so the whole of /sys is mounted, not the class folder alone.
constexpr const char* kHostSys = "/host/sys";
// The Node status fields the writers may not change (every field of NodeStatus but conditions).
constexpr const char* kFrozenStatusFields[] = {
    "addresses", "allocatable", "capacity", "config", "daemonEndpoints", "features",
    "images", "nodeInfo", "phase", "runtimeHandlers", "volumesAttached", "volumesInUse"};
constexpr const char* kFrozenMetadataFields[] = {"annotations", "finalizers", "labels",
                                                 "ownerReferences"};

json Rule(const std::string& group, const std::string& resource,
          const std::vector<std::string>& verbs) {
  json verb_list = json::array();
  for (const std::string& verb : verbs) verb_list.push_back(json{{"value", verb}});
  return json{{"api_groups", json::array({json{{"value", group}}})},
              {"resources", json::array({json{{"value", resource}}})},
              {"verbs", verb_list},
              {"has_resource_names", false},
              {"resource_names", json::array()}};
}

// HKIM_HEALTH_LINK_RAILS: each rail by its device hint, else its host interface; empty (every
// RDMA device of the node) when a rail names neither.
std::string LinkRails(const Profile& p) {
  std::string out;
  for (const Rail& rail : p.network.rails) {
    std::string device = rail.rdma_device_hint;
    if (device.empty() && !rail.interface_name.empty()) device = "@" + rail.interface_name;
    if (device.empty()) return "";
    out += (out.empty() ? "" : ",") + rail.name + "=" + device;
  }
  return out;
}

std::string Thresholds(const LinkCounters& links) {
  std::string out;
  for (const LinkCounterThreshold& t : links.thresholds)
    out += (out.empty() ? "" : ",") + t.counter + "=" + std::to_string(t.max_increase) + "/" +
           std::to_string(t.window_seconds);
  return out;
}

}  // namespace

std::string LinkAgentName(const Profile& p) { return p.workload.name + "-fabric-links"; }
std::string LinkAgentClusterRoleName(const Profile& p) {
  return "hkimgen:" + p.cluster_name + ":fabric-links";
}
std::string HealthConditionFenceName(const Profile& p) {
  return "hkimgen-" + p.cluster_name + "-fabric-health-node-condition";
}

std::vector<std::string> ConditionWritingUsers(const Profile& p) {
  std::vector<std::string> users;
  const FabricHealth& h = p.fabric_health;
  if (!h.node_condition.enabled) return users;
  if (h.node_condition.marks != FabricMarks::kLabels) users = NodeMarkingUsers(p);
  if (h.link_counters.enabled)
    users.push_back("system:serviceaccount:" + HealthNamespace(p) + ":" + LinkAgentName(p));
  return users;
}

void PlanLinkAgent(const Profile& p, const std::string& ns, const HealthWaves& waves,
                   BundlePlan& plan) {
  const FabricHealth& h = p.fabric_health;
  if (!h.node_condition.enabled || !h.link_counters.enabled) return;
  const std::string name = LinkAgentName(p);
  AddPlannedObject(plan, p, "common/serviceaccount.yaml.mustache", "v1", "ServiceAccount", name,
                   ns, waves.access, false);
  PlannedObject& events = AddPlannedObject(plan, p, "health/role.yaml.mustache",
                                           "rbac.authorization.k8s.io/v1", "Role",
                                           name + "-events", ns, waves.access, false);
  events.context["rules"] = json::array({Rule("", "events", {"create"})});
  PlannedObject& events_binding = AddPlannedObject(
      plan, p, "health/rolebinding.yaml.mustache", "rbac.authorization.k8s.io/v1", "RoleBinding",
      name + "-events", ns, waves.access, false);
  events_binding.context["role"] = name + "-events";
  events_binding.context["service_account"] = name;
  if (p.IsOpenShift()) {
    // hostPath volumes need an SCC that allows them; hostmount-anyuid is OpenShift's own.
    const std::string scc = "hostmount-anyuid";
    const std::string role_name = name + "-use-scc-" + scc;
    PlannedObject& role = AddPlannedObject(plan, p, "openshift/role-scc.yaml.mustache",
                                           "rbac.authorization.k8s.io/v1", "Role", role_name, ns,
                                           waves.access, false);
    role.context["scc"] = scc;
    PlannedObject& binding = AddPlannedObject(
        plan, p, "openshift/rolebinding-scc.yaml.mustache", "rbac.authorization.k8s.io/v1",
        "RoleBinding", role_name, ns, waves.access, false);
    binding.context["role"] = role_name;
    binding.context["service_account"] = name;
  }
  PlannedObject& agent = AddPlannedObject(plan, p, "health/daemonset-links.yaml.mustache",
                                          "apps/v1", "DaemonSet", name, ns, waves.periodic, false);
  NeedImage(agent, WrapperImageReference(p.wrapper), p.wrapper.pointer + "/image",
            "the link agent runs hkim-health from it", "spec.template.spec.containers[0].image");
  json& c = agent.context;
  c["app"] = name;
  c["service_account"] = name;
  c["image"] = WrapperImageReference(p.wrapper);
  c["host_sys"] = kHostSys;
  json selector = json::array();
  for (const auto& [key, value] : p.node_shape.node_selector)
    selector.push_back(json{{"key", key}, {"value", value}});
  c["node_selector"] = selector;
  std::vector<std::string> include = p.node_shape.include_nodes;
  std::vector<std::string> exclude = p.node_shape.exclude_nodes;
  std::sort(include.begin(), include.end());
  std::sort(exclude.begin(), exclude.end());
  json include_list = json::array(), exclude_list = json::array();
  for (const std::string& n : include) include_list.push_back(json{{"value", n}});
  for (const std::string& n : exclude) exclude_list.push_back(json{{"value", n}});
  c["has_node_affinity"] = !include.empty() || !exclude.empty();
  c["has_include_nodes"] = !include.empty();
  c["include_nodes"] = include_list;
  c["has_exclude_nodes"] = !exclude.empty();
  c["exclude_nodes"] = exclude_list;
  c["field_env"] = json::array(
      {json{{"name", "HKIM_NODE_NAME"}, {"field_path", "spec.nodeName"}},
       json{{"name", "HKIM_POD_NAME"}, {"field_path", "metadata.name"}},
       json{{"name", "HKIM_POD_NAMESPACE"}, {"field_path", "metadata.namespace"}}});
  c["env"] = json::array(
      {EnvEntry("HKIM_HEALTH_SYSFS", std::string(kHostSys) + "/class/infiniband"),
       EnvEntry("HKIM_HEALTH_LINK_RAILS", LinkRails(p)),
       EnvEntry("HKIM_HEALTH_LINK_INTERVAL_S", std::to_string(h.link_counters.interval_seconds)),
       EnvEntry("HKIM_HEALTH_LINK_THRESHOLDS", Thresholds(h.link_counters)),
       EnvEntry("HKIM_HEALTH_HEARTBEAT_S", std::to_string(h.node_condition.heartbeat_seconds))});
}

void PlanNodeCondition(const Profile& p, const HealthWaves& waves, BundlePlan& plan) {
  const FabricHealth& h = p.fabric_health;
  if (!h.node_condition.enabled) return;
  const int wave = waves.access;
  if (h.link_counters.enabled) {
    const std::string role_name = LinkAgentClusterRoleName(p);
    PlannedObject& role = AddPlannedObject(plan, p, "health/clusterrole-links.yaml.mustache",
                                           "rbac.authorization.k8s.io/v1", "ClusterRole",
                                           role_name, "", wave, false);
    role.context["rules"] =
        json::array({Rule("", "nodes", {"get"}), Rule("", "nodes/status", {"patch"})});
    PlannedObject& binding = AddPlannedObject(
        plan, p, "health/clusterrolebinding.yaml.mustache", "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding", role_name, "", wave, false);
    binding.context["role"] = role_name;
    binding.context["subjects"] =
        json::array({json{{"name", LinkAgentName(p)}, {"namespace", HealthNamespace(p)}}});
  }
  const std::string name = HealthConditionFenceName(p);
  PlannedObject& policy = AddPlannedObject(
      plan, p, "admission/validatingadmissionpolicy-node-condition.yaml.mustache",
      "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", name, "", wave, false);
  policy.context["match_users"] =
      "request.userInfo.username in " + CelListOf(ConditionWritingUsers(p));
  // The agent may write only the node it runs on: its token names that node
  // (authentication.kubernetes.io/node-name, Kubernetes 1.30+).
  std::vector<std::string> node_bound;
  if (h.link_counters.enabled)
    node_bound.push_back("system:serviceaccount:" + HealthNamespace(p) + ":" + LinkAgentName(p));
  policy.context["node_bound_users"] = CelListOf(node_bound);
  // The condition's type is the only one its writers may change.
  policy.context["condition_type"] = CelQuoted(kFabricConditionType);
  policy.context["reasons"] =
      CelListOf({kFabricConditionStale, kFabricConditionIssues, kFabricConditionNoIssues});
  policy.context["pool_selector"] = CelMapOf(p.node_shape.node_selector);
  SetFencedNodeLists(p, policy);
  json status_fields = json::array(), metadata_fields = json::array();
  for (const char* field : kFrozenStatusFields) status_fields.push_back(json{{"name", field}});
  for (const char* field : kFrozenMetadataFields) metadata_fields.push_back(json{{"name", field}});
  policy.context["status_fields"] = status_fields;
  policy.context["metadata_fields"] = metadata_fields;
  PlanFenceBinding(p, name, wave, plan);
}

}  // namespace hkim
