// validate --cluster with scheduling.kueue (cluster_check/placement.cc): an OKE pool of
// nine nodes, six in network block A, two in block B, one without OCI's RDMA labels
// (oke-blocks.json, make_fixtures.py).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_check/check_fixture.h"

namespace hkim {
namespace {

using cluster_check_test::Check;
using cluster_check_test::Checked;
using ::testing::HasSubstr;

constexpr char kOke[] = "profiles/oke-h100.yaml";
constexpr char kFixture[] = "oke-blocks.json";

// The level labels are node-label preconditions (implied on OKE): the precondition check names
// the node that lacks them, at the profile's scheduling line.
TEST(ClusterPlacement, NodeWithoutTheTopologyLabelsIsNamed) {
  Checked c = Check(kOke, kFixture);
  bool named = false;
  for (const Diagnostic& d : c.sink.diagnostics()) {
    if (d.message.find("Node/gpu-9") == std::string::npos ||
        d.message.find("oci.oraclecloud.com/rdma.network_block_id") == std::string::npos)
      continue;
    named = true;
    EXPECT_EQ(d.severity, Severity::kError);
    EXPECT_EQ(d.data_path, "/scheduling/kueue");
  }
  EXPECT_TRUE(named) << c.All();
  for (const Diagnostic& d : c.sink.diagnostics())
    EXPECT_EQ(d.message.find("Node/gpu-1 "), std::string::npos) << d.message;
}

TEST(ClusterPlacement, TwoReplicasFitInOneNetworkBlock) {
  Checked c = Check(kOke, kFixture);
  const auto found = c.Of("cluster.topology-fit");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kNote);
  EXPECT_THAT(found[0]->message,
              HasSubstr("9 nodes: 6 in oci.oraclecloud.com/rdma.network_block_id=block-a, 2 in "
                        "oci.oraclecloud.com/rdma.network_block_id=block-b, 1 without the "
                        "topology's labels: replicas 2 fit in one"));
}

TEST(ClusterPlacement, EightReplicasCannotBePlacedInOneBlock) {
  Checked c = Check(kOke, kFixture, {"workload.replicas=8"});
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
  Checked island = Check(kOke, kFixture,
                         {"workload.replicas=8",
                          "scheduling.kueue.level=oci.oraclecloud.com/rdma.hpc_island_id"});
  ASSERT_EQ(island.Of("cluster.topology-fit").size(), 1u) << island.All();
  EXPECT_EQ(island.Of("cluster.topology-fit")[0]->severity, Severity::kNote);
  Checked preferred = Check(kOke, kFixture, {"workload.replicas=8", "scheduling.kueue.placement=preferred"});
  ASSERT_EQ(preferred.Of("cluster.topology-fit").size(), 1u) << preferred.All();
  EXPECT_EQ(preferred.Of("cluster.topology-fit")[0]->severity, Severity::kWarning);
}

TEST(ClusterPlacement, NodesMarkedUnhealthyDoNotCount) {
  std::string text = test_files::ReadFile(cluster_check_test::kFixtures / kFixture);
  // gpu-1 .. gpu-5 of block A marked failed by the periodic health check: A holds one.
  for (int i = 1; i <= 5; ++i) {
    const std::string host = "\"kubernetes.io/hostname\": \"gpu-" + std::to_string(i) + "\"";
    text = test_files::Replace(text, host, host + ", \"hkimgen.io/nccl-health\": \"fail\"");
  }
  Checked c = cluster_check_test::CheckText(kOke, kFixture, text, {"workload.replicas=3"});
  const auto found = c.Of("cluster.topology-fit");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kError);
  EXPECT_THAT(found[0]->message, HasSubstr("5 marked failed or tainted against the pods"));
  EXPECT_THAT(found[0]->fix, HasSubstr("lower workload.replicas to 2"));
}

}  // namespace
}  // namespace hkim
