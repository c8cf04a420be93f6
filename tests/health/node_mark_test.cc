#include "node_mark.h"

#include <gtest/gtest.h>

#include "text_cut.h"

namespace hkim::health {
namespace {

using nlohmann::json;

const json kOtherTaint = {{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}};
const json kOurTaint = {{"key", "hkimgen.io/nccl-health"}, {"value", "fail"}, {"effect", "NoSchedule"}};

json Node(json taints) {
  json node = {{"metadata", {{"name", "gpu-1"}, {"resourceVersion", "42"}}}, {"spec", json::object()}};
  if (!taints.empty()) node["spec"]["taints"] = taints;
  return node;
}

TEST(NodeMark, FailWithConsentLabelsAnnotatesAndTaintsKeepingOtherTaints) {
  const json patch = MarkPatch(Node(json::array({kOtherTaint})),
                               {false, "per-rail: mlx5_3 down", "2026-11-23T10:00:00Z", true});
  EXPECT_EQ(patch["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(patch["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  EXPECT_EQ(patch["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"], "per-rail: mlx5_3 down");
  EXPECT_EQ(patch["spec"]["taints"], json::array({kOtherTaint, kOurTaint}));
}

// The reason is cut at 1000 bytes; "é" (2 bytes) straddles the limit: it is left out whole, and
// the patch is valid UTF-8 JSON (a cut inside it made the dump throw and hkim-health abort).
TEST(NodeMark, ReasonCutAt1000BytesThroughAMultiByteCharacterStaysValidUtf8) {
  const std::string reason = std::string(999, 'a') + "\xc3\xa9" + "tail";
  const json patch = MarkPatch(Node(json::array()), {false, reason, "t", false});
  const std::string cut = patch["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"];
  EXPECT_EQ(cut, std::string(999, 'a'));
  const std::string text = DumpJson(patch);
  EXPECT_EQ(json::parse(text)["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"], cut);
}

TEST(TextCut, CutsOnlyOnUtf8Boundaries) {
  const std::string euro = "\xe2\x82\xac";        // 3 bytes
  const std::string smile = "\xf0\x9f\x98\x80";  // 4 bytes
  EXPECT_EQ(CutUtf8("ab" + euro, 4), "ab");
  EXPECT_EQ(CutUtf8("ab" + euro, 5), "ab" + euro);
  EXPECT_EQ(CutUtf8("a" + smile + "b", 4), "a");
  EXPECT_EQ(CutUtf8("a" + smile + "b", 5), "a" + smile);
  EXPECT_EQ(CutUtf8("abc", 2), "ab");
  EXPECT_EQ(CutUtf8(std::string(6, '\x80'), 3), std::string(3, '\x80'));  // not UTF-8: cut as is
}

TEST(TextCut, DumpReplacesInvalidUtf8InsteadOfThrowing) {
  const json value = {{"reason", std::string("bad \xc3")}};
  EXPECT_EQ(DumpJson(value), "{\"reason\":\"bad \xef\xbf\xbd\"}");
}

TEST(NodeMark, FailWithoutConsentOnlyLabels) {
  const json patch = MarkPatch(Node(json::array()), {false, "x", "t", false});
  EXPECT_EQ(patch["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  EXPECT_FALSE(patch.contains("spec"));
}

TEST(NodeMark, PassRemovesOurTaintAndReason) {
  const json patch = MarkPatch(Node(json::array({kOurTaint, kOtherTaint})), {true, "", "t", true});
  EXPECT_EQ(patch["metadata"]["labels"]["hkimgen.io/nccl-health"], "pass");
  EXPECT_TRUE(patch["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"].is_null());
  EXPECT_EQ(patch["spec"]["taints"], json::array({kOtherTaint}));
}

TEST(NodeMark, PassRemovingTheOnlyTaintDeletesTheList) {
  const json patch = MarkPatch(Node(json::array({kOurTaint})), {true, "", "t", false});
  EXPECT_TRUE(patch["spec"]["taints"].is_null());
}

TEST(NodeMark, RepeatedFailDoesNotTouchTaints) {
  const json patch = MarkPatch(Node(json::array({kOurTaint})), {false, "x", "t", true});
  EXPECT_FALSE(patch.contains("spec"));
}

TEST(NodeMark, LongReasonIsCut) {
  const json patch = MarkPatch(Node(json::array()), {false, std::string(5000, 'x'), "t", false});
  EXPECT_EQ(patch["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"].get<std::string>().size(), 1000u);
}

json Marked(json taints, int passes) {
  json node = Node(std::move(taints));
  node["metadata"]["labels"]["hkimgen.io/nccl-health"] = "fail";
  node["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"] = "node a: 12 GB/s vs >= 45";
  node["metadata"]["annotations"]["hkimgen.io/nccl-health-since"] = "2026-11-20T10:00:00Z";
  if (passes > 0) node["metadata"]["annotations"]["hkimgen.io/nccl-health-passes"] = std::to_string(passes);
  return node;
}

// Applies a merge patch's metadata and taints to `node` (what the API server would store).
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

TEST(NodeMark, FirstFailRecordsSinceAndReason) {
  const json patch = MarkPatch(Node(json::array()), {false, "node a: 12 GB/s vs >= 45 expected", "T1", false});
  EXPECT_EQ(patch["metadata"]["annotations"]["hkimgen.io/nccl-health-since"], "T1");
  EXPECT_EQ(MarkEffect(Node(json::array()), {false, "x", "T1", false}), "fail");
}

TEST(NodeMark, OnePassDoesNotReleaseAMarkedNode) {
  const NodeMark pass{true, "", "T2", true, 2};
  const json node = Marked(json::array({kOurTaint}), 0);
  EXPECT_EQ(MarkEffect(node, pass), "healing 1/2");
  const json after = Apply(node, MarkPatch(node, pass));
  EXPECT_EQ(after["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  EXPECT_EQ(after["metadata"]["annotations"]["hkimgen.io/nccl-health-passes"], "1");
  EXPECT_EQ(after["metadata"]["annotations"]["hkimgen.io/nccl-health-since"], "2026-11-20T10:00:00Z");
  EXPECT_EQ(after["spec"]["taints"], json::array({kOurTaint}));
}

TEST(NodeMark, KConsecutivePassesReleaseAndAFailRestartsTheCount) {
  const NodeMark pass{true, "", "T", true, 3};
  const NodeMark fail{false, "again slow", "T", true, 3};
  json node = Marked(json::array({kOtherTaint, kOurTaint}), 0);
  node = Apply(node, MarkPatch(node, pass));
  node = Apply(node, MarkPatch(node, pass));
  EXPECT_EQ(node["metadata"]["annotations"]["hkimgen.io/nccl-health-passes"], "2");
  node = Apply(node, MarkPatch(node, fail));  // flaky: fails again, the count starts over
  EXPECT_FALSE(node["metadata"]["annotations"].contains("hkimgen.io/nccl-health-passes"));
  EXPECT_EQ(node["metadata"]["annotations"]["hkimgen.io/nccl-health-since"], "2026-11-20T10:00:00Z");
  for (int i = 1; i <= 2; ++i) {
    node = Apply(node, MarkPatch(node, pass));
    EXPECT_EQ(node["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail") << i;
  }
  EXPECT_EQ(MarkEffect(node, pass), "pass");
  node = Apply(node, MarkPatch(node, pass));
  EXPECT_EQ(node["metadata"]["labels"]["hkimgen.io/nccl-health"], "pass");
  EXPECT_FALSE(node["metadata"]["annotations"].contains("hkimgen.io/nccl-health-reason"));
  EXPECT_FALSE(node["metadata"]["annotations"].contains("hkimgen.io/nccl-health-since"));
  EXPECT_FALSE(node["metadata"]["annotations"].contains("hkimgen.io/nccl-health-passes"));
  EXPECT_EQ(node["spec"]["taints"], json::array({kOtherTaint}));
}

}  // namespace
}  // namespace hkim::health
