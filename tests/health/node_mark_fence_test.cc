// What hkim-health writes on a Node stays within what the admission policy the generator renders
// lets it change (templates/admission/, docs/health.md "What the health check may change"): every
// label and annotation key its patches touch is the policy's markLabel or one of its
// markAnnotations, and the only taint it adds is markLabel=fail:NoSchedule. The policy is read
// from the shipped oke-h100 bundle (the generator's tests keep out/ current), so a new
// annotation in node_mark.cc fails here until the fence allows it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "node_mark.h"

namespace hkim::health {
namespace {

using nlohmann::json;

const char kPolicy[] = HKIM_SOURCE_DIR
    "/out/oke-h100/platform/40-validatingadmissionpolicy-hkimgen-oke-h100-fabric-health-node-marks.yaml";

// The quoted CEL strings of the policy variable `name`'s expression.
std::set<std::string> PolicyStrings(const std::string& name) {
  std::ifstream in(kPolicy);
  std::stringstream text;
  text << in.rdbuf();
  const std::string policy = text.str();
  const std::string head = "- name: " + name + "\n    expression: ";
  const size_t at = policy.find(head);
  if (at == std::string::npos) return {};
  const std::string line = policy.substr(at + head.size(), policy.find('\n', at + head.size()) -
                                                               at - head.size());
  std::set<std::string> strings;
  const std::regex quoted("'([^'\\\\]*)'");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), quoted); it != std::sregex_iterator();
       ++it) {
    strings.insert((*it)[1]);
  }
  return strings;
}

// The node as the API server stores it after the merge patch.
json Apply(json node, const json& patch) {
  for (const char* part : {"labels", "annotations"}) {
    const json changes = patch["metadata"].value(part, json::object());
    for (const auto& [key, value] : changes.items()) {
      if (value.is_null()) node["metadata"][part].erase(key);
      else node["metadata"][part][key] = value;
    }
  }
  if (patch.contains("spec")) {
    if (patch["spec"]["taints"].is_null()) node["spec"].erase("taints");
    else node["spec"]["taints"] = patch["spec"]["taints"];
  }
  return node;
}

TEST(NodeMarkFence, EveryMarkThePatchesWriteIsOneThePolicyAllows) {
  const std::set<std::string> label = PolicyStrings("markLabel");
  const std::set<std::string> annotations = PolicyStrings("markAnnotations");
  ASSERT_EQ(label, std::set<std::string>{kHealthLabel}) << kPolicy;
  ASSERT_FALSE(annotations.empty()) << kPolicy;
  const json other_taint = {{"key", "nvidia.com/gpu"}, {"effect", "NoSchedule"}};
  json node = {{"metadata", {{"name", "gpu-1"}, {"resourceVersion", "1"},
                             {"labels", {{"kubernetes.io/hostname", "gpu-1"}}},
                             {"annotations", json::object()}}},
               {"spec", {{"taints", json::array({other_taint})}}}};
  // Fail, fail again, heal pass by pass until released, fail without consent, release.
  const NodeMark steps[] = {
      {false, "rail mlx5_3: 12 GB/s", "T1", true, 2}, {false, "again", "T2", true, 2},
      {true, "", "T3", true, 2},  {true, "", "T4", true, 2},
      {false, "slow", "T5", false, 2}, {false, "slow", "T6", true, 2},
      {false, "slow", "T7", false, 2}, {true, "", "T8", false, 1}};
  int step = 0;
  for (const NodeMark& mark : steps) {
    ++step;
    const json patch = MarkPatch(node, mark);
    const json labels = patch["metadata"].value("labels", json::object());
    const json written = patch["metadata"].value("annotations", json::object());
    for (const auto& [key, value] : labels.items()) {
      EXPECT_EQ(label.count(key), 1u) << "step " << step << " writes label " << key;
      EXPECT_TRUE(value == "pass" || value == "fail" || value.is_null()) << value;
    }
    for (const auto& [key, value] : written.items())
      EXPECT_EQ(annotations.count(key), 1u) << "step " << step << " writes annotation " << key;
    const json after = Apply(node, patch);
    const json old_taints = node["spec"].value("taints", json::array());
    for (const json& taint : after["spec"].value("taints", json::array())) {
      if (std::find(old_taints.begin(), old_taints.end(), taint) != old_taints.end()) continue;
      EXPECT_EQ(taint, (json{{"key", kHealthLabel}, {"value", "fail"}, {"effect", "NoSchedule"}}))
          << "step " << step;
      EXPECT_TRUE(mark.taint) << "step " << step << " adds the taint without consent";
    }
    for (const json& taint : old_taints) {
      const json now = after["spec"].value("taints", json::array());
      if (std::find(now.begin(), now.end(), taint) == now.end())
        EXPECT_EQ(taint["key"], kHealthLabel) << "step " << step << " removes " << taint;
    }
    node = after;
  }
  EXPECT_EQ(node["metadata"]["labels"][kHealthLabel], "pass");  // the steps ran to the release
}

}  // namespace
}  // namespace hkim::health
