#include "node_inventory.h"

#include <gtest/gtest.h>

namespace hkim::health {
namespace {

using nlohmann::json;

json Node(const std::string& gpus, const std::string& allocatable_gpus, const std::string& vfs,
          const std::string& ready = "True") {
  return {{"metadata", {{"name", "gpu-7"}}},
          {"status",
           {{"capacity", {{"nvidia.com/gpu", gpus}, {"nvidia.com/sriov_rdma_vf", vfs}}},
            {"allocatable", {{"nvidia.com/gpu", allocatable_gpus}, {"nvidia.com/sriov_rdma_vf", vfs}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", ready}}})}}}};
}

NodeExpectation Shape() {
  NodeExpectation expected;
  expected.gpus = 8;
  expected.resources["nvidia.com/sriov_rdma_vf"] = 16;
  return expected;
}

TEST(NodeInventory, FullNodePasses) {
  const InventoryResult result = CheckNodeInventory(Node("8", "8", "16"), Shape());
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.node, "gpu-7");
  EXPECT_EQ(result.numbers.at("nvidia.com/gpu"), "8/8 (allocatable 8)");
}

TEST(NodeInventory, SevenOfEightGpusFailsNamingTheNode) {
  const InventoryResult result = CheckNodeInventory(Node("7", "7", "16"), Shape());
  ASSERT_FALSE(result.passed);
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_EQ(result.failures[0], "node gpu-7 registers 7 of 8 GPUs (nvidia.com/gpu capacity)");
  EXPECT_NE(result.fixes[0].find("Xid 79"), std::string::npos);
}

TEST(NodeInventory, UnhealthyGpuLowersAllocatableAndFails) {
  const InventoryResult result = CheckNodeInventory(Node("8", "7", "16"), Shape());
  ASSERT_FALSE(result.passed);
  EXPECT_NE(result.failures[0].find("offers 7 of 8 GPUs"), std::string::npos);
}

TEST(NodeInventory, MissingVfsFail) {
  const InventoryResult result = CheckNodeInventory(Node("8", "8", "15"), Shape());
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.failures[0], "node gpu-7 offers 15 nvidia.com/sriov_rdma_vf, a pod needs 16");
}

TEST(NodeInventory, AbsentResourceCountsAsNone) {
  json node = Node("8", "8", "16");
  node["status"]["allocatable"].erase("nvidia.com/sriov_rdma_vf");
  const InventoryResult result = CheckNodeInventory(node, Shape());
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.failures[0], "node gpu-7 offers none nvidia.com/sriov_rdma_vf, a pod needs 16");
}

TEST(NodeInventory, NotReadyFails) {
  const InventoryResult result = CheckNodeInventory(Node("8", "8", "16", "False"), Shape());
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.failures[0], "node gpu-7 is not Ready (Ready=False)");
}

TEST(NodeInventory, GarbageDoesNotCrash) {
  for (const json& node : {json(nullptr), json::array(), json{{"status", 3}},
                           json{{"status", {{"capacity", {{"nvidia.com/gpu", 8}}}}}},
                           json{{"metadata", {{"name", 5}}}},
                           json{{"status", {{"conditions", {{{"type", 1}, {"status", true}}}}}}}}) {
    const InventoryResult result = CheckNodeInventory(node, Shape());
    EXPECT_FALSE(result.passed);
  }
}

TEST(NodeInventory, ParseCountReadsWholeCountsOnly) {
  EXPECT_EQ(ParseCount("16"), 16);
  EXPECT_EQ(ParseCount("1k"), 1000);
  EXPECT_FALSE(ParseCount("500m"));
  EXPECT_FALSE(ParseCount(""));
  EXPECT_FALSE(ParseCount("-1"));
  EXPECT_FALSE(ParseCount("99999999999999999999"));
}

}  // namespace
}  // namespace hkim::health
