#include "node_mark.h"

#include <cstdlib>

#include "text_cut.h"

namespace hkim::health {

using nlohmann::json;

namespace {

std::string Annotation(const json& node, const char* key) {
  const json annotations = node.value("metadata", json::object()).value("annotations", json::object());
  return annotations.contains(key) && annotations[key].is_string() ? annotations[key].get<std::string>()
                                                                   : "";
}

bool MarkedFail(const json& node) {
  const json labels = node.value("metadata", json::object()).value("labels", json::object());
  return labels.value(kHealthLabel, "") == "fail";
}

// Passes counted so far on a node marked fail, this one included.
int PassesWithThis(const json& node) {
  return std::atoi(Annotation(node, kPassesAnnotation).c_str()) + 1;
}

}  // namespace

std::string MarkEffect(const json& node, const NodeMark& mark) {
  if (!mark.passed) return "fail";
  if (!MarkedFail(node)) return "pass";
  const int passes = PassesWithThis(node);
  if (passes >= mark.release_after) return "pass";
  return "healing " + std::to_string(passes) + "/" + std::to_string(mark.release_after);
}

json MarkPatch(const json& node, const NodeMark& mark) {
  json patch;
  const json metadata = node.value("metadata", json::object());
  if (metadata.contains("resourceVersion"))
    patch["metadata"]["resourceVersion"] = metadata["resourceVersion"];
  const std::string effect = MarkEffect(node, mark);
  const bool marked = effect != "pass";  // fail, or still healing
  patch["metadata"]["labels"][kHealthLabel] = marked ? "fail" : "pass";
  patch["metadata"]["annotations"][kTimeAnnotation] = mark.time;
  if (effect == "fail") {
    patch["metadata"]["annotations"][kReasonAnnotation] = CutUtf8(mark.reason, 1000);
    patch["metadata"]["annotations"][kPassesAnnotation] = nullptr;  // a failure restarts the count
    if (!MarkedFail(node) || Annotation(node, kSinceAnnotation).empty())
      patch["metadata"]["annotations"][kSinceAnnotation] = mark.time;
  } else if (effect == "pass") {
    patch["metadata"]["annotations"][kReasonAnnotation] = nullptr;  // merge patch: remove
    patch["metadata"]["annotations"][kSinceAnnotation] = nullptr;
    patch["metadata"]["annotations"][kPassesAnnotation] = nullptr;
  } else {
    patch["metadata"]["annotations"][kPassesAnnotation] = std::to_string(PassesWithThis(node));
  }

  const json spec = node.value("spec", json::object());
  const json old_taints = spec.value("taints", json::array());
  json taints = json::array();
  bool had_ours = false;
  for (const json& taint : old_taints) {
    if (taint.value("key", "") != kHealthLabel) taints.push_back(taint);
    else had_ours = true;
  }
  // Healing keeps the taint it had (consent may have been given after the mark).
  if ((effect == "fail" && mark.taint) || (effect != "fail" && effect != "pass" && had_ours)) {
    taints.push_back({{"key", kHealthLabel}, {"value", "fail"}, {"effect", "NoSchedule"}});
  }
  if (taints != old_taints) patch["spec"]["taints"] = taints.empty() ? json(nullptr) : taints;
  return patch;
}

}  // namespace hkim::health
