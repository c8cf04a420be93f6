#include "detect.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sysfs_fixture.h"

namespace hkim::wrapper {
namespace {

using ::testing::ElementsAre;
using namespace testing;

std::vector<std::string> Names(const Detection& d) {
  std::vector<std::string> out;
  for (const Candidate& c : d.candidates) out.push_back(c.name);
  return out;
}

TEST(Detect, DevicePluginNamesComeFromInfo) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Detection d = Detect(ScanEnvironment(PluginEnvironment(BarcelonaDevices(), true, true)),
                       SysfsProbe(fixture.root()));
  EXPECT_EQ(d.source, AllocationSource::kDevicePlugin);
  EXPECT_THAT(Names(d), ElementsAre("mlx5_6", "mlx5_7", "mlx5_10", "mlx5_11"));
  EXPECT_EQ(d.candidates[0].name_source, "_INFO rdma_dev");
}

TEST(Detect, OldPluginNamesComeFromSysfs) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices(true));
  Detection d = Detect(ScanEnvironment(PluginEnvironment(BarcelonaDevices(true), false, false)),
                       SysfsProbe(fixture.root()));
  EXPECT_THAT(Names(d), ElementsAre("mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"));
  EXPECT_EQ(d.candidates[0].name_source, "sysfs 0000:1a:00.2/infiniband");
}

TEST(Detect, SharedModeCountsOnlyAllocatedDevices) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  for (const FixtureDevice& pf : HostPfDevices(6)) fixture.AddDevice(pf);
  // Another pod's VFs on the same host.
  FixtureDevice other = BarcelonaDevices(true)[2];
  other.netdev.clear();
  other.gid_ndev = "net1";
  other.pci = "0000:9a:02.2";
  fixture.AddDevice(other);
  Detection d = Detect(ScanEnvironment(PluginEnvironment(BarcelonaDevices(), true, true)),
                       SysfsProbe(fixture.root()));
  EXPECT_THAT(Names(d), ElementsAre("mlx5_6", "mlx5_7", "mlx5_10", "mlx5_11"));
  EXPECT_THAT(d.ignored_devices,
              ElementsAre("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_8"));
}

TEST(Detect, InfoNameThatSysfsContradictsIsLookedUpByAddress) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Detection d = Detect(
      ScanEnvironment({"PCIDEVICE_X=0000:1a:00.2",
                       "PCIDEVICE_X_INFO={\"0000:1a:00.2\":{\"rdma\":{\"rdma_dev\":\"mlx5_7\"}}}"}),
      SysfsProbe(fixture.root()));
  EXPECT_THAT(Names(d), ElementsAre("mlx5_6"));
  EXPECT_EQ(d.findings[0].rule, "detect.rdma-dev-mismatch");
}

TEST(Detect, AllocatedFunctionWithoutRdmaDeviceIsReported) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Detection d = Detect(ScanEnvironment({"PCIDEVICE_X=0000:3b:02.6"}), SysfsProbe(fixture.root()));
  EXPECT_TRUE(d.candidates.empty());
  EXPECT_THAT(d.unresolved_pci, ElementsAre("0000:3b:02.6"));
  EXPECT_EQ(d.findings[0].rule, "detect.no-rdma-device");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(Detect, DeviceOnlyUnderItsPciFunctionIsStillProbed) {
  SysfsFixture fixture;
  auto devices = BarcelonaDevices();
  BuildPod(&fixture, devices);
  const std::string function = "devices/" + devices[0].bridges + "/" + devices[0].pci;
  fixture.Remove(function + "/infiniband_verbs");
  fixture.Remove("class/infiniband/mlx5_6");
  Detection d = Detect(ScanEnvironment(PluginEnvironment({devices[0]}, true, false)),
                       SysfsProbe(fixture.root()));
  EXPECT_THAT(Names(d), ElementsAre("mlx5_6"));
  EXPECT_TRUE(d.candidates[0].probe.visible);  // probed through bus/pci/devices/<pci>/infiniband
  EXPECT_EQ(d.candidates[0].probe.netdev, "net1");
  EXPECT_EQ(d.candidates[0].probe.ports[0].gid_index, 3);
}

