#include "report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hkim::wrapper {
namespace {

using ::testing::HasSubstr;

Decision SampleDecision() {
  Decision d;
  d.outcome = Outcome::kRdma;
  d.allocation_source = "device-plugin";
  d.set = {{"NCCL_IB_HCA", "=mlx5_6,mlx5_7"}, {"NCCL_IB_DISABLE", "0"}, {"NCCL_IB_GID_INDEX", "3"}};
  d.wanted = d.set;
  d.wanted["NCCL_SOCKET_IFNAME"] = "=eth0";
  d.kept = {{"NCCL_SOCKET_IFNAME", "eth0"}};
  DeviceVerdict v;
  v.name = "mlx5_6";
  v.pci_address = "0000:1a:00.2";
  v.usable = true;
  v.transport = "RoCE";
  v.port = 1;
  v.state = "ACTIVE";
  v.rate = "400 Gb/sec (4X NDR)";
  v.netdev = "net1";
  v.gid_index = 3;
  v.gid_ipv4 = "10.0.103.21";
  v.numa_node = 0;
  d.devices.push_back(v);
  v.name = "mlx5_10";
  v.usable = false;
  v.reason = "port 1 is DOWN (Disabled)";
  d.devices.push_back(v);
  d.gid_decision = "set: every device has its RoCE v2 IPv4 GID at index 3";
  d.iommu_mode = "passthrough";
  d.gpudirect = "nvidia_peermem loaded";
  d.verbs = "skipped: test";
  d.findings.push_back({Severity::kError, "/sys/class/infiniband/mlx5_10", "device.unusable",
                        "mlx5_10 (0000:9a:00.2) is not used: port 1 is DOWN (Disabled)",
                        "check the link"});
  return d;
}

TEST(Report, PrintEnvIsSortedNameValueLinesOfWhatIsSet) {
  EXPECT_EQ(FormatPrintEnv(SampleDecision()),
            "NCCL_IB_DISABLE=0\nNCCL_IB_GID_INDEX=3\nNCCL_IB_HCA==mlx5_6,mlx5_7\n");
}

TEST(Report, BannerSaysFoundSetKeptAndEveryFindingWithItsFix) {
  std::string banner = FormatBanner(SampleDecision(), nullptr);
  EXPECT_THAT(banner, HasSubstr("hkim-wrapper: rdma -- 1 usable of 2 RDMA device(s) (source "
                                "device-plugin, policy fail)\n"));
  EXPECT_THAT(banner, HasSubstr("  mlx5_6    0000:1a:00.2  RoCE       port 1 ACTIVE, 400 Gb/sec "
                                "(4X NDR), net1, GID 3 (10.0.103.21), NUMA 0\n"));
  EXPECT_THAT(banner, HasSubstr("NOT USED: port 1 is DOWN (Disabled)"));
  EXPECT_THAT(banner, HasSubstr("  set  NCCL_IB_HCA==mlx5_6,mlx5_7\n"));
  EXPECT_THAT(banner, HasSubstr("  kept NCCL_SOCKET_IFNAME=eth0 (user's value; detected =eth0)\n"));
  EXPECT_THAT(banner,
              HasSubstr("/sys/class/infiniband/mlx5_10: error: mlx5_10 (0000:9a:00.2) is not used: "
                        "port 1 is DOWN (Disabled) [device.unusable]\n  fix: check the link\n"));
}

TEST(Report, JsonRecordIsOneParseableLine) {
  MemlockResult memlock;
  memlock.before = {8 << 20, 8 << 20};
  memlock.after = {kUnlimited, kUnlimited};
  memlock.sufficient = true;
  std::string line = FormatJsonRecord(SampleDecision(), &memlock);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["outcome"], "rdma");
  EXPECT_EQ(j["set"]["NCCL_IB_HCA"], "=mlx5_6,mlx5_7");
  EXPECT_EQ(j["kept"]["NCCL_SOCKET_IFNAME"]["value"], "eth0");
  EXPECT_EQ(j["kept"]["NCCL_SOCKET_IFNAME"]["detected"], "=eth0");
  EXPECT_EQ(j["devices"][1]["usable"], false);
  EXPECT_EQ(j["memlock"]["after"]["soft"], "unlimited");
  EXPECT_EQ(j["memlock"]["before"]["soft"], 8 << 20);
  EXPECT_EQ(j["findings"][0]["rule"], "device.unusable");
}

TEST(Report, JsonSurvivesInvalidUtf8) {
  Decision d = SampleDecision();
  d.findings[0].message = "bad \xff\xfe bytes";
  EXPECT_NO_THROW(nlohmann::json::parse(FormatJsonRecord(d, nullptr)));
}

TEST(Report, CheckEndsWithTheVerdict) {
  Decision d = SampleDecision();
  EXPECT_THAT(FormatCheck(d, nullptr),
              HasSubstr("result: RDMA NOT fully usable (rdma, 1 problem(s))\n"));
  d.fully_usable = true;
  EXPECT_THAT(FormatCheck(d, nullptr), HasSubstr("result: RDMA fully usable\n"));
}

}  // namespace
}  // namespace hkim::wrapper
