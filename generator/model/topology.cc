// Topology stage helper: shape description -> NCCL topology XML.
//
// Bridge addresses: NCCL matches GPUs by PCI address and nets by RDMA device name, and places a
// matched device where the file puts it; bridges only need addresses that are unique. A switch
// is written as its upstream port (the description's bus_id) with one downstream port per
// GPU/NIC at <switch bus + 1>:<port index>.0, the layout of a real PCIe switch.

#include "model/topology.h"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace hkim {
namespace {

struct PairSpec {
  const char* gpu;
  const char* nic;
  const char* net_port1;
  const char* net_port2;  // nullptr for single-port
};

NodeTopology Describe(const char* preset, CpuVendor vendor, int family, int model,
                      const char* gpu_device, int sm, const char* nic_device, int64_t speed) {
  NodeTopology t;
  t.preset = preset;
  t.cpu_vendor = vendor;
  t.cpu_family = family;
  t.cpu_model = model;
  t.gpu_pci_device = gpu_device;
  t.gpu_sm = sm;
  t.nic_pci_device = nic_device;
  t.nic_speed_mbps = speed;
  return t;
}

// One switch per GPU/NIC pair (H100 layout, FACTS.md §6.3).
PcieSwitch PairSwitch(const char* switch_bus, const PairSpec& pair) {
  PcieSwitch s;
  s.bus_id = switch_bus;
  s.gpu_bus_ids.push_back(pair.gpu);
  TopologyNic nic{pair.nic, {pair.net_port1}};
  if (pair.net_port2) nic.rdma_devices.push_back(pair.net_port2);
  s.nics.push_back(nic);
  return s;
}

// One switch holding two GPUs and two NICs (A100 / GPU4 layout, FACTS.md §6.3).
PcieSwitch QuadSwitch(const char* switch_bus, const PairSpec& a, const PairSpec& b) {
  PcieSwitch s;
  s.bus_id = switch_bus;
  s.gpu_bus_ids = {a.gpu, b.gpu};
  s.nics.push_back(TopologyNic{a.nic, {a.net_port1, a.net_port2}});
  s.nics.push_back(TopologyNic{b.nic, {b.net_port1, b.net_port2}});
  return s;
}

NodeTopology H100Oci() {
  // BM.GPU.H100.8: Sapphire Rapids (family 6 model 143), 2 NUMA nodes, one dual-port CX-7 per
  // GPU; VF names mlx5_18..33 as in oci-hpc-oke@3c67f9ba manifests/topology/BM.GPU.H100.8.xml.
  NodeTopology t =
      Describe("BM.GPU.H100.8", CpuVendor::kIntel, 6, 143, "0x2330", 90, "0x1021", 180000);
  NumaNode n0{0, "00000000,000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff", {}};
  n0.pcie_switches = {
      PairSwitch("0000:08:00.0", {"0000:0f:00.0", "0000:0c:00.0", "mlx5_18", "mlx5_19"}),
      PairSwitch("0000:26:00.0", {"0000:2d:00.0", "0000:2a:00.0", "mlx5_26", "mlx5_27"}),
      PairSwitch("0000:3d:00.0", {"0000:44:00.0", "0000:41:00.0", "mlx5_28", "mlx5_29"}),
      PairSwitch("0000:54:00.0", {"0000:5b:00.0", "0000:58:00.0", "mlx5_30", "mlx5_31"})};
  NumaNode n1{1, "ffffffff,ffffff00,00000000,0000ffff,ffffffff,ff000000,00000000", {}};
  n1.pcie_switches = {
      PairSwitch("0000:82:00.0", {"0000:89:00.0", "0000:86:00.0", "mlx5_32", "mlx5_33"}),
      PairSwitch("0000:a1:00.0", {"0000:a8:00.0", "0000:a5:00.0", "mlx5_20", "mlx5_21"}),
      PairSwitch("0000:b9:00.0", {"0000:c0:00.0", "0000:bd:00.0", "mlx5_22", "mlx5_23"}),
      PairSwitch("0000:d1:00.0", {"0000:d8:00.0", "0000:d5:00.0", "mlx5_24", "mlx5_25"})};
  t.numa_nodes = {n0, n1};
  return t;
}

// BM.GPU.A100-v2.8 and BM.GPU4.8 share the layout: 4 NUMA nodes (3, 1, 7, 5), each with one
// switch holding two GPUs and two dual-port NICs.
NodeTopology A100Oci(const char* preset, int cpu_model, int family, const char* gpu_device,
                     const char* const gpus[8], const char* const nics[8]) {
  NodeTopology t =
      Describe(preset, CpuVendor::kAmd, family, cpu_model, gpu_device, 80, "0x1019", 100000);
  const char* nets[8][2] = {{"mlx5_18", "mlx5_19"}, {"mlx5_26", "mlx5_27"}, {"mlx5_28", "mlx5_29"},
                            {"mlx5_30", "mlx5_31"}, {"mlx5_32", "mlx5_33"}, {"mlx5_20", "mlx5_21"},
                            {"mlx5_22", "mlx5_23"}, {"mlx5_24", "mlx5_25"}};
  const int numa_ids[4] = {3, 1, 7, 5};
  const char* switches[4] = {"0000:08:00.0", "0000:43:00.0", "0000:85:00.0", "0000:bf:00.0"};
  for (int i = 0; i < 4; ++i) {
    NumaNode node{numa_ids[i], "", {}};
    const int a = 2 * i, b = 2 * i + 1;
    node.pcie_switches.push_back(QuadSwitch(switches[i], {gpus[a], nics[a], nets[a][0], nets[a][1]},
                                            {gpus[b], nics[b], nets[b][0], nets[b][1]}));
    t.numa_nodes.push_back(node);
  }
  return t;
}

NodeTopology Barcelona() {
  // Barcelona H100 node (FACTS.md Barcelona §1-2): AMD EPYC 9754 (NCCL family id 175, model
  // 160), 4 H100 80GB HBM3, 4 ConnectX-7 400G ports eno5np0..eno8np0 at 03/23/a3/c3:00.0, each
  // exposing one VF (mlx5_6..mlx5_9 in the pod since July 2026). GPU0/1 + first two NICs on
  // NUMA 0, GPU2/3 + the others on NUMA 1. The GPU addresses are an assumption (one GPU behind
  // the root complex of each NIC); check with NCCL_TOPO_DUMP_FILE and override with a custom
  // description if they differ. CPU masks are unknown, so no affinity is written.
  NodeTopology t =
      Describe("barcelona-h100-cx7", CpuVendor::kAmd, 175, 160, "0x2330", 90, "0x1021", 400000);
  NumaNode n0{0, "", {}};
  n0.pcie_switches = {
      PairSwitch("0000:01:00.0", {"0000:05:00.0", "0000:03:00.0", "mlx5_6", nullptr}),
      PairSwitch("0000:21:00.0", {"0000:25:00.0", "0000:23:00.0", "mlx5_7", nullptr})};
  NumaNode n1{1, "", {}};
  n1.pcie_switches = {
      PairSwitch("0000:a1:00.0", {"0000:a5:00.0", "0000:a3:00.0", "mlx5_8", nullptr}),
      PairSwitch("0000:c1:00.0", {"0000:c5:00.0", "0000:c3:00.0", "mlx5_9", nullptr})};
  t.numa_nodes = {n0, n1};
  // Synthetic: GPU addresses and switches assumed, RDMA names that have moved before (mlx5_10 ->
  // mlx5_8), and no working Barcelona manifest set NCCL_TOPO_FILE. A wrong file misplaces
  // devices for NCCL, so the bundle ships it only when the profile says it was checked.
  t.verified = false;
  return t;
}

int ParseHexByte(const std::string& text) {
  unsigned value = 0;
  std::sscanf(text.c_str(), "%x", &value);
  return static_cast<int>(value);
}

// "0000:08:00.0" -> "0000:09:<port>.0" (the switch's internal bus).
std::string DownstreamPort(const std::string& switch_bus, int port) {
  const std::string domain = switch_bus.substr(0, 4);
  const int bus = ParseHexByte(switch_bus.substr(5, 2)) + 1;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s:%02x:%02x.0", domain.c_str(), bus & 0xff, port & 0x1f);
  return buffer;
}

// The PCIe generation of the tree. Ampere-class GPUs (sm < 90) and their ConnectX-5/6 NICs sit
// behind Gen4 switches (Broadcom 0xc010, 16 GT/s: OCI's A100-v2.8 and GPU4.8 files); Hopper
// behind Gen5 (0xc030, 32 GT/s). NCCL reads link speeds for its PCIe bandwidth model, so a Gen5
// claim on a Gen4 machine overstates the GPU-NIC path.
struct PcieGeneration {
  const char* switch_device;
  const char* link_speed;
};

PcieGeneration GenerationOf(const NodeTopology& t) {
  if (t.gpu_sm >= 90) return {"0xc030", "32.0 GT/s PCIe"};
  return {"0xc010", "16.0 GT/s PCIe"};
}

std::string BridgeAttrs(const PcieGeneration& gen) {
  return std::string("class=\"0x060400\" vendor=\"0x1000\" device=\"") + gen.switch_device +
         "\" subsystem_vendor=\"0x1000\" subsystem_device=\"0xa064\" link_speed=\"" +
         gen.link_speed + "\" link_width=\"16\"";
}

}  // namespace

