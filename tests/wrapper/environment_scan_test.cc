#include "environment_scan.h"

#include <cstdio>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sysfs_fixture.h"

namespace hkim::wrapper {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Addresses(const EnvironmentScan& scan) {
  std::vector<std::string> out;
  for (const AllocatedDevice& d : scan.devices) out.push_back(d.pci_address + "=" + d.rdma_dev);
  return out;
}

bool HasRule(const Findings& findings, const std::string& rule) {
  for (const Finding& f : findings)
    if (f.rule == rule) return true;
  return false;
}

TEST(EnvironmentScan, ReadsBarcelonaFourResourcesWithInfo) {
  auto env = testing::PluginEnvironment(testing::BarcelonaDevices(), true, true);
  env.push_back("NCCL_DEBUG=INFO");
  EnvironmentScan scan = ScanEnvironment(env);
  EXPECT_TRUE(scan.plugin_vars_present);
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:1a:00.2=mlx5_6", "0000:1a:01.2=mlx5_7",
                                           "0000:9a:00.2=mlx5_10", "0000:9a:01.2=mlx5_11"));
  EXPECT_TRUE(scan.findings.empty());
  EXPECT_EQ(scan.vars.at("NCCL_DEBUG"), "INFO");
}

TEST(EnvironmentScan, KeepsHyphenatedResourceNames) {
  auto env = testing::PluginEnvironment(testing::OkeDevices(), true, true, "NVIDIA_COM_RDMA-VF");
  EnvironmentScan scan = ScanEnvironment(env);
  ASSERT_EQ(scan.devices.size(), 16u);
  EXPECT_EQ(scan.devices[0].resource_var, "PCIDEVICE_NVIDIA_COM_RDMA-VF");
  // kubelet's order of the list variable, not sorted
  EXPECT_EQ(scan.devices[0].pci_address, "0000:86:00.2");
  EXPECT_EQ(scan.devices[0].rdma_dev, "mlx5_32");
  EXPECT_EQ(scan.devices[1].rdma_dev, "mlx5_18");
}

TEST(EnvironmentScan, OldPluginWithoutInfoGivesAddressesOnly) {
  auto env = testing::PluginEnvironment(testing::BarcelonaDevices(), false, false);
  EnvironmentScan scan = ScanEnvironment(env);
  EXPECT_THAT(Addresses(scan),
              ElementsAre("0000:1a:00.2=", "0000:1a:01.2=", "0000:9a:00.2=", "0000:9a:01.2="));
}

TEST(EnvironmentScan, InfoWithoutRdmaDevGivesAddressesOnly) {
  auto env = testing::PluginEnvironment(testing::BarcelonaDevices(), true, false);
  EnvironmentScan scan = ScanEnvironment(env);
  EXPECT_THAT(Addresses(scan),
              ElementsAre("0000:1a:00.2=", "0000:1a:01.2=", "0000:9a:00.2=", "0000:9a:01.2="));
  EXPECT_TRUE(scan.findings.empty());
}

TEST(EnvironmentScan, MalformedJsonIsAWarningWithPositionAndTheListStillCounts) {
  EnvironmentScan scan =
      ScanEnvironment({"PCIDEVICE_OPENSHIFT_IO_ENO5NP0RDMA=0000:1a:00.2",
                       "PCIDEVICE_OPENSHIFT_IO_ENO5NP0RDMA_INFO={\"0000:1a:00.2\":{\"rdma\":"});
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:1a:00.2="));
  ASSERT_EQ(scan.findings.size(), 1u);
  EXPECT_EQ(scan.findings[0].rule, "env.info-json-malformed");
  EXPECT_EQ(scan.findings[0].severity, Severity::kWarning);
  EXPECT_THAT(scan.findings[0].where, HasSubstr("env PCIDEVICE_OPENSHIFT_IO_ENO5NP0RDMA_INFO:1:"));
}

TEST(EnvironmentScan, RejectsDeepNestingWithoutParsing) {
  std::string deep(100000, '[');
  EnvironmentScan scan = ScanEnvironment({"PCIDEVICE_X=0000:1a:00.2", "PCIDEVICE_X_INFO=" + deep});
  EXPECT_TRUE(HasRule(scan.findings, "env.info-json-malformed"));
  EXPECT_EQ(scan.devices.size(), 1u);
}

