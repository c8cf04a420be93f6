#include "node_mark.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hkim::health
