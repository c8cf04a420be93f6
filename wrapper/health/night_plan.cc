// The night coordinator's decisions (night_plan.h).

#include "night_plan.h"

#include <algorithm>
#include <map>

#include "node_mark.h"

namespace hkim::health {
namespace {

using nlohmann::json;

std::string TextAt(const json& object, const char* pointer) {
  const json::json_pointer at(pointer);
  return object.is_object() && object.contains(at) && object[at].is_string()
             ? object[at].get<std::string>()
             : "";
}

// A string member, "" when absent or of another type (json::value would throw on a mismatch).
std::string Member(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

const json* Condition(const json& pod, const std::string& type) {
  const json::json_pointer at("/status/conditions");
  if (!pod.contains(at) || !pod[at].is_array()) return nullptr;
  for (const json& condition : pod[at])
    if (Member(condition, "type") == type) return &condition;
  return nullptr;
}

bool ConditionIs(const json* condition, const char* status) {
  return condition != nullptr && Member(*condition, "status") == status;
}

// The terminated state of the pod's first container (the check), or null.
json Terminated(const json& pod) {
  const json::json_pointer at("/status/containerStatuses");
  if (!pod.contains(at) || !pod[at].is_array() || pod[at].empty()) return nullptr;
  const std::string container = TextAt(pod, "/spec/containers/0/name");
  for (const json& status : pod[at]) {
    if (!status.is_object() || (!container.empty() && Member(status, "name") != container))
      continue;
    const json::json_pointer terminated("/state/terminated");
    if (status.contains(terminated) && status[terminated].is_object()) return status[terminated];
  }
  return nullptr;
}

// The first init container that ended in failure ("install-hkim-wrapper: exit 1"), "" none.
std::string FailedInit(const json& pod) {
  const json::json_pointer at("/status/initContainerStatuses");
  if (!pod.contains(at) || !pod[at].is_array()) return "";
  for (const json& status : pod[at]) {
    const json::json_pointer code("/state/terminated/exitCode");
    if (status.is_object() && status.contains(code) && status[code].is_number_integer() &&
        status[code].get<int>() != 0)
      return (Member(status, "name").empty() ? "init" : Member(status, "name")) + ": exit " +
             std::to_string(status[code].get<int>());
  }
  return "";
}

}  // namespace

std::string NodeName(const json& node) { return TextAt(node, "/metadata/name"); }

std::string LastTested(const json& node) {
  const json::json_pointer at("/metadata/annotations");
  if (!node.is_object() || !node.contains(at) || !node[at].is_object()) return "";
  const json& annotations = node[at];
  return annotations.contains(kTimeAnnotation) && annotations[kTimeAnnotation].is_string()
             ? annotations[kTimeAnnotation].get<std::string>()
             : "";
}

std::vector<json> PoolOf(const std::vector<json>& listed, const std::set<std::string>& include,
                         const std::set<std::string>& exclude) {
  std::map<std::string, json> pool;  // sorted by name, each once
  for (const json& node : listed) {
    const std::string name = NodeName(node);
    if (name.empty() || exclude.count(name) != 0) continue;
    if (!include.empty() && include.count(name) == 0) continue;
    pool.emplace(name, node);
  }
  std::vector<json> out;
  for (auto& [name, node] : pool) out.push_back(std::move(node));
  return out;
}

std::vector<std::string> TonightsSlice(const std::vector<json>& candidates, int nights) {
  std::vector<std::pair<std::string, std::string>> order;  // (last tested, name)
  for (const json& node : candidates) order.emplace_back(LastTested(node), NodeName(node));
  // "" (never tested) sorts first; then the oldest time; then the name.
  std::sort(order.begin(), order.end());
  const size_t count =
      nights <= 1 ? order.size() : (order.size() + static_cast<size_t>(nights) - 1) / nights;
  std::vector<std::string> slice;
  for (size_t i = 0; i < count && i < order.size(); ++i) slice.push_back(order[i].second);
  return slice;
}

json CheckPodFor(const json& pod_template, const std::string& node, const CheckPodOwner& owner) {
  json pod = pod_template.is_object() ? pod_template : json::object();
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  json& metadata = pod["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  metadata.erase("name");
  if (!metadata.contains("generateName") || !metadata["generateName"].is_string())
    metadata["generateName"] = "hkim-health-check-";
  metadata["namespace"] = owner.namespace_name;
  metadata["labels"][kRunLabel] = owner.pod_uid;
  metadata["annotations"][kNodeAnnotation] = node;
  metadata["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", owner.pod_name}, {"uid", owner.pod_uid}}});
  json& spec = pod["spec"];
  if (!spec.is_object()) spec = json::object();
  spec.erase("nodeName");
  spec["automountServiceAccountToken"] = false;
  const json pin = {{"key", "kubernetes.io/hostname"},
                    {"operator", "In"},
                    {"values", json::array({node})}};
  json& required =
      spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  if (!required.is_object()) required = json::object();
  json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = json::array({json::object()});
  // Terms are alternatives: the pin goes into each, so that every one names this node.
  for (json& term : terms) {
    if (!term.is_object()) term = json::object();
    if (!term["matchExpressions"].is_array()) term["matchExpressions"] = json::array();
    term["matchExpressions"].push_back(pin);
  }
  return pod;
}

CheckPodState ReadCheckPod(const json& pod) {
  CheckPodState state;
  const std::string phase = TextAt(pod, "/status/phase");
  const json* disruption = Condition(pod, "DisruptionTarget");
  if (ConditionIs(disruption, "True")) {
    state.phase = CheckPodPhase::kPreempted;
    state.why = Member(*disruption, "reason").empty() ? "DisruptionTarget"
                                                      : Member(*disruption, "reason");
    return state;
  }
  if (phase == "Succeeded" || phase == "Failed") {
    const json terminated = Terminated(pod);
    const std::string init = FailedInit(pod);
    if (terminated.is_null()) {
      state.phase = CheckPodPhase::kNoVerdict;
      state.why = !init.empty() ? init
                  : !TextAt(pod, "/status/reason").empty()
                      ? TextAt(pod, "/status/reason") + ": " + TextAt(pod, "/status/message")
                      : "the check container never ran";
      return state;
    }
    const int code = terminated.contains("exitCode") && terminated["exitCode"].is_number_integer()
                         ? terminated["exitCode"].get<int>()
                         : -1;
    const std::string message = Member(terminated, "message");
    bool passed = false;
    const bool reported = ParseCompactReport(message, &state.checks, &passed);
    if (code == 0) {
      state.phase = CheckPodPhase::kPassed;
    } else if (code == 1 && reported && !passed) {
      state.phase = CheckPodPhase::kFailed;
    } else {
      state.phase = CheckPodPhase::kNoVerdict;
      state.checks.clear();
      state.why = "exit " + std::to_string(code) +
                  (Member(terminated, "reason").empty()
                       ? ""
                       : " (" + Member(terminated, "reason") + ")") +
                  (reported ? "" : ", no report in its termination message");
    }
    return state;
  }
  const json* scheduled = Condition(pod, "PodScheduled");
  if (ConditionIs(scheduled, "True") || !TextAt(pod, "/spec/nodeName").empty()) {
    state.phase = CheckPodPhase::kPlaced;
    return state;
  }
  if (ConditionIs(scheduled, "False")) {
    state.phase = CheckPodPhase::kUnschedulable;
    state.why = Member(*scheduled, "message").empty() ? Member(*scheduled, "reason")
                                                      : Member(*scheduled, "message");
  }
  return state;
}

}  // namespace hkim::health