std::vector<std::string> TopologyPresetNames() {
  return {"BM.GPU.A100-v2.8", "BM.GPU.H100.8", "BM.GPU4.8", "barcelona-h100-cx7"};
}

std::optional<NodeTopology> TopologyPreset(const std::string& name) {
  if (name == "BM.GPU.H100.8") return H100Oci();
  if (name == "BM.GPU.A100-v2.8") {
    static const char* const gpus[8] = {"0000:0f:00.0", "0000:15:00.0", "0000:50:00.0",
                                        "0000:53:00.0", "0000:8c:00.0", "0000:91:00.0",
                                        "0000:d6:00.0", "0000:da:00.0"};
    static const char* const nics[8] = {"0000:0c:00.0", "0000:16:00.0", "0000:47:00.0",
                                        "0000:4b:00.0", "0000:89:00.0", "0000:93:00.0",
                                        "0000:c3:00.0", "0000:d1:00.0"};
    return A100Oci("BM.GPU.A100-v2.8", 1, 175, "0x20b2", gpus, nics);
  }
  if (name == "BM.GPU4.8") {
    static const char* const gpus[8] = {"0000:0f:00.0", "0000:15:00.0", "0000:51:00.0",
                                        "0000:54:00.0", "0000:8d:00.0", "0000:92:00.0",
                                        "0000:d6:00.0", "0000:da:00.0"};
    static const char* const nics[8] = {"0000:0c:00.0", "0000:16:00.0", "0000:48:00.0",
                                        "0000:4c:00.0", "0000:8a:00.0", "0000:94:00.0",
                                        "0000:c3:00.0", "0000:d1:00.0"};
    return A100Oci("BM.GPU4.8", 49, 143, "0x20b0", gpus, nics);
  }
  if (name == "barcelona-h100-cx7") return Barcelona();
  return std::nullopt;
}

