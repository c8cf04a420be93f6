#pragma once

#include <map>
#include <string>
#include <vector>

namespace hkim::wrapper::testing {

/// One GID table slot. Empty slots have no types/ndevs files (the kernel's EINVAL on read is
/// represented by a read failure).
struct GidSlot {
  std::string gid;   ///< as sysfs prints it
  std::string type;  ///< "IB/RoCE v1" / "RoCE v2"; "" = read fails
  std::string ndev;  ///< "" = read fails
};

/// An RDMA device the way the kernel lays it out (FIXTURES.md A.4-A.6): the PCI function under
/// its bridges, the class/infiniband and bus/pci/devices symlinks, its netdev and GID table.
struct FixtureDevice {
  std::string name;    ///< mlx5_6
  std::string pci;     ///< 0000:1a:00.2
  std::string pf_pci;  ///< 0000:1a:00.0; "" = a PF itself (no physfn)
  std::string bridges = "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0";
  std::string netdev;    ///< net1; "" = no netdev in this pod
  std::string ipv4;      ///< 10.0.103.21: standard table gets it at 2 (v1) and 3 (v2)
  std::string gid_ndev;  ///< ndev written in the table; default = netdev
  int numa_node = 0;
  int iommu_group = -1;  ///< -1: no iommu_group link
  std::string state = "4: ACTIVE";
  std::string phys_state = "5: LinkUp";
  std::string link_layer = "Ethernet";
  std::string rate = "400 Gb/sec (4X NDR)";
  int gid_slots = 16;           ///< files 0..gid_slots-1 in gids/
  std::map<int, GidSlot> gids;  ///< overrides; empty = the standard table (0,1 fe80; 2,3 IPv4)
};

/// A temporary /sys tree, removed with the object.
class SysfsFixture {
 public:
  SysfsFixture();
  /// A tree at `root` (created); kept on destruction when `keep`.
  SysfsFixture(std::string root, bool keep);
  ~SysfsFixture();
  SysfsFixture(const SysfsFixture&) = delete;
  SysfsFixture& operator=(const SysfsFixture&) = delete;

  const std::string& root() const { return root_; }
  void AddDevice(const FixtureDevice& device);
  void AddIommuGroupType(int group, const std::string& type);
  void AddPeermem();
  void AddEth0();
  /// Writes `content` + "\n" at root-relative `path`, creating folders.
  void WriteFile(const std::string& path, const std::string& content);
  void Symlink(const std::string& path, const std::string& target);
  void Remove(const std::string& path);

 private:
  std::string root_;
  bool keep_ = false;
};

/// Fixture A: Barcelona's 4 VFs. `february` gives mlx5_6,7,8,9 instead of mlx5_6,7,10,11.
std::vector<FixtureDevice> BarcelonaDevices(bool february = false);
/// Fixture B: OKE BM.GPU.H100.8, 16 VFs mlx5_18..mlx5_33.
std::vector<FixtureDevice> OkeDevices();
/// Host PFs that shared RDMA netns mode also shows (no netdev in the pod).
std::vector<FixtureDevice> HostPfDevices(int count);

/// The SR-IOV device plugin variables for `devices`, one resource per device
/// (`PCIDEVICE_OPENSHIFT_IO_ENO<5+i>NP0RDMA`) or all under `one_resource` when given.
/// with_info=false: no _INFO (plugin < v3.6); with_rdma_dev=false: _INFO without rdma_dev.
std::vector<std::string> PluginEnvironment(const std::vector<FixtureDevice>& devices,
                                           bool with_info, bool with_rdma_dev,
                                           const std::string& one_resource = "");

/// Adds every device, eth0, peermem and identity IOMMU groups: a healthy pod.
void BuildPod(SysfsFixture* fixture, const std::vector<FixtureDevice>& devices);

}  // namespace hkim::wrapper::testing
