#include "node_mark.h"

namespace hkim::health {

using nlohmann::json;

json MarkPatch(const json& node, const NodeMark& mark) {
  json patch;
  const json metadata = node.value("metadata", json::object());
  if (metadata.contains("resourceVersion"))
    patch["metadata"]["resourceVersion"] = metadata["resourceVersion"];
  patch["metadata"]["labels"][kHealthLabel] = mark.passed ? "pass" : "fail";
  patch["metadata"]["annotations"][kTimeAnnotation] = mark.time;
  if (mark.passed) {
    patch["metadata"]["annotations"][kReasonAnnotation] = nullptr;  // merge patch: remove
  } else {
    patch["metadata"]["annotations"][kReasonAnnotation] = mark.reason.substr(0, 1000);
  }

  const json spec = node.value("spec", json::object());
  const json old_taints = spec.value("taints", json::array());
  json taints = json::array();
  for (const json& taint : old_taints) {
    if (taint.value("key", "") != kHealthLabel) taints.push_back(taint);
  }
  if (!mark.passed && mark.taint) {
    taints.push_back({{"key", kHealthLabel}, {"value", "fail"}, {"effect", "NoSchedule"}});
  }
  if (taints != old_taints) patch["spec"]["taints"] = taints.empty() ? json(nullptr) : taints;
  return patch;
}

}  // namespace hkim::health