TEST(EnvironmentScan, OversizedInfoIsSkipped) {
  EnvironmentScan scan = ScanEnvironment(
      {"PCIDEVICE_X=0000:1a:00.2", "PCIDEVICE_X_INFO=" + std::string(kMaxInfoBytes + 1, ' ')});
  EXPECT_TRUE(HasRule(scan.findings, "env.info-too-large"));
  EXPECT_EQ(scan.devices.size(), 1u);
}

TEST(EnvironmentScan, WrongJsonShapesAreWarnings) {
  EXPECT_TRUE(
      HasRule(ScanEnvironment({"PCIDEVICE_X=0000:1a:00.2", "PCIDEVICE_X_INFO=[1,2]"}).findings,
              "env.info-not-object"));
  EXPECT_TRUE(
      HasRule(ScanEnvironment({"PCIDEVICE_X=0000:1a:00.2",
                               "PCIDEVICE_X_INFO={\"0000:1a:00.2\":{\"rdma\":{\"rdma_dev\":7}}}"})
                  .findings,
              "env.bad-rdma-dev"));
  // A name that would escape sysfs or break NCCL_IB_HCA is refused.
  EnvironmentScan scan = ScanEnvironment(
      {"PCIDEVICE_X=0000:1a:00.2",
       "PCIDEVICE_X_INFO={\"0000:1a:00.2\":{\"rdma\":{\"rdma_dev\":\"../../etc\"}}}"});
  EXPECT_TRUE(HasRule(scan.findings, "env.bad-rdma-dev"));
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:1a:00.2="));
}

TEST(EnvironmentScan, OnlyAllocatedAddressesCount) {
  EnvironmentScan scan =
      ScanEnvironment({"PCIDEVICE_X=0000:1a:00.2",
                       "PCIDEVICE_X_INFO={\"0000:1a:00.2\":{\"rdma\":{\"rdma_dev\":\"mlx5_6\"}},"
                       "\"0000:1a:01.2\":{\"rdma\":{\"rdma_dev\":\"mlx5_7\"}}}"});
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:1a:00.2=mlx5_6"));
  EXPECT_TRUE(HasRule(scan.findings, "env.info-unknown-address"));
}

TEST(EnvironmentScan, BadAddressesAndDuplicatesAreReportedAndSkipped) {
  EnvironmentScan scan = ScanEnvironment(
      {"PCIDEVICE_A=0000:1A:00.2, nonsense ,,", "PCIDEVICE_B=0000:1a:00.2,0000:9a:00.2"});
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:1a:00.2=", "0000:9a:00.2="));
  EXPECT_TRUE(HasRule(scan.findings, "env.bad-pci-address"));
  EXPECT_TRUE(HasRule(scan.findings, "env.duplicate-address"));
}

TEST(EnvironmentScan, NoPluginVariables) {
  EnvironmentScan scan = ScanEnvironment({"PATH=/bin", "HOME=/root", "junk-without-equals"});
  EXPECT_FALSE(scan.plugin_vars_present);
  EXPECT_TRUE(scan.devices.empty());
  EXPECT_EQ(scan.vars.size(), 2u);
}

TEST(EnvironmentScan, InfoWithoutListUsesItsKeys) {
  EnvironmentScan scan =
      ScanEnvironment({"PCIDEVICE_X_INFO={\"0000:1a:00.2\":{\"rdma\":{\"rdma_dev\":\"mlx5_6\"}}}"});
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:1a:00.2=mlx5_6"));
  EXPECT_TRUE(HasRule(scan.findings, "env.info-without-list"));
}

// Hostile or careless values: the scan stays linear, bounded, and says what it ignored.

