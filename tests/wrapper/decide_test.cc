#include "decide.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sysfs_fixture.h"

namespace hkim::wrapper {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;
using namespace testing;

// Runs detection on a fixture and decides, with a sufficient memlock unless told otherwise.
struct Scenario {
  SysfsFixture fixture;
  std::vector<std::string> env;
  MemlockResult memlock;
  Policy policy = Policy::kFail;
  bool tcp_mode = false;
  Detection detection;

  Scenario() { memlock.sufficient = true; }
  Decision Run() {
    EnvironmentScan scan = ScanEnvironment(env);
    SysfsProbe sysfs(fixture.root());
    detection = Detect(scan, sysfs);
    DecideInput input;
    input.detection = &detection;
    input.verbs_skipped_reason = "test";
    input.memlock = &memlock;
    input.peermem_loaded = sysfs.PeermemLoaded();
    input.net_interfaces = sysfs.NetInterfaces();
    input.vars = scan.vars;
    input.policy = policy;
    input.tcp_mode = tcp_mode;
    return Decide(input);
  }
};

bool HasRule(const Decision& d, const std::string& rule) {
  for (const Finding& f : d.findings)
    if (f.rule == rule) return true;
  return false;
}

TEST(Decide, BarcelonaNowExactMatchListAndGidIndex) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices());
  s.env = PluginEnvironment(BarcelonaDevices(), true, true);
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kRdma);
  EXPECT_EQ(d.exit_code, 0);
  EXPECT_THAT(d.set,
              UnorderedElementsAre(Pair("NCCL_IB_HCA", "=mlx5_6,mlx5_7,mlx5_10,mlx5_11"),
                                   Pair("NCCL_IB_GID_INDEX", "3"), Pair("NCCL_IB_DISABLE", "0"),
                                   Pair("NCCL_SOCKET_IFNAME", "=eth0")));
  EXPECT_TRUE(d.kept.empty());
  EXPECT_TRUE(d.fully_usable);
  EXPECT_EQ(d.iommu_mode, "passthrough");
}

TEST(Decide, BarcelonaFebruaryFollowsTheNewNames) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices(true));
  s.env = PluginEnvironment(BarcelonaDevices(true), true, true);
  EXPECT_EQ(s.Run().set.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_7,mlx5_8,mlx5_9");
}