std::vector<std::string> CheckTopology(const NodeTopology& topology) {
  std::vector<std::string> problems;
  std::map<std::string, std::string> addresses;  // bus id -> what uses it
  std::set<std::string> nets;
  auto claim = [&](const std::string& bus, const std::string& what) {
    auto [it, inserted] = addresses.emplace(bus, what);
    if (!inserted)
      problems.push_back("PCI address " + bus + " is used by " + it->second + " and by " + what);
  };
  for (const NumaNode& node : topology.numa_nodes) {
    for (const PcieSwitch& s : node.pcie_switches) {
      claim(s.bus_id, "switch " + s.bus_id);
      int port = 0;
      for (const std::string& gpu : s.gpu_bus_ids) {
        claim(DownstreamPort(s.bus_id, port), "a port of switch " + s.bus_id);
        claim(gpu, "GPU " + gpu);
        ++port;
      }
      for (const TopologyNic& nic : s.nics) {
        claim(DownstreamPort(s.bus_id, port), "a port of switch " + s.bus_id);
        claim(nic.bus_id, "NIC " + nic.bus_id);
        ++port;
        for (const std::string& net : nic.rdma_devices) {
          if (!nets.insert(net).second) problems.push_back("RDMA device " + net + " appears twice");
        }
      }
    }
  }
  return problems;
}