const Finding* FindRule(const Findings& findings, const std::string& rule) {
  for (const Finding& f : findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

std::string AddressList(int count, int first = 0) {
  std::string list;
  for (int i = first; i < first + count; ++i) {
    char address[16];
    std::snprintf(address, sizeof(address), "0000:%02x:%02x.%d", (i >> 8) & 0xff, (i >> 3) & 0x1f,
                  i & 7);
    list += (list.empty() ? "" : ",") + std::string(address);
  }
  return list;
}

TEST(EnvironmentScan, EmptyAndCommaOnlyListsAllocateNothingAndSaySo) {
  for (const char* value : {"", ",", ",,,,,,", " , ,\t, "}) {
    EnvironmentScan scan = ScanEnvironment({std::string("PCIDEVICE_X=") + value});
    EXPECT_TRUE(scan.plugin_vars_present);
    EXPECT_TRUE(scan.devices.empty()) << value;
    EXPECT_TRUE(HasRule(scan.findings, "env.empty-allocation")) << value;
  }
}

TEST(EnvironmentScan, ThousandsOfAddressesInOneListAreCutAtTheLimitAndTheRestIsCounted) {
  EnvironmentScan scan = ScanEnvironment({"PCIDEVICE_X=" + AddressList(5000)});
  EXPECT_EQ(scan.devices.size(), kMaxListEntries);
  const Finding* f = FindRule(scan.findings, "env.too-many-addresses");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->where, "env PCIDEVICE_X");
  EXPECT_THAT(f->message, HasSubstr("5000 entries"));
  EXPECT_THAT(f->message, HasSubstr("ignoring " + std::to_string(5000 - kMaxListEntries)));
}

TEST(EnvironmentScan, ThousandsOfVariablesAreCutAtTheLimitAndTheRestIsNamed) {
  std::vector<std::string> env;
  for (int i = 0; i < 3000; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "PCIDEVICE_R%05d=", i);
    env.push_back(name + AddressList(1, i));
  }
  EnvironmentScan scan = ScanEnvironment(env);
  EXPECT_LE(scan.devices.size(), kMaxAllocatedDevices);
  const Finding* f = FindRule(scan.findings, "env.too-many-variables");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("3000 PCIDEVICE_* variables"));
  EXPECT_THAT(f->message,
              HasSubstr("from PCIDEVICE_R00" + std::to_string(kMaxPluginVariables) + " on"));
}

TEST(EnvironmentScan, DevicesBeyondTheTotalLimitAreCountedNotProbed) {
  const size_t half = kMaxAllocatedDevices / 2 + 10;
  EnvironmentScan scan =
      ScanEnvironment({"PCIDEVICE_A=" + AddressList(static_cast<int>(half)),
                       "PCIDEVICE_B=" + AddressList(static_cast<int>(half), static_cast<int>(half))});
  EXPECT_EQ(scan.devices.size(), kMaxAllocatedDevices);
  const Finding* f = FindRule(scan.findings, "env.too-many-devices");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("ignoring " + std::to_string(2 * half - kMaxAllocatedDevices)));
}

TEST(EnvironmentScan, AHugeTokenIsReportedWithAShortExcerpt) {
  EnvironmentScan scan = ScanEnvironment({"PCIDEVICE_X=" + std::string(128 * 1024, '7')});
  const Finding* f = FindRule(scan.findings, "env.bad-pci-address");
  ASSERT_NE(f, nullptr);
  EXPECT_LT(f->message.size(), 200u);
  EXPECT_TRUE(scan.devices.empty());
}

TEST(EnvironmentScan, NonPciAddressesAndBytesThatAreNotUtf8AreSkippedAndShownEscaped) {
  EnvironmentScan scan = ScanEnvironment(
      {"PCIDEVICE_X=0000:1a:00.2,\xff\xfe\x1b[31m,1a:00.2,0000:1a:00.9,mlx5_6,0000:1a:00.2/../x"});
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:1a:00.2="));
  int bad = 0;
  for (const Finding& f : scan.findings) {
    if (f.rule != "env.bad-pci-address") continue;
    ++bad;
    for (char c : f.message) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << f.message;
  }
  EXPECT_EQ(bad, 5);
}

TEST(EnvironmentScan, VariableNamesWithOddBytesAreIgnoredAndNamedEscaped) {
  EnvironmentScan scan =
      ScanEnvironment({"PCIDEVICE_\xff\x1b=0000:1a:00.2", "PCIDEVICE_ok=0000:9a:00.2"});
  EXPECT_THAT(Addresses(scan), ElementsAre("0000:9a:00.2="));
  const Finding* f = FindRule(scan.findings, "env.bad-variable-name");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("PCIDEVICE_\\xff\\x1b"));
}

TEST(PciAddress, AcceptsOnlyFullBdfs) {
  EXPECT_TRUE(IsPciAddress("0000:1a:00.2"));
  EXPECT_TRUE(IsPciAddress("10000:1a:00.7"));
  EXPECT_FALSE(IsPciAddress("0000:1a:00.8"));
  EXPECT_FALSE(IsPciAddress("1a:00.2"));
  EXPECT_FALSE(IsPciAddress("0000:1a:00.2/../x"));
  EXPECT_FALSE(IsPciAddress(""));
}

}  // namespace
}  // namespace hkim::wrapper
