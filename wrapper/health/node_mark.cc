#include "node_mark.h"

#include <charconv>

#include "json_fields.h"

#include "text_cut.h"

namespace hkim::health {

using nlohmann::json;

namespace {

std::string Annotation(const json& node, const char* key) {
  return StringField(Field(Field(node, "metadata"), "annotations"), key);
}

bool MarkedFail(const json& node) {
  return StringField(Field(Field(node, "metadata"), "labels"), kHealthLabel) == "fail";
}

// Passes counted so far on a node marked fail, this one included. A count that is not a number
// below 1000 starts again (the profile asks for at most 100: anything else is someone's edit).
int PassesWithThis(const json& node) {
  const std::string text = Annotation(node, kPassesAnnotation);
  int passes = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), passes);
  if (error != std::errc() || end != text.data() + text.size() || passes < 0 || passes >= 1000)
    passes = 0;
  return passes + 1;
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
  const json& metadata = Field(node, "metadata");
  if (metadata.is_object() && metadata.contains("resourceVersion"))
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

  const json& listed = Field(Field(node, "spec"), "taints");
  const json old_taints = listed.is_array() ? listed : json::array();
  json taints = json::array();
  bool had_ours = false;
  for (const json& taint : old_taints) {
    if (StringField(taint, "key") != kHealthLabel) taints.push_back(taint);
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
