#include "sysfs_fixture.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace hkim::wrapper::testing {
namespace fs = std::filesystem;
namespace {

std::string Hex2(int v) {
  char buffer[3];
  std::snprintf(buffer, sizeof(buffer), "%02x", v & 0xff);
  return buffer;
}

// a.b.c.d -> "0000:0000:0000:0000:0000:ffff:aabb:ccdd"
std::string MappedGid(const std::string& ipv4) {
  int a, b, c, d;
  if (std::sscanf(ipv4.c_str(), "%d.%d.%d.%d", &a, &b, &c, &d) != 4)
    throw std::runtime_error("bad ip");
  return "0000:0000:0000:0000:0000:ffff:" + Hex2(a) + Hex2(b) + ":" + Hex2(c) + Hex2(d);
}

std::string LinkLocalGid(int seed) {
  return "fe80:0000:0000:0000:a05e:0dff:fe11:" + Hex2(seed >> 8) + Hex2(seed);
}

}  // namespace

SysfsFixture::SysfsFixture() {
  std::string pattern = (fs::temp_directory_path() / "hkim-sysfs-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = pattern;
}

SysfsFixture::SysfsFixture(std::string root, bool keep) : root_(std::move(root)), keep_(keep) {
  fs::create_directories(root_);
}

SysfsFixture::~SysfsFixture() {
  if (keep_) return;
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void SysfsFixture::WriteFile(const std::string& path, const std::string& content) {
  fs::path full = fs::path(root_) / path;
  fs::create_directories(full.parent_path());
  std::ofstream(full) << content << "\n";
}

void SysfsFixture::Symlink(const std::string& path, const std::string& target) {
  fs::path full = fs::path(root_) / path;
  fs::create_directories(full.parent_path());
  std::error_code ec;
  fs::remove(full, ec);
  fs::create_symlink(target, full);
}

void SysfsFixture::Remove(const std::string& path) { fs::remove_all(fs::path(root_) / path); }

void SysfsFixture::AddIommuGroupType(int group, const std::string& type) {
  WriteFile("kernel/iommu_groups/" + std::to_string(group) + "/type", type);
}

void SysfsFixture::AddPeermem() { WriteFile("module/nvidia_peermem/version", "570.124.06"); }

void SysfsFixture::AddEth0() {
  WriteFile("devices/virtual/net/eth0/operstate", "up");
  Symlink("class/net/eth0", "../../devices/virtual/net/eth0");
}

void SysfsFixture::AddDevice(const FixtureDevice& d) {
  const std::string function = "devices/" + d.bridges + "/" + d.pci;
  WriteFile(function + "/vendor", "0x15b3");
  WriteFile(function + "/device", d.pf_pci.empty() ? "0x1021" : "0x101e");
  WriteFile(function + "/class", "0x020000");
  WriteFile(function + "/numa_node", std::to_string(d.numa_node));
  Symlink("bus/pci/devices/" + d.pci, "../../../" + function);
  if (!d.pf_pci.empty()) {
    const std::string pf = "devices/" + d.bridges + "/" + d.pf_pci;
    WriteFile(pf + "/vendor", "0x15b3");
    WriteFile(pf + "/device", "0x1021");
    Symlink(pf + "/virtfn0", "../" + d.pci);
    Symlink("bus/pci/devices/" + d.pf_pci, "../../../" + pf);
    Symlink(function + "/physfn", "../" + d.pf_pci);
  }
  if (d.iommu_group >= 0) {
    int depth = 1 + static_cast<int>(std::count(function.begin(), function.end(), '/'));
    std::string up;
    for (int i = 0; i < depth; ++i) up += "../";
    Symlink(function + "/iommu_group", up + "kernel/iommu_groups/" + std::to_string(d.iommu_group));
  }
  if (!d.netdev.empty()) {
    WriteFile(function + "/net/" + d.netdev + "/operstate", "up");
    WriteFile(function + "/net/" + d.netdev + "/mtu", "9000");
    Symlink("class/net/" + d.netdev, "../../" + function + "/net/" + d.netdev);
  }
  const std::string ib = function + "/infiniband/" + d.name;
  WriteFile(ib + "/node_type", "1: CA");
  WriteFile(ib + "/hca_type", d.pf_pci.empty() ? "MT4129" : "MT4126");
  WriteFile(ib + "/fw_ver", "28.42.1000");
  Symlink(ib + "/device", "../../../" + d.pci);
  Symlink("class/infiniband/" + d.name, "../../" + ib);
  std::string number = d.name.substr(d.name.find_last_of('_') + 1);
  WriteFile(function + "/infiniband_verbs/uverbs" + number + "/ibdev", d.name);

  const std::string port = ib + "/ports/1";
  WriteFile(port + "/state", d.state);
  WriteFile(port + "/phys_state", d.phys_state);
  WriteFile(port + "/link_layer", d.link_layer);
  WriteFile(port + "/rate", d.rate);
  std::map<int, GidSlot> table = d.gids;
  const std::string ndev = d.gid_ndev.empty() ? d.netdev : d.gid_ndev;
  if (table.empty()) {
    int seed = std::atoi(number.c_str());
    table[0] = {LinkLocalGid(seed), "IB/RoCE v1", ndev};
    table[1] = {LinkLocalGid(seed), "RoCE v2", ndev};
    if (!d.ipv4.empty()) {
      table[2] = {MappedGid(d.ipv4), "IB/RoCE v1", ndev};
      table[3] = {MappedGid(d.ipv4), "RoCE v2", ndev};
    }
  }
  for (int i = 0; i < d.gid_slots; ++i) {
    auto it = table.find(i);
    const std::string index = std::to_string(i);
    if (it == table.end()) {
      WriteFile(port + "/gids/" + index, "0000:0000:0000:0000:0000:0000:0000:0000");
      continue;
    }
    WriteFile(port + "/gids/" + index, it->second.gid);
    if (!it->second.type.empty()) WriteFile(port + "/gid_attrs/types/" + index, it->second.type);
    if (!it->second.ndev.empty()) WriteFile(port + "/gid_attrs/ndevs/" + index, it->second.ndev);
  }
}

std::vector<FixtureDevice> BarcelonaDevices(bool february) {
  const char* names_now[] = {"mlx5_6", "mlx5_7", "mlx5_10", "mlx5_11"};
  const char* names_feb[] = {"mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"};
  const char* vfs[] = {"0000:1a:00.2", "0000:1a:01.2", "0000:9a:00.2", "0000:9a:01.2"};
  const char* pfs[] = {"0000:1a:00.0", "0000:1a:00.1", "0000:9a:00.0", "0000:9a:00.1"};
  const char* bridges[] = {"pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0",
                           "pci0000:95/0000:95:01.0/0000:96:00.0/0000:97:01.0"};
  const int groups[] = {87, 88, 203, 204};
  std::vector<FixtureDevice> out;
  for (int i = 0; i < 4; ++i) {
    FixtureDevice d;
    d.name = february ? names_feb[i] : names_now[i];
    d.pci = vfs[i];
    d.pf_pci = pfs[i];
    d.bridges = bridges[i / 2];
    d.netdev = "net" + std::to_string(i + 1);
    d.ipv4 = "10.0." + std::to_string(103 + i) + ".21";
    d.numa_node = i / 2;
    d.iommu_group = groups[i];
    out.push_back(d);
  }
  return out;
}

std::vector<FixtureDevice> OkeDevices() {
  // FIXTURES.md B.2: netN, VF BDF, RDMA device, NUMA.
  const struct {
    const char* pci;
    const char* name;
    int numa;
  } rows[] = {{"0000:86:00.2", "mlx5_32", 1}, {"0000:0c:00.2", "mlx5_18", 0},
              {"0000:a5:00.2", "mlx5_20", 1}, {"0000:2a:00.2", "mlx5_26", 0},
              {"0000:bd:00.2", "mlx5_22", 1}, {"0000:41:00.2", "mlx5_28", 0},
              {"0000:d5:00.2", "mlx5_24", 1}, {"0000:58:00.2", "mlx5_30", 0},
              {"0000:86:01.2", "mlx5_33", 1}, {"0000:0c:01.2", "mlx5_19", 0},
              {"0000:a5:01.2", "mlx5_21", 1}, {"0000:2a:01.2", "mlx5_27", 0},
              {"0000:bd:01.2", "mlx5_23", 1}, {"0000:41:01.2", "mlx5_29", 0},
              {"0000:d5:01.2", "mlx5_25", 1}, {"0000:58:01.2", "mlx5_31", 0}};
  std::vector<FixtureDevice> out;
  for (int i = 0; i < 16; ++i) {
    FixtureDevice d;
    d.name = rows[i].name;
    d.pci = rows[i].pci;
    std::string bus = d.pci.substr(5, 2);
    d.pf_pci = "0000:" + bus + (i < 8 ? ":00.0" : ":00.1");
    d.bridges = "pci0000:" + bus + "/0000:" + bus + ":01.0";
    d.netdev = "net" + std::to_string(i + 1);
    d.ipv4 = "192.168.0." + std::to_string(101 + i);
    d.numa_node = rows[i].numa;
    d.rate = "200 Gb/sec (4X HDR)";
    d.iommu_group = 300 + i;
    out.push_back(d);
  }
  return out;
}

std::vector<FixtureDevice> HostPfDevices(int count) {
  std::vector<FixtureDevice> out;
  for (int i = 0; i < count; ++i) {
    FixtureDevice d;
    d.name = "mlx5_" + std::to_string(i);
    d.pci = "0000:" + Hex2(0x20 + i) + ":00.0";
    d.bridges = "pci0000:" + Hex2(0x20 + i);
    d.netdev = "";
    d.gid_ndev = "eno" + std::to_string(i) + "np0";  // the host's name, not visible in the pod
    d.ipv4 = "10.1.0." + std::to_string(i + 1);
    out.push_back(d);
  }
  return out;
}

std::vector<std::string> PluginEnvironment(const std::vector<FixtureDevice>& devices,
                                           bool with_info, bool with_rdma_dev,
                                           const std::string& one_resource) {
  std::vector<std::string> env;
  auto info_entry = [&](const FixtureDevice& d) {
    std::string n = d.name.substr(d.name.find_last_of('_') + 1);
    std::string rdma = "{\"issm\":\"/dev/infiniband/issm" + n +
                       "\",\"rdma_cm\":\"/dev/infiniband/rdma_cm\"," +
                       (with_rdma_dev ? "\"rdma_dev\":\"" + d.name + "\"," : std::string()) +
                       "\"umad\":\"/dev/infiniband/umad" + n +
                       "\",\"uverbs\":\"/dev/infiniband/uverbs" + n + "\"}";
    return "\"" + d.pci + "\":{\"generic\":{\"deviceID\":\"" + d.pci + "\"},\"rdma\":" + rdma + "}";
  };
  if (!one_resource.empty()) {
    std::string list, info;
    std::map<std::string, std::string> sorted;  // Go sorts map keys
    for (const FixtureDevice& d : devices) {
      list += (list.empty() ? "" : ",") + d.pci;
      sorted[d.pci] = info_entry(d);
    }
    for (const auto& [pci, entry] : sorted) info += (info.empty() ? "" : ",") + entry;
    env.push_back("PCIDEVICE_" + one_resource + "=" + list);
    if (with_info) env.push_back("PCIDEVICE_" + one_resource + "_INFO={" + info + "}");
    return env;
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string var = "PCIDEVICE_OPENSHIFT_IO_ENO" + std::to_string(5 + i) + "NP0RDMA";
    env.push_back(var + "=" + devices[i].pci);
    if (with_info) env.push_back(var + "_INFO={" + info_entry(devices[i]) + "}");
  }
  return env;
}

void BuildPod(SysfsFixture* fixture, const std::vector<FixtureDevice>& devices) {
  for (const FixtureDevice& d : devices) {
    fixture->AddDevice(d);
    if (d.iommu_group >= 0) fixture->AddIommuGroupType(d.iommu_group, "identity");
  }
  fixture->AddEth0();
  fixture->AddPeermem();
}

}  // namespace hkim::wrapper::testing