TEST(Decide, DisagreeingGidIndicesLeaveTheVariableUnsetAndSayWhy) {
  Scenario s;
  auto devices = BarcelonaDevices();
  const std::string v4 = "0000:0000:0000:0000:0000:ffff:0a00:6915";
  devices[2].gids = {{4, {v4, "IB/RoCE v1", "net3"}}, {5, {v4, "RoCE v2", "net3"}}};
  BuildPod(&s.fixture, devices);
  s.env = PluginEnvironment(devices, true, true);
  Decision d = s.Run();
  EXPECT_EQ(d.set.count("NCCL_IB_GID_INDEX"), 0u);
  EXPECT_EQ(d.set.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_7,mlx5_10,mlx5_11");
  EXPECT_THAT(d.gid_decision, HasSubstr("mlx5_10=5"));
  EXPECT_TRUE(HasRule(d, "gid.disagree"));
}

TEST(Decide, AllDevicesAtTheSameMovedIndexSetIt) {
  Scenario s;
  auto devices = BarcelonaDevices();
  for (FixtureDevice& dev : devices) {
    std::string ip = dev.ipv4;
    int a, b, c, e;
    std::sscanf(ip.c_str(), "%d.%d.%d.%d", &a, &b, &c, &e);
    char gid[64];
    std::snprintf(gid, sizeof(gid), "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a, b, c, e);
    dev.gids = {{6, {gid, "RoCE v2", dev.netdev}}};
  }
  BuildPod(&s.fixture, devices);
  s.env = PluginEnvironment(devices, true, true);
  EXPECT_EQ(s.Run().set.at("NCCL_IB_GID_INDEX"), "6");
}

TEST(Decide, PortDownDropsTheDeviceAndCheckFails) {
  Scenario s;
  auto devices = BarcelonaDevices();
  devices[2].state = "1: DOWN";
  devices[2].phys_state = "3: Disabled";
  devices[2].ipv4.clear();
  BuildPod(&s.fixture, devices);
  s.env = PluginEnvironment(devices, true, true);
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kRdma);
  EXPECT_EQ(d.set.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_7,mlx5_11");
  EXPECT_FALSE(d.fully_usable);
  EXPECT_EQ(d.devices[2].reason, "port 1 is DOWN (Disabled)");
  EXPECT_TRUE(HasRule(d, "device.unusable"));
}

TEST(Decide, DownNetdevDropsTheRoceDevice) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices());
  auto devices = BarcelonaDevices();
  s.fixture.WriteFile(
      "devices/" + devices[1].bridges + "/" + devices[1].pci + "/net/net2/operstate", "down");
  s.env = PluginEnvironment(devices, true, true);
  Decision d = s.Run();
  EXPECT_EQ(d.set.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_10,mlx5_11");
  EXPECT_EQ(d.devices[1].reason, "port 1: its netdev net2 is down");
}

TEST(Decide, InfinibandLinkLayerNeedsNoGidAndSetsNoIndex) {
  Scenario s;
  auto devices = BarcelonaDevices();
  for (FixtureDevice& dev : devices) {
    dev.link_layer = "InfiniBand";
    dev.ipv4.clear();
  }
  BuildPod(&s.fixture, devices);
  s.env = PluginEnvironment(devices, true, true);
  Decision d = s.Run();
  EXPECT_EQ(d.set.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_7,mlx5_10,mlx5_11");
  EXPECT_EQ(d.set.count("NCCL_IB_GID_INDEX"), 0u);
  EXPECT_THAT(d.gid_decision, HasSubstr("InfiniBand"));
}

TEST(Decide, OkeSixteenVfsHyphenatedResourceKeepsUserVariables) {
  Scenario s;
  BuildPod(&s.fixture, OkeDevices());
  s.env = PluginEnvironment(OkeDevices(), true, true, "NVIDIA_COM_RDMA-VF");
  for (const char* v :
       {"NCCL_TOPO_FILE=/topo/topo.xml", "NCCL_SOCKET_IFNAME=eth0", "NCCL_IB_TC=41"})
    s.env.push_back(v);
  Decision d = s.Run();
  EXPECT_EQ(d.set.at("NCCL_IB_HCA"),
            "=mlx5_18,mlx5_19,mlx5_20,mlx5_21,mlx5_22,mlx5_23,mlx5_24,mlx5_25,mlx5_26,mlx5_27,"
            "mlx5_28,mlx5_29,mlx5_30,mlx5_31,mlx5_32,mlx5_33");
  EXPECT_EQ(d.set.at("NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(d.set.count("NCCL_SOCKET_IFNAME"), 0u);
  EXPECT_THAT(d.kept, UnorderedElementsAre(Pair("NCCL_SOCKET_IFNAME", "eth0")));
}

TEST(Decide, UserSetVariablesAreKeptAndStaleOnesFlagged) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices(true));
  s.env = PluginEnvironment(BarcelonaDevices(true), true, true);
  s.env.push_back("NCCL_IB_HCA=mlx5_6,mlx5_7,mlx5_10,mlx5_11");  // the stale hard-coded list
  s.env.push_back("NCCL_IB_GID_INDEX=3");
  Decision d = s.Run();
  EXPECT_EQ(d.set.count("NCCL_IB_HCA"), 0u);
  EXPECT_EQ(d.set.count("NCCL_IB_GID_INDEX"), 0u);
  EXPECT_EQ(d.kept.at("NCCL_IB_HCA"), "mlx5_6,mlx5_7,mlx5_10,mlx5_11");
  EXPECT_EQ(d.wanted.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_7,mlx5_8,mlx5_9");
  EXPECT_TRUE(HasRule(d, "env.kept-hca-mismatch"));
  EXPECT_FALSE(HasRule(d, "env.kept-gid-mismatch"));
}

TEST(Decide, NothingAtAllFailsUnderFailPolicy) {
  Scenario s;
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kFail);
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_TRUE(d.set.empty());
  EXPECT_TRUE(HasRule(d, "rdma.unusable"));
}

TEST(Decide, NothingAtAllFallsBackToTcpLoudlyUnderTcpPolicy) {
  Scenario s;
  s.policy = Policy::kTcp;
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kTcpFallback);
  EXPECT_EQ(d.exit_code, 0);
  EXPECT_THAT(d.set, UnorderedElementsAre(Pair("NCCL_IB_DISABLE", "1"),
                                          Pair("NCCL_SOCKET_IFNAME", "=eth0")));
  EXPECT_TRUE(HasRule(d, "rdma.tcp-fallback"));
  EXPECT_FALSE(d.fully_usable);
}

TEST(Decide, TcpModeSkipsDetection) {
  Scenario s;
  s.tcp_mode = true;
  DecideInput input;
  input.tcp_mode = true;
  input.vars = {{"NCCL_IB_DISABLE", "1"}, {"NCCL_SOCKET_IFNAME", "eth0"}};
  Decision d = Decide(input);
  EXPECT_EQ(d.outcome, Outcome::kTcpMode);
  EXPECT_TRUE(d.set.empty());
  EXPECT_EQ(d.kept.size(), 2u);
}

TEST(Decide, LowMemlockAppliesThePolicyWhenEnforced) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices());
  s.env = PluginEnvironment(BarcelonaDevices(), true, true);
  s.memlock.sufficient = false;
  s.memlock.findings.push_back({Severity::kError, "memlock", "memlock.too-low", "8 MiB", "fix"});
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kFail);
  EXPECT_THAT(d.reason, HasSubstr("locked-memory"));
}

