// Topology: presets describe the shipped shapes; the XML has NCCL's structure.
#include "model/topology.h"

#include <gtest/gtest.h>

#include <regex>

namespace hkim {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Topology, PresetsAreListedAndFound) {
  for (const std::string& name : TopologyPresetNames()) {
    auto preset = TopologyPreset(name);
    ASSERT_TRUE(preset) << name;
    EXPECT_EQ(preset->preset, name);
    EXPECT_TRUE(CheckTopology(*preset).empty()) << name << ": " << CheckTopology(*preset)[0];
  }
  EXPECT_FALSE(TopologyPreset("BM.GPU.H200.8"));
}

TEST(Topology, H100PresetPairsEachGpuWithItsNicUnderOneSwitch) {
  const NodeTopology t = *TopologyPreset("BM.GPU.H100.8");
  ASSERT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_EQ(t.cpu_vendor, CpuVendor::kIntel);
  const PcieSwitch& first = t.numa_nodes[0].pcie_switches[0];
  EXPECT_EQ(first.gpu_bus_ids, std::vector<std::string>{"0000:0f:00.0"});
  ASSERT_EQ(first.nics.size(), 1u);
  EXPECT_EQ(first.nics[0].bus_id, "0000:0c:00.0");
  EXPECT_EQ(first.nics[0].rdma_devices, (std::vector<std::string>{"mlx5_18", "mlx5_19"}));
  // GPU a8 on NUMA 1 pairs with NIC a5 = mlx5_20/21 (FACTS.md §6.3).
  const PcieSwitch& sixth = t.numa_nodes[1].pcie_switches[1];
  EXPECT_EQ(sixth.gpu_bus_ids[0], "0000:a8:00.0");
  EXPECT_EQ(sixth.nics[0].rdma_devices[0], "mlx5_20");
}

TEST(Topology, A100PresetsPutTwoGpusAndTwoNicsPerSwitchOnFourNumaNodes) {
  for (const char* name : {"BM.GPU.A100-v2.8", "BM.GPU4.8"}) {
    const NodeTopology t = *TopologyPreset(name);
    ASSERT_EQ(t.numa_nodes.size(), 4u) << name;
    EXPECT_EQ(t.numa_nodes[0].id, 3);
    EXPECT_EQ(t.numa_nodes[1].id, 1);
    EXPECT_EQ(t.cpu_vendor, CpuVendor::kAmd);
    for (const NumaNode& n : t.numa_nodes) {
      ASSERT_EQ(n.pcie_switches.size(), 1u);
      EXPECT_EQ(n.pcie_switches[0].gpu_bus_ids.size(), 2u);
      EXPECT_EQ(n.pcie_switches[0].nics.size(), 2u);
    }
  }
  EXPECT_EQ(TopologyPreset("BM.GPU4.8")->gpu_pci_device, "0x20b0");
  EXPECT_EQ(TopologyPreset("BM.GPU.A100-v2.8")->gpu_pci_device, "0x20b2");
}

