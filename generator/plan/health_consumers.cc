// Plan stage of the fabric-health family's consumers (plan/health_consumers.h).

#include "plan/health_consumers.h"

#include <algorithm>

#include "plan/embedded_documents.h"
#include "plan/health.h"

namespace hkim {
namespace {

using nlohmann::json;

std::string DurationText(int seconds) { return std::to_string(seconds) + "s"; }

json ValueList(const std::vector<std::string>& items) {
  json out = json::array();
  for (const std::string& item : items) out.push_back({{"value", item}});
  return out;
}

std::vector<std::string> SortedNames(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  return items;
}

// The pool as a LabelSelector: its labels, its included and excluded hostnames, and never a
// control-plane node (medik8s: one NodeHealthCheck must not select both kinds of node).
json PoolLabelSelector(const Profile& p) {
  json labels = json::array();
  for (const auto& [key, value] : p.node_shape.node_selector)
    labels.push_back({{"key", key}, {"value", value}});
  json expressions = json::array();
  auto add = [&](const std::string& key, const char* op, const std::vector<std::string>& values) {
    expressions.push_back({{"key", key},
                           {"operator", op},
                           {"has_values", !values.empty()},
                           {"values", ValueList(values)}});
  };
  add("node-role.kubernetes.io/control-plane", "DoesNotExist", {});
  add("node-role.kubernetes.io/master", "DoesNotExist", {});
  if (!p.node_shape.include_nodes.empty())
    add("kubernetes.io/hostname", "In", SortedNames(p.node_shape.include_nodes));
  if (!p.node_shape.exclude_nodes.empty())
    add("kubernetes.io/hostname", "NotIn", SortedNames(p.node_shape.exclude_nodes));
  return {{"has_match_labels", !labels.empty()},
          {"match_labels", labels},
          {"match_expressions", expressions}};
}

// The pool as a CEL predicate over a Node `resource` (NVSentinel's policy variable).
std::string PoolCelPredicate(const Profile& p) {
  std::string out = "has(resource.metadata.labels)";
  for (const auto& [key, value] : p.node_shape.node_selector)
    out += " && " + CelQuoted(key) + " in resource.metadata.labels && resource.metadata.labels[" +
           CelQuoted(key) + "] == " + CelQuoted(value);
  if (!p.node_shape.include_nodes.empty())
    out += " && resource.metadata.name in " + CelListOf(SortedNames(p.node_shape.include_nodes));
  if (!p.node_shape.exclude_nodes.empty())
    out += " && !(resource.metadata.name in " + CelListOf(SortedNames(p.node_shape.exclude_nodes)) +
           ")";
  return out;
}

void PlanNodeHealthCheck(const Profile& p, int wave, BundlePlan& plan) {
  const NodeHealthCheckConsumer& nhc = p.fabric_health.consumers.node_health_check;
  PlannedObject& check = AddPlannedObject(plan, p, "consumers/nodehealthcheck.yaml.mustache",
                                          "remediation.medik8s.io/v1alpha1", "NodeHealthCheck",
                                          FabricNodeHealthCheckName(p), "", wave, true);
  check.source_pointer = nhc.pointer;
  Needs(check, CapabilityKind::kCrd, CrdName(kSnrTemplateApiVersion, kSnrTemplateKind), nhc.pointer,
        "its remediationTemplate names one (the operator requires a template)");
  json& c = check.context;
  c["selector"] = PoolLabelSelector(p);
  c["condition"] = kFabricConditionType;
  c["true_duration"] = DurationText(nhc.true_seconds);
  c["unknown_duration"] = DurationText(nhc.unknown_seconds);
  c["template_api_version"] = kSnrTemplateApiVersion;
  c["template_kind"] = kSnrTemplateKind;
  c["template_name"] = kSnrTemplateName;
  c["template_namespace"] = nhc.template_namespace;
}

void PlanNvSentinelValues(const Profile& p, int wave, BundlePlan& plan) {
  const NvSentinelConsumer& nvs = p.fabric_health.consumers.nvsentinel;
  PlannedObject& config =
      AddPlannedObject(plan, p, "consumers/configmap-nvsentinel-values.yaml.mustache", "v1",
                       "ConfigMap", NvSentinelValuesName(p), nvs.namespace_name, wave, false);
  config.source_pointer = nvs.pointer;
  const std::string policy = NvSentinelPolicyName(p);
  // A condition that is not False: True (issues) or Unknown (the check went stale).
  const std::string predicate =
      PoolCelPredicate(p) +
      " && has(resource.status.conditions) && resource.status.conditions.exists(c, c.type == " +
      CelQuoted(kFabricConditionType) + " && c.status != 'False')";
  // NVSentinel's own opt-out labels, as its shipped rule sets read them.
  const std::string managed =
      "!('k8saas.nvidia.com/ManagedByNVSentinel' in node.metadata.labels && "
      "node.metadata.labels['k8saas.nvidia.com/ManagedByNVSentinel'] == 'false') && "
      "!('nvsentinel.dgxc.nvidia.com/managed' in node.metadata.labels && "
      "node.metadata.labels['nvsentinel.dgxc.nvidia.com/managed'] == 'false')";
  json values = {
      {"policy", policy},
      {"predicate", predicate},
      {"message", std::string("the node's RDMA fabric has issues, or its check went stale (node "
                              "condition ") +
                      kFabricConditionType + ": its reason and message name the rail)"},
      {"error_code", kFabricConditionType},
      {"event_match",
       "event.agent == 'kubernetes-object-monitor' && event.checkName == " + CelQuoted(policy)},
      {"node_match", managed},
      {"taint_key", nvs.taint_key},
      {"taint_value", "fail"},
  };
  config.context[kEmbeddedDocuments] =
      json::array({json{{"key", "values_json"},
                        {"template", "consumers/nvsentinel-values.yaml.mustache"},
                        {"context", values}}});
  config.context["file"] = "values.yaml";
}

void PlanNodeProblemDetector(const Profile& p, int wave, BundlePlan& plan) {
  const NodeProblemDetectorConsumer& npd = p.fabric_health.consumers.node_problem_detector;
  PlannedObject& config =
      AddPlannedObject(plan, p, "consumers/configmap-npd.yaml.mustache", "v1", "ConfigMap",
                       NpdConfigName(p), npd.namespace_name, wave, false);
  config.source_pointer = npd.pointer;
  // /usr/bin/env sets the one variable: a rule has a path and arguments, no environment. With
  // no service account folder the agent has no API client: it reads, prints and exits, and
  // node-problem-detector is the condition's only writer.
  const std::vector<std::string> args = {
      "HKIM_HEALTH_SYSFS=" + npd.sysfs, npd.hkim_health_path, "links", "--once",
      "--service-account-dir",          "/nonexistent"};
  // The check reads sysfs once; a third of the interval, at most 30 s, bounds it.
  const int timeout = std::min(30, std::max(5, npd.interval_seconds / 3));
  json plugin = {
      {"interval", DurationText(npd.interval_seconds)},
      {"timeout", DurationText(timeout)},
      {"source", "hkimgen-rdma-fabric"},
      {"condition", kFabricConditionType},
      {"reason_ok", kFabricConditionNoIssues},
      {"reason_issues", kFabricConditionIssues},
      {"message_ok", "links: the RDMA ports are active"},
      {"args", ValueList(args)},
  };
  config.context[kEmbeddedDocuments] =
      json::array({json{{"key", "plugin_json"},
                        {"template", "consumers/npd-rdma-fabric.yaml.mustache"},
                        {"context", plugin}}});
  config.context["file"] = kNpdConfigFile;
}

}  // namespace

std::string NpdConfigName(const Profile& p) {
  return "hkimgen-" + p.cluster_name + "-rdma-fabric-npd";
}

std::string FabricNodeHealthCheckName(const Profile& p) {
  return "hkimgen-" + p.cluster_name + "-rdma-fabric";
}
std::string NvSentinelValuesName(const Profile& p) {
  return "hkimgen-" + p.cluster_name + "-nvsentinel-values";
}
std::string NvSentinelPolicyName(const Profile& p) {
  return "hkimgen-" + p.cluster_name + "-rdma-fabric";
}

std::vector<Precondition> ConsumerPreconditions(const Profile& p) {
  std::vector<Precondition> out;
  const FabricConsumers& consumers = p.fabric_health.consumers;
  const std::string cli = p.IsOpenShift() ? "oc" : "kubectl";
  if (consumers.node_health_check.enabled) {
    const NodeHealthCheckConsumer& nhc = consumers.node_health_check;
    out.push_back(Precondition{
        "crd", "remediation.medik8s.io/NodeHealthCheck",
        "fabric_health.consumers.node_health_check: the Node Health Check operator (OpenShift's "
        "Workload Availability) is installed by the cluster's admins; the bundle renders only "
        "the NodeHealthCheck",
        cli + " get crd nodehealthchecks.remediation.medik8s.io", nhc.pointer + "/enabled"});
    out.push_back(Precondition{
        "crd", std::string("self-node-remediation.medik8s.io/") + kSnrTemplateKind,
        "fabric_health.consumers.node_health_check: the NodeHealthCheck names Self Node "
        "Remediation's template " +
            std::string(kSnrTemplateName) + " in " + nhc.template_namespace +
            " (the operator requires one; minHealthy 100% keeps it from ever being used)",
        cli + " get selfnoderemediationtemplate -n " + nhc.template_namespace + " " +
            kSnrTemplateName,
        nhc.pointer + "/template_namespace"});
  }
  if (consumers.nvsentinel.enabled) {
    const NvSentinelConsumer& nvs = consumers.nvsentinel;
    for (const char* module : kNvSentinelModules) {
      out.push_back(
          Precondition{"running", nvs.namespace_name + "/" + module,
                       "fabric_health.consumers.nvsentinel: NVSentinel's " + std::string(module) +
                           " runs in " + nvs.namespace_name + " (global." +
                           (std::string(module) == "fault-quarantine" ? "faultQuarantine"
                                                                      : "kubernetesObjectMonitor") +
                           ".enabled) with the values of ConfigMap " + NvSentinelValuesName(p) +
                           " appended to its lists",
                       "kubectl get pods -n " + nvs.namespace_name +
                           " -o jsonpath='{range "
                           ".items[*]}{.spec.containers[*].name}{\"\\n\"}{end}' | grep -w " +
                           module,
                       nvs.pointer + "/enabled"});
    }
  }
  if (consumers.node_problem_detector.enabled) {
    const NodeProblemDetectorConsumer& npd = consumers.node_problem_detector;
    out.push_back(Precondition{
        "running", npd.namespace_name + "/node-problem-detector",
        "fabric_health.consumers.node_problem_detector: the cluster's node-problem-detector "
        "runs in " +
            npd.namespace_name +
            " (a container named node-problem-detector) and loads "
            "ConfigMap " +
            NpdConfigName(p) + "'s " + kNpdConfigFile +
            " (--config.custom-plugin-monitor), with hkim-health at " + npd.hkim_health_path +
            " and the host's RDMA class folder at " + npd.sysfs + " in its container",
        cli + " get pods -n " + npd.namespace_name +
            " -o jsonpath='{range .items[*]}{.spec.containers[*].name}{\"\\n\"}{end}' | grep -w "
            "node-problem-detector",
        npd.pointer + "/enabled"});
  }
  return out;
}

void PlanFabricConsumers(const Profile& p, int wave, BundlePlan& plan) {
  const FabricConsumers& consumers = p.fabric_health.consumers;
  if (consumers.node_health_check.enabled) PlanNodeHealthCheck(p, wave, plan);
  if (consumers.nvsentinel.enabled) PlanNvSentinelValues(p, wave, plan);
  if (consumers.node_problem_detector.enabled) PlanNodeProblemDetector(p, wave, plan);
}

}  // namespace hkim