TEST(Decide, TranslatedIommuIsAProblemWithTheMachineConfigFix) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices());
  for (int group : {87, 88, 203, 204}) s.fixture.AddIommuGroupType(group, "DMA-FQ");
  s.env = PluginEnvironment(BarcelonaDevices(), true, true);
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kRdma);
  EXPECT_EQ(d.iommu_mode, "translation");
  EXPECT_FALSE(d.fully_usable);
  bool found = false;
  for (const Finding& f : d.findings)
    if (f.rule == "iommu.translation")
      found = f.fix.find("kernelArguments") != std::string::npos &&
              f.fix.find("iommu=pt") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(Decide, DmabufOffWithoutPeermemIsFlagged) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices());
  s.fixture.Remove("module/nvidia_peermem");
  s.env = PluginEnvironment(BarcelonaDevices(), true, true);
  s.env.push_back("NCCL_DMABUF_ENABLE=0");
  Decision d = s.Run();
  EXPECT_FALSE(d.peermem_loaded);
  EXPECT_TRUE(HasRule(d, "gpudirect.dmabuf-disabled"));
  EXPECT_THAT(d.gpudirect, HasSubstr("NCCL_DMABUF_ENABLE"));
}

TEST(Decide, SharedPrivilegedWithoutVariablesDropsForeignVfs) {
  Scenario s;
  BuildPod(&s.fixture, BarcelonaDevices());
  FixtureDevice foreign = BarcelonaDevices(true)[2];  // mlx5_8: another pod's VF
  foreign.pci = "0000:9a:02.2";
  foreign.netdev.clear();
  foreign.gid_ndev = "net1";  // a name from the other pod's namespace
  s.fixture.AddDevice(foreign);
  s.fixture.Remove("class/net/net1");
  s.fixture.Symlink("class/net/net1",
                    "../../devices/" + BarcelonaDevices()[0].bridges + "/0000:1a:00.2/net/net1");
  Decision d = s.Run();
  EXPECT_EQ(d.allocation_source, "sysfs-vf");
  EXPECT_EQ(d.set.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_7,mlx5_10,mlx5_11");
  ASSERT_EQ(d.devices.size(), 5u);  // mlx5_6, mlx5_7, mlx5_8, mlx5_10, mlx5_11
  EXPECT_EQ(d.devices[2].name, "mlx5_8");
  EXPECT_FALSE(d.devices[2].usable);
  EXPECT_TRUE(d.fully_usable);  // the foreign VF is a note, not a problem of this pod
}

// With isolated rails a pod short of one rail would hang its peers.
TEST(Decide, IsolatedRailsStopThePodNamingTheRailItsInterfaceAndWhy) {
  Scenario s;
  auto devices = BarcelonaDevices();
  devices[2].state = "1: DOWN";
  devices[2].phys_state = "3: Disabled";
  devices[2].ipv4.clear();
  BuildPod(&s.fixture, devices);
  s.env = PluginEnvironment(devices, true, true);
  s.env.push_back("NCCL_CROSS_NIC=0");
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kFail);
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_TRUE(HasRule(d, "rail.unusable-isolated"));
  EXPECT_THAT(d.reason, HasSubstr("NCCL_CROSS_NIC=0"));
  EXPECT_THAT(d.reason, HasSubstr("interface " + devices[2].netdev));
  EXPECT_THAT(d.reason, HasSubstr(devices[2].name));
  EXPECT_THAT(d.reason, HasSubstr("port 1 is DOWN (Disabled)"));
  EXPECT_THAT(d.reason, HasSubstr("rail PCIDEVICE_"));
}

TEST(Decide, IsolatedRailsUnderTcpPolicyGoOnWithAnError) {
  Scenario s;
  auto devices = BarcelonaDevices();
  devices[2].state = "1: DOWN";
  BuildPod(&s.fixture, devices);
  s.env = PluginEnvironment(devices, true, true);
  s.env.push_back("NCCL_CROSS_NIC=0");
  s.policy = Policy::kTcp;
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kRdma);
  EXPECT_TRUE(HasRule(d, "rail.unusable-isolated"));
}

TEST(Decide, CrossNicAllowedDropsTheRailAndGoesOn) {
  Scenario s;
  auto devices = BarcelonaDevices();
  devices[2].state = "1: DOWN";
  BuildPod(&s.fixture, devices);
  s.env = PluginEnvironment(devices, true, true);
  s.env.push_back("NCCL_CROSS_NIC=1");
  Decision d = s.Run();
  EXPECT_EQ(d.outcome, Outcome::kRdma);
  EXPECT_EQ(d.exit_code, 0);
  EXPECT_FALSE(HasRule(d, "rail.unusable-isolated"));
}

}  // namespace
}  // namespace hkim::wrapper