TEST(Topology, XmlHasNcclStructure) {
  const std::string xml = RenderTopologyXml(*TopologyPreset("BM.GPU.H100.8"));
  EXPECT_EQ(xml.rfind("<system version=\"1\">\n", 0), 0u);
  EXPECT_EQ(Count(xml, "<cpu "), 2);
  EXPECT_EQ(Count(xml, "<gpu "), 8);
  EXPECT_EQ(Count(xml, "<nic>"), 8);
  EXPECT_EQ(Count(xml, "<net "), 16);
  EXPECT_NE(xml.find("vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\""), std::string::npos);
  EXPECT_NE(xml.find("<net name=\"mlx5_18\" dev=\"0\" speed=\"180000\" port=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<net name=\"mlx5_19\" dev=\"1\" speed=\"180000\" port=\"2\""),
            std::string::npos);
  // GPU 0 sits two bridges below the CPU: switch, then its downstream port.
  EXPECT_NE(xml.find("<pci busid=\"0000:08:00.0\" class=\"0x060400\""), std::string::npos);
  EXPECT_NE(xml.find("<pci busid=\"0000:09:00.0\" class=\"0x060400\""), std::string::npos);
  EXPECT_NE(xml.find("<pci busid=\"0000:0f:00.0\" class=\"0x030200\" vendor=\"0x10de\" "
                     "device=\"0x2330\""),
            std::string::npos);
  // Every opened element is closed (well-formed nesting, counted per tag).
  for (const char* tag : {"system", "cpu", "pci", "nic"}) {
    const std::regex open("<" + std::string(tag) + "[ >]");
    const std::ptrdiff_t opened =
        std::distance(std::sregex_iterator(xml.begin(), xml.end(), open), std::sregex_iterator());
    EXPECT_EQ(opened, Count(xml, "</" + std::string(tag) + ">")) << tag;
  }
  EXPECT_EQ(xml, RenderTopologyXml(*TopologyPreset("BM.GPU.H100.8")));  // deterministic
}

// OCI's A100 files are PCIe Gen4 (switch 0xc010, 16 GT/s); a Gen5 claim overstates the
// GPU-NIC path in NCCL's bandwidth model.
TEST(Topology, A100PresetsArePcieGen4AndH100PresetsGen5) {
  for (const char* name : {"BM.GPU4.8", "BM.GPU.A100-v2.8"}) {
    const std::string xml = RenderTopologyXml(*TopologyPreset(name));
    EXPECT_NE(xml.find("device=\"0xc010\""), std::string::npos) << name;
    EXPECT_NE(xml.find("16.0 GT/s PCIe"), std::string::npos) << name;
    EXPECT_EQ(xml.find("0xc030"), std::string::npos) << name;
    EXPECT_EQ(xml.find("32.0 GT/s"), std::string::npos) << name;
  }
  for (const char* name : {"BM.GPU.H100.8", "barcelona-h100-cx7"}) {
    const std::string xml = RenderTopologyXml(*TopologyPreset(name));
    EXPECT_NE(xml.find("device=\"0xc030\""), std::string::npos) << name;
    EXPECT_EQ(xml.find("16.0 GT/s"), std::string::npos) << name;
  }
}

TEST(Topology, BarcelonaPresetUsesTheVfNamesAndSinglePorts) {
  const std::string xml = RenderTopologyXml(*TopologyPreset("barcelona-h100-cx7"));
  EXPECT_EQ(Count(xml, "<gpu "), 4);
  EXPECT_EQ(Count(xml, "<net "), 4);
  for (const char* net : {"mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"})
    EXPECT_NE(xml.find("name=\"" + std::string(net) + "\""), std::string::npos) << net;
  EXPECT_NE(xml.find("vendor=\"AuthenticAMD\""), std::string::npos);
  EXPECT_EQ(xml.find("affinity="), std::string::npos);  // unknown, so not invented
  EXPECT_NE(xml.find("speed=\"400000\""), std::string::npos);
}

TEST(Topology, OnlyThePresetsTakenFromOciFilesAreVerified) {
  for (const std::string& name : TopologyPresetNames())
    EXPECT_EQ(TopologyPreset(name)->verified, name != "barcelona-h100-cx7") << name;
}

TEST(Topology, EmptyDescriptionRendersNothing) { EXPECT_EQ(RenderTopologyXml(NodeTopology{}), ""); }

TEST(Topology, CheckFindsCollidingAddresses) {
  NodeTopology t = *TopologyPreset("barcelona-h100-cx7");
  // A GPU placed on the switch's internal bus collides with its first downstream port.
  t.numa_nodes[0].pcie_switches[0].gpu_bus_ids[0] = "0000:02:00.0";
  const auto problems = CheckTopology(t);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "PCI address 0000:02:00.0 is used by a port of switch 0000:01:00.0 and by GPU "
            "0000:02:00.0");
}

}  // namespace
}  // namespace hkim
