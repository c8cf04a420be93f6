#include "sysfs_probe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "sysfs_fixture.h"

namespace hkim::wrapper {
namespace {

using testing::BarcelonaDevices;
using ::testing::ElementsAre;
using testing::FixtureDevice;
using testing::SysfsFixture;

TEST(NaturalOrder, NumbersCompareByValue) {
  std::vector<std::string> names = {"mlx5_11", "mlx5_6", "mlx5_10", "mlx5_7", "mlx5_1", "mlx4_0"};
  NaturalSort(&names);
  EXPECT_THAT(names, ElementsAre("mlx4_0", "mlx5_1", "mlx5_6", "mlx5_7", "mlx5_10", "mlx5_11"));
}

TEST(SysfsProbe, ProbesABarcelonaVfLikeTheKernelLaysItOut) {
  SysfsFixture fixture;
  testing::BuildPod(&fixture, BarcelonaDevices());
  SysfsProbe probe(fixture.root());
  EXPECT_THAT(probe.ListRdmaDevices(), ElementsAre("mlx5_6", "mlx5_7", "mlx5_10", "mlx5_11"));
  Findings findings;
  DeviceProbe d = probe.ProbeDevice("mlx5_10", &findings);
  EXPECT_TRUE(findings.empty());
  EXPECT_TRUE(d.visible);
  EXPECT_TRUE(d.is_vf);
  EXPECT_EQ(d.pci_address, "0000:9a:00.2");
  EXPECT_EQ(d.netdev, "net3");
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_EQ(d.iommu_group, "203");
  EXPECT_EQ(d.iommu_type, "identity");
  ASSERT_EQ(d.ports.size(), 1u);
  EXPECT_TRUE(d.ports[0].active());
  EXPECT_EQ(d.ports[0].link_layer, "Ethernet");
  EXPECT_EQ(d.ports[0].rate, "400 Gb/sec (4X NDR)");
  EXPECT_EQ(d.ports[0].gid_index, 3);
  EXPECT_EQ(d.ports[0].gid_ipv4, "10.0.105.21");
  EXPECT_TRUE(probe.PeermemLoaded());
}

TEST(SysfsProbe, FindsTheRdmaDeviceUnderAPciFunction) {
  SysfsFixture fixture;
  testing::BuildPod(&fixture, BarcelonaDevices());
  SysfsProbe probe(fixture.root());
  EXPECT_THAT(probe.RdmaDevicesOfPci("0000:1a:01.2"), ElementsAre("mlx5_7"));
  EXPECT_TRUE(probe.RdmaDevicesOfPci("0000:1a:00.0").empty());  // the PF: host-owned
  EXPECT_TRUE(probe.RdmaDevicesOfPci("../../x").empty());
  // Only infiniband_verbs left (older layouts): still found.
  fixture.Remove(
      "devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:1a:01.2/infiniband");
  EXPECT_THAT(probe.RdmaDevicesOfPci("0000:1a:01.2"), ElementsAre("mlx5_7"));
}

TEST(SysfsProbe, SparseGidTableFindsTheMovedEntry) {
  SysfsFixture fixture;
  FixtureDevice d = BarcelonaDevices()[2];
  const std::string v4 = "0000:0000:0000:0000:0000:ffff:0a00:6915";
  d.gids = {{0, {"fe80:0000:0000:0000:a05e:0dff:fe11:3c03", "IB/RoCE v1", "net3"}},
            {1, {"fe80:0000:0000:0000:a05e:0dff:fe11:3c03", "RoCE v2", "net3"}},
            {4, {v4, "IB/RoCE v1", "net3"}},
            {5, {v4, "RoCE v2", "net3"}}};
  fixture.AddDevice(d);
  Findings findings;
  DeviceProbe p = SysfsProbe(fixture.root()).ProbeDevice("mlx5_10", &findings);
  ASSERT_EQ(p.ports.size(), 1u);
  EXPECT_EQ(p.ports[0].gid_index, 5);
}

TEST(SysfsProbe, GidMustBeRoceV2AndOnTheDevicesOwnNetdev) {
  SysfsFixture fixture;
  FixtureDevice d = BarcelonaDevices()[0];
  const std::string v4 = "0000:0000:0000:0000:0000:ffff:0a00:6715";
  d.gids = {{2, {v4, "IB/RoCE v1", "net1"}},  // v1: no
            {3, {v4, "RoCE v2", "eno5np0"}},  // someone else's netdev: no
            {7, {v4, "RoCE v2", ""}},         // ndev EINVAL: no
            {9, {"2010:0200:0000:0002:a288:c2ff:fe3b:506a", "RoCE v2", "net1"}},  // IPv6: no
            {11, {v4, "RoCE v2", "net1"}}};
  fixture.AddDevice(d);
  fixture.AddEth0();
  Findings findings;
  DeviceProbe p = SysfsProbe(fixture.root()).ProbeDevice("mlx5_6", &findings);
  EXPECT_EQ(p.ports[0].gid_index, 11);
}

TEST(SysfsProbe, NoIpv4GidExplainsWhy) {
  SysfsFixture fixture;
  FixtureDevice d = BarcelonaDevices()[0];
  d.ipv4.clear();
  fixture.AddDevice(d);
  Findings findings;
  DeviceProbe p = SysfsProbe(fixture.root()).ProbeDevice("mlx5_6", &findings);
  EXPECT_EQ(p.ports[0].gid_index, -1);
  EXPECT_THAT(p.ports[0].gid_problem, ::testing::HasSubstr("no RoCE v2 IPv4-mapped GID on net1"));
}

TEST(SysfsProbe, PortDownIsNotActive) {
  SysfsFixture fixture;
  FixtureDevice d = BarcelonaDevices()[2];
  d.state = "1: DOWN";
  d.phys_state = "3: Disabled";
  fixture.AddDevice(d);
  Findings findings;
  DeviceProbe p = SysfsProbe(fixture.root()).ProbeDevice("mlx5_10", &findings);
  EXPECT_FALSE(p.ports[0].active());
  EXPECT_EQ(p.ports[0].state, "DOWN");
  EXPECT_EQ(p.ports[0].phys_state, "Disabled");
}

TEST(SysfsProbe, SurvivesSymlinkLoopsAbsurdValuesAndUnreadableFiles) {
  SysfsFixture fixture;
  FixtureDevice d = BarcelonaDevices()[0];
  fixture.AddDevice(d);
  const std::string ib = "devices/" + d.bridges + "/" + d.pci + "/infiniband/mlx5_6";
  fixture.WriteFile(ib + "/ports/1/state", std::string(100000, '9'));
  fixture.WriteFile("devices/" + d.bridges + "/" + d.pci + "/numa_node", "99999999999999999999999");
  fixture.Remove(ib + "/ports/1/link_layer");
  fixture.WriteFile(ib + "/ports/1/link_layer/x", "directory instead of a file");
  fixture.Symlink("class/infiniband/loop_a", "loop_b");
  fixture.Symlink("class/infiniband/loop_b", "loop_a");
  fixture.Remove(ib + "/ports/1/rate");
  ASSERT_EQ(::mkfifo((fixture.root() + "/" + ib + "/ports/1/rate").c_str(), 0600), 0);
  SysfsProbe probe(fixture.root());
  Findings findings;
  DeviceProbe p = probe.ProbeDevice("mlx5_6", &findings);
  EXPECT_EQ(p.numa_node, -1);
  ASSERT_EQ(p.ports.size(), 1u);
  EXPECT_FALSE(p.ports[0].active());
  EXPECT_EQ(p.ports[0].link_layer, "");
  EXPECT_EQ(p.ports[0].rate, "");  // a FIFO is never opened for reading
  DeviceProbe loop = probe.ProbeDevice("loop_a", &findings);
  EXPECT_FALSE(loop.visible);
  bool loop_reported = false;
  for (const Finding& f : findings) loop_reported |= f.rule == "sysfs.symlink-loop";
  EXPECT_TRUE(loop_reported);
}

TEST(SysfsProbe, MissingTreeIsEmptyNotAnError) {
  SysfsProbe probe("/nonexistent/hkim");
  EXPECT_TRUE(probe.ListRdmaDevices().empty());
  EXPECT_FALSE(probe.PeermemLoaded());
  Findings findings;
  EXPECT_FALSE(probe.ProbeDevice("mlx5_0", &findings).visible);
}

}  // namespace
}  // namespace hkim::wrapper
