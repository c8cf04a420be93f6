#pragma once

#include <string>
#include <vector>

#include "common/finding.h"
#include "common/sysfs_read.h"

namespace hkim::wrapper {

/// Orders names with embedded numbers by value: mlx5_6 < mlx5_7 < mlx5_10 < mlx5_11.
bool NaturalLess(const std::string& a, const std::string& b);

/// Sorts and removes duplicates with NaturalLess.
void NaturalSort(std::vector<std::string>* names);

/// What sysfs says about one port of an RDMA device.
struct PortProbe {
  int number = 0;
  int state_code = -1;      ///< 4 = ACTIVE; -1 when unreadable
  std::string state;        ///< "ACTIVE", "DOWN", ... (text after "N: ")
  std::string phys_state;   ///< "LinkUp", "Disabled", ...
  std::string link_layer;   ///< "Ethernet", "InfiniBand", "Unknown" or ""
  std::string rate;         ///< "400 Gb/sec (4X NDR)"
  int gid_index = -1;       ///< RoCE: the RoCE v2 IPv4-mapped GID on the device's netdev; -1 none
  std::string gid;          ///< that GID, as sysfs prints it
  std::string gid_ipv4;     ///< its IPv4 address, dotted
  std::string gid_problem;  ///< why no GID was chosen (RoCE ports only)
  bool active() const { return state_code == 4; }
};

/// What sysfs says about one RDMA device.
struct DeviceProbe {
  std::string name;              ///< "mlx5_6"
  bool visible = false;          ///< /sys/class/infiniband/<name> exists
  std::string pci_address;       ///< of the function that owns it ("" when unknown)
  bool is_vf = false;            ///< device/physfn exists
  std::string netdev;            ///< the function's own netdev inside this pod ("" when none)
  std::string netdev_source;     ///< "pci net/", "gid ndev" or ""
  std::string netdev_operstate;  ///< "up", "down", "unknown", ... ("" when unreadable)
  int numa_node = -1;
  std::string iommu_group;       ///< group number, "" when the device has none
  std::string iommu_type;        ///< identity, DMA, DMA-FQ, ... ("" when unreadable)
  std::vector<PortProbe> ports;  ///< sorted by number
};

/// Reads the kernel's sysfs (or a fixture tree standing in for it) without ever following
/// untrusted data outside it. Unreadable files, EINVAL from empty GID slots, symlink loops and
/// absurd values become findings or "unknown", never crashes.
class SysfsProbe {
 public:
  /// `root` replaces "/sys" in every path.
  explicit SysfsProbe(std::string root);

  const std::string& root() const { return root_; }

  /// Names under /sys/class/infiniband, natural order. With `findings`, names that cannot be
  /// a device (odd bytes, `..`), an unreadable folder and entries beyond the listing limit are
  /// reported there.
  std::vector<std::string> ListRdmaDevices(Findings* findings = nullptr) const;

  /// RDMA devices owned by a PCI function: <pci>/infiniband/, then
  /// <pci>/infiniband_verbs/*/ibdev, then class/infiniband/*/device pointing at it.
  std::vector<std::string> RdmaDevicesOfPci(const std::string& pci_address) const;

  /// The PCI address a visible RDMA device belongs to ("" when unknown).
  std::string PciAddressOf(const std::string& device) const;

  /// Probes one device: ports, link layer, rate, netdev, NUMA, IOMMU, RoCE v2 IPv4 GID.
  /// `pci_hint`: where to look (<pci>/infiniband/<device>) when class/infiniband lacks it.
  /// `trust_gid_ndev`: for a device allocated by the device plugin whose netdev cannot be found
  /// at all, accept the netdev its GID table names (otherwise no GID can be chosen).
  DeviceProbe ProbeDevice(const std::string& device, Findings* findings,
                          const std::string& pci_hint = "", bool trust_gid_ndev = false) const;

  /// The device a uverbs node serves (class/infiniband_verbs/<node>/ibdev), "" when unknown.
  std::string DeviceOfUverbs(const std::string& node) const;

  /// nvidia_peermem is loaded (module dir or the memory_peers nv_mem interface exists).
  bool PeermemLoaded() const;

  /// Interfaces under /sys/class/net (natural order); empty when the folder is absent.
  std::vector<std::string> NetInterfaces() const;

 private:
  std::string Path(const std::string& relative) const { return root_ + "/" + relative; }
  bool NetdevOwnedBy(const std::string& netdev, const std::string& pci) const;
  void SelectGid(const std::string& port_dir, bool trust_gid_ndev, DeviceProbe* device,
                 PortProbe* port, Findings* findings) const;
  void ProbePort(const std::string& base, int number, bool trust_gid_ndev, DeviceProbe* device,
                 Findings* findings) const;
  void ProbePciFunction(const std::string& base, const std::string& pci_hint, DeviceProbe* device,
                        Findings* findings) const;

  std::string root_;
};

}  // namespace hkim::wrapper