std::string RenderTopologyXml(const NodeTopology& t) {
  if (t.empty()) return "";
  std::ostringstream out;
  const char* vendor = t.cpu_vendor == CpuVendor::kAmd ? "AuthenticAMD" : "GenuineIntel";
  const PcieGeneration gen = GenerationOf(t);
  const std::string bridge = BridgeAttrs(gen);
  out << "<system version=\"1\">\n";
  int net_dev = 0;
  int gpu_dev = 0;
  for (const NumaNode& node : t.numa_nodes) {
    out << "  <cpu numaid=\"" << node.id << "\"";
    if (!node.cpu_affinity.empty()) out << " affinity=\"" << node.cpu_affinity << "\"";
    out << " arch=\"x86_64\" vendor=\"" << vendor << "\"";
    if (t.cpu_family) out << " familyid=\"" << t.cpu_family << "\"";
    if (t.cpu_model) out << " modelid=\"" << t.cpu_model << "\"";
    out << ">\n";
    for (const PcieSwitch& s : node.pcie_switches) {
      out << "    <pci busid=\"" << s.bus_id << "\" " << bridge << ">\n";
      int port = 0;
      for (const std::string& gpu : s.gpu_bus_ids) {
        out << "      <pci busid=\"" << DownstreamPort(s.bus_id, port++) << "\" " << bridge << ">\n";
        out << "        <pci busid=\"" << gpu << "\" class=\"0x030200\" vendor=\"0x10de\" device=\""
            << t.gpu_pci_device << "\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x16c1\" "
            << "link_speed=\"" << gen.link_speed << "\" link_width=\"16\">\n";
        out << "          <gpu dev=\"" << gpu_dev << "\" sm=\"" << t.gpu_sm << "\" rank=\""
            << gpu_dev << "\" gdr=\"1\"/>\n";
        out << "        </pci>\n      </pci>\n";
        ++gpu_dev;
      }
      for (const TopologyNic& nic : s.nics) {
        out << "      <pci busid=\"" << DownstreamPort(s.bus_id, port++) << "\" " << bridge << ">\n";
        out << "        <pci busid=\"" << nic.bus_id << "\" class=\"0x020000\" vendor=\"0x15b3\" "
            << "device=\"" << t.nic_pci_device << "\" subsystem_vendor=\"0x15b3\" "
            << "subsystem_device=\"0x0026\" link_speed=\"" << gen.link_speed
            << "\" link_width=\"16\">\n";
        out << "          <nic>\n";
        int port_number = 1;
        for (const std::string& net : nic.rdma_devices) {
          out << "            <net name=\"" << net << "\" dev=\"" << net_dev++ << "\" speed=\""
              << t.nic_speed_mbps << "\" port=\"" << port_number++
              << "\" latency=\"0.000000\" maxconn=\"131072\" gdr=\"1\"/>\n";
        }
        out << "          </nic>\n        </pci>\n      </pci>\n";
      }
      out << "    </pci>\n";
    }
    out << "  </cpu>\n";
  }
  out << "</system>\n";
  return out.str();
}

}  // namespace hkim