TEST(Detect, OldPluginNameFromTheUverbsNodeOfInfo) {
  SysfsFixture fixture;
  auto devices = BarcelonaDevices();
  BuildPod(&fixture, devices);
  // No bus/pci/devices entry for the function: only the uverbs node of _INFO leads to the name.
  fixture.Remove("bus/pci/devices/" + devices[0].pci);
  fixture.Symlink("class/infiniband/mlx5_6/device", "/nonexistent/unknown");
  fixture.WriteFile("class/infiniband_verbs/uverbs6/ibdev", "mlx5_6");
  Detection d = Detect(ScanEnvironment(PluginEnvironment({devices[0]}, true, false)),
                       SysfsProbe(fixture.root()));
  EXPECT_THAT(Names(d), ElementsAre("mlx5_6"));
  EXPECT_EQ(d.candidates[0].name_source, "sysfs infiniband_verbs/uverbs6");
}

TEST(Detect, MinimalTreeWithoutNetdevsTrustsTheGidTableForAllocatedDevices) {
  SysfsFixture fixture;
  auto devices = BarcelonaDevices();
  BuildPod(&fixture, devices);
  for (const FixtureDevice& dev : devices) {
    fixture.Remove("devices/" + dev.bridges + "/" + dev.pci + "/net");
    fixture.Remove("class/net/" + dev.netdev);
  }
  Detection d =
      Detect(ScanEnvironment(PluginEnvironment(devices, true, true)), SysfsProbe(fixture.root()));
  ASSERT_EQ(d.candidates.size(), 4u);
  EXPECT_EQ(d.candidates[2].probe.netdev, "net3");
  EXPECT_EQ(d.candidates[2].probe.ports[0].gid_index, 3);
  EXPECT_EQ(d.findings.back().rule, "netdev.not-visible");
  // Without the allocation list the same tree gives nothing: those could be anyone's VFs.
  Detection fallback = Detect(ScanEnvironment({}), SysfsProbe(fixture.root()));
  EXPECT_EQ(fallback.candidates[0].probe.ports[0].gid_index, -1);
}

TEST(Detect, NetdevFoundThroughClassNetWhenThePciFolderHasNoNet) {
  SysfsFixture fixture;
  auto devices = BarcelonaDevices();
  BuildPod(&fixture, devices);
  fixture.Remove("devices/" + devices[0].bridges + "/" + devices[0].pci + "/net");  // link dangles
  Detection d =
      Detect(ScanEnvironment(PluginEnvironment(devices, true, true)), SysfsProbe(fixture.root()));
  EXPECT_EQ(d.candidates[0].probe.netdev, "net1");
  EXPECT_EQ(d.candidates[0].probe.netdev_source, "pci net/");
}

TEST(Detect, WithoutPluginVariablesUsesVfs) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  for (const FixtureDevice& pf : HostPfDevices(2)) fixture.AddDevice(pf);
  Detection d = Detect(ScanEnvironment({"PATH=/bin"}), SysfsProbe(fixture.root()));
  EXPECT_EQ(d.source, AllocationSource::kVfFallback);
  EXPECT_THAT(Names(d), ElementsAre("mlx5_6", "mlx5_7", "mlx5_10", "mlx5_11"));
}

TEST(Detect, WithoutVariablesOrVfsUsesEveryDevice) {
  SysfsFixture fixture;
  std::vector<FixtureDevice> pfs = HostPfDevices(3);
  for (FixtureDevice& pf : pfs) pf.netdev = pf.gid_ndev = "eno" + pf.name.substr(5);
  BuildPod(&fixture, pfs);
  Detection d = Detect(ScanEnvironment({}), SysfsProbe(fixture.root()));
  EXPECT_EQ(d.source, AllocationSource::kHostFallback);
  EXPECT_THAT(Names(d), ElementsAre("mlx5_0", "mlx5_1", "mlx5_2"));
}

TEST(Detect, NothingAtAll) {
  SysfsFixture fixture;
  Detection d = Detect(ScanEnvironment({}), SysfsProbe(fixture.root()));
  EXPECT_EQ(d.source, AllocationSource::kNone);
  EXPECT_TRUE(d.candidates.empty());
}

}  // namespace
}  // namespace hkim::wrapper
