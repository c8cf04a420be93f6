// validate --cluster with scheduling.kueue (cluster_check/placement.cc): the OKE pool
// profiles/oke-h100.yaml synced (simulated_cluster.h) with nine nodes, six in network block A,
// two in block B (of one HPC island), and one outside the cluster network, without OCI's RDMA
// labels.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_check/check_fixture.h"

namespace hkim {
namespace {

using cluster_check_test::Checked;
using cluster_check_test::FindItem;
using ::testing::HasSubstr;
using nlohmann::json;

constexpr char kOke[] = "profiles/oke-h100.yaml";
constexpr char kRdma[] = "oci.oraclecloud.com/rdma.";

// The nine nodes' places in OCI's RDMA fabric, as OCI labels them; gpu-09 has none.
void SpreadOverBlocks(json& items) {
  for (int i = 1; i <= 9; ++i) {
    json& labels = FindItem(items, "Node", "gpu-0" + std::to_string(i))["metadata"]["labels"];
    for (const char* level : {"hpc_island_id", "network_block_id", "local_block_id"})
      labels.erase(std::string(kRdma) + level);
    if (i == 9) continue;
    labels[std::string(kRdma) + "hpc_island_id"] = "island-1";
    labels[std::string(kRdma) + "network_block_id"] = i <= 6 ? "block-a" : "block-b";
    labels[std::string(kRdma) + "local_block_id"] = i <= 4 ? "local-a1" : i <= 6 ? "local-a2" : "local-b1";
  }
}

// oke-h100 (changed by `sets`) against its synced pool of nine nodes spread over the blocks,
// with `more` changed too.
Checked Check(const std::vector<std::string>& sets = {},
              const std::function<void(json&)>& more = {}) {
  return cluster_check_test::CheckSynced(kOke, sets, [&](json& items) {
    SpreadOverBlocks(items);
    if (more) more(items);
  }, {.nodes = 9});
}

// The level labels are node-label preconditions (implied on OKE): the precondition check names
// the node that lacks them, at the profile's scheduling line.
TEST(ClusterPlacement, NodeWithoutTheTopologyLabelsIsNamed) {
  Checked c = Check();
  bool named = false;
  for (const Diagnostic& d : c.sink.diagnostics()) {
    if (d.message.find("Node/gpu-09") == std::string::npos ||
        d.message.find("oci.oraclecloud.com/rdma.network_block_id") == std::string::npos)
      continue;
    named = true;
    EXPECT_EQ(d.severity, Severity::kError);
    EXPECT_EQ(d.data_path, "/scheduling/kueue");
  }
  EXPECT_TRUE(named) << c.All();
  for (const Diagnostic& d : c.sink.diagnostics())
    EXPECT_EQ(d.message.find("Node/gpu-01 "), std::string::npos) << d.message;
}

TEST(ClusterPlacement, TwoReplicasFitInOneNetworkBlock) {
  Checked c = Check();
  const auto found = c.Of("cluster.topology-fit");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kNote);
  EXPECT_THAT(found[0]->message,
              HasSubstr("9 nodes: 6 in oci.oraclecloud.com/rdma.network_block_id=block-a, 2 in "
                        "oci.oraclecloud.com/rdma.network_block_id=block-b, 1 without the "
                        "topology's labels: replicas 2 fit in one"));
}

TEST(ClusterPlacement, EightReplicasCannotBePlacedInOneBlock) {
  Checked c = Check({"workload.replicas=8"});
  const auto found = c.Of("cluster.topology-fit");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kError);
  EXPECT_THAT(found[0]->message,
              HasSubstr("6 in oci.oraclecloud.com/rdma.network_block_id=block-a, 2 in "
                        "oci.oraclecloud.com/rdma.network_block_id=block-b"));
  EXPECT_THAT(found[0]->message,
              HasSubstr("replicas 8 at level oci.oraclecloud.com/rdma.network_block_id cannot be "
                        "placed"));
  EXPECT_THAT(found[0]->fix, HasSubstr("lower workload.replicas to 6"));
  EXPECT_EQ(found[0]->data_path, "/scheduling/kueue/level");
}

TEST(ClusterPlacement, AWiderLevelOrPreferredPlacementLetsThemRun) {
  Checked island = Check({"workload.replicas=8",
                          "scheduling.kueue.level=oci.oraclecloud.com/rdma.hpc_island_id"});
  ASSERT_EQ(island.Of("cluster.topology-fit").size(), 1u) << island.All();
  EXPECT_EQ(island.Of("cluster.topology-fit")[0]->severity, Severity::kNote);
  Checked preferred = Check({"workload.replicas=8", "scheduling.kueue.placement=preferred"});
  ASSERT_EQ(preferred.Of("cluster.topology-fit").size(), 1u) << preferred.All();
  EXPECT_EQ(preferred.Of("cluster.topology-fit")[0]->severity, Severity::kWarning);
}

TEST(ClusterPlacement, NodesMarkedUnhealthyDoNotCount) {
  // gpu-01 .. gpu-05 of block A marked failed by the periodic health check: A holds one.
  Checked c = Check({"workload.replicas=3"}, [](json& items) {
    for (int i = 1; i <= 5; ++i)
      FindItem(items, "Node", "gpu-0" + std::to_string(i))["metadata"]["labels"]["hkimgen.io/nccl-health"] = "fail";
  });
  const auto found = c.Of("cluster.topology-fit");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kError);
  EXPECT_THAT(found[0]->message, HasSubstr("5 marked failed or tainted against the pods"));
  EXPECT_THAT(found[0]->fix, HasSubstr("lower workload.replicas to 2"));
}

}  // namespace
}  // namespace hkim
