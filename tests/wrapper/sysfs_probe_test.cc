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

// Broken or hostile trees: every oddity the probe ignores is named in a finding.

struct Broken {
  SysfsFixture fixture;
  FixtureDevice device = BarcelonaDevices()[0];
  std::string ib;  // root-relative folder of mlx5_6
  Broken() {
    device.iommu_group = 87;
    fixture.AddDevice(device);
    fixture.AddIommuGroupType(87, "identity");
    ib = "devices/" + device.bridges + "/" + device.pci + "/infiniband/mlx5_6";
  }
  Findings Probe(DeviceProbe* out = nullptr) {
    Findings findings;
    DeviceProbe p = SysfsProbe(fixture.root()).ProbeDevice("mlx5_6", &findings);
    if (out) *out = p;
    return findings;
  }
};

const Finding* FindRule(const Findings& findings, const std::string& rule) {
  for (const Finding& f : findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

TEST(SysfsProbe, HealthyTreeHasNoFindings) {
  Broken tree;
  DeviceProbe p;
  EXPECT_TRUE(tree.Probe(&p).empty());
  EXPECT_EQ(p.iommu_type, "identity");
}

TEST(SysfsProbe, AFileLongerThanAnAttributeIsReadInPartAndReported) {
  Broken tree;
  tree.fixture.WriteFile(tree.ib + "/ports/1/rate", std::string(10 << 20, 'r'));
  DeviceProbe p;
  Findings findings = tree.Probe(&p);
  EXPECT_EQ(p.ports.at(0).rate, "");
  const Finding* f = FindRule(findings, "sysfs.too-large");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->where, ::testing::EndsWith("/ports/1/rate"));
  EXPECT_THAT(f->message, ::testing::HasSubstr("4096 bytes"));
}

TEST(SysfsProbe, ALoopingDeviceLinkIsReported) {
  Broken tree;
  tree.fixture.Remove(tree.ib + "/device");
  tree.fixture.Symlink(tree.ib + "/device", "device");
  DeviceProbe p;
  Findings findings = tree.Probe(&p);
  EXPECT_TRUE(p.visible);
  EXPECT_EQ(p.numa_node, -1);
  const Finding* f = FindRule(findings, "sysfs.symlink-loop");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->where, ::testing::EndsWith("mlx5_6/device"));
}

TEST(SysfsProbe, ALoopingPortsFolderIsReported) {
  Broken tree;
  tree.fixture.Remove(tree.ib + "/ports");
  tree.fixture.Symlink(tree.ib + "/ports", "ports");
  DeviceProbe p;
  Findings findings = tree.Probe(&p);
  EXPECT_TRUE(p.ports.empty());
  const Finding* f = FindRule(findings, "sysfs.symlink-loop");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->where, ::testing::EndsWith("mlx5_6/ports"));
}

TEST(SysfsProbe, ADanglingDeviceLinkIsReported) {
  Broken tree;
  tree.fixture.Remove("class/infiniband/mlx5_6");
  tree.fixture.Symlink("class/infiniband/mlx5_6", "../../no/such/device");
  DeviceProbe p;
  Findings findings = tree.Probe(&p);
  EXPECT_FALSE(p.visible);
  EXPECT_NE(FindRule(findings, "sysfs.broken-link"), nullptr);
}

TEST(SysfsProbe, AnIommuGroupLinkThatNamesNoGroupIsReported) {
  Broken tree;
  tree.fixture.Remove("devices/" + tree.device.bridges + "/" + tree.device.pci + "/iommu_group");
  tree.fixture.Symlink("devices/" + tree.device.bridges + "/" + tree.device.pci + "/iommu_group",
                       "iommu_group");
  DeviceProbe p;
  Findings findings = tree.Probe(&p);
  EXPECT_EQ(p.iommu_group, "");
  const Finding* f = FindRule(findings, "sysfs.bad-value");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->where, ::testing::EndsWith("/iommu_group"));
}

TEST(SysfsProbe, AFolderOrFifoWhereAFileBelongsIsReportedNeverRead) {
  Broken tree;
  tree.fixture.Remove(tree.ib + "/ports/1/link_layer");
  tree.fixture.WriteFile(tree.ib + "/ports/1/link_layer/x", "a folder");
  tree.fixture.Remove(tree.ib + "/ports/1/rate");
  ASSERT_EQ(::mkfifo((tree.fixture.root() + "/" + tree.ib + "/ports/1/rate").c_str(), 0600), 0);
  Findings findings = tree.Probe();
  int not_a_file = 0;
  for (const Finding& f : findings) not_a_file += f.rule == "sysfs.not-a-file";
  EXPECT_EQ(not_a_file, 2);
}

TEST(SysfsProbe, ValuesWithControlBytesAreShownEscaped) {
  Broken tree;
  tree.fixture.WriteFile(tree.ib + "/ports/1/rate", "400 Gb/sec\x1b[2J\xff");
  tree.fixture.WriteFile(tree.ib + "/ports/1/phys_state", "5: Link\x07Up");
  DeviceProbe p;
  tree.Probe(&p);
  EXPECT_EQ(p.ports.at(0).rate, "400 Gb/sec\\x1b[2J\\xff");
  EXPECT_EQ(p.ports.at(0).phys_state, "Link\\x07Up");
}

TEST(SysfsProbe, NamesThatCannotBeDevicesAreReportedAndSkipped) {
  SysfsFixture fixture;
  testing::BuildPod(&fixture, BarcelonaDevices());
  fixture.WriteFile("class/infiniband/bad\xff\x1bname/x", "");
  fixture.WriteFile("class/infiniband/a b/x", "");
  Findings findings;
  EXPECT_THAT(SysfsProbe(fixture.root()).ListRdmaDevices(&findings),
              ElementsAre("mlx5_6", "mlx5_7", "mlx5_10", "mlx5_11"));
  int bad = 0;
  for (const Finding& f : findings) {
    if (f.rule != "sysfs.bad-name") continue;
    ++bad;
    EXPECT_EQ(f.message.find('\xff'), std::string::npos);
  }
  EXPECT_EQ(bad, 2);
}

TEST(SysfsProbe, MorePortsThanTheLimitAreReported) {
  Broken tree;
  for (int i = 2; i < 80; ++i)
    tree.fixture.WriteFile(tree.ib + "/ports/" + std::to_string(i) + "/state", "1: DOWN");
  DeviceProbe p;
  Findings findings = tree.Probe(&p);
  EXPECT_LE(p.ports.size(), 64u);
  EXPECT_NE(FindRule(findings, "sysfs.too-many-entries"), nullptr);
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
