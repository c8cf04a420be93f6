#pragma once

#include <string>
#include <vector>

#include "environment_scan.h"
#include "common/finding.h"
#include "sysfs_probe.h"

namespace hkim::wrapper {

/// Which detection step produced the candidate list.
enum class AllocationSource {
  kDevicePlugin,  ///< PCIDEVICE_* variables (rdma_dev from _INFO or looked up in sysfs)
  kVfFallback,    ///< no device-plugin variables: SR-IOV VFs under /sys/class/infiniband
  kHostFallback,  ///< no variables and no VFs: every RDMA device (host networking)
  kNone,          ///< nothing found at all
};

const char* AllocationSourceName(AllocationSource source);

/// One RDMA device that belongs to this pod, with what sysfs says about it.
struct Candidate {
  std::string name;          ///< RDMA device name
  std::string pci_address;   ///< allocated (or discovered) PCI function
  std::string resource_var;  ///< PCIDEVICE_* variable, "" for fallbacks
  std::string name_source;   ///< "_INFO rdma_dev", "sysfs <pci>/infiniband", "sysfs VF", "sysfs"
  DeviceProbe probe;
};

/// Output of the detection steps, in the order of issue 3 §2.
struct Detection {
  AllocationSource source = AllocationSource::kNone;
  std::vector<Candidate> candidates;         ///< unique names, natural order
  std::vector<std::string> unresolved_pci;   ///< allocated functions without an RDMA device
  std::vector<std::string> ignored_devices;  ///< visible in sysfs but not allocated (shared mode)
  Findings findings;
};

/// Runs the detection order: device-plugin variables and _INFO → sysfs under each allocated PCI
/// function → (only when no variable exists) SR-IOV VFs → every device. Only allocated devices
/// count when the plugin spoke, whatever else sysfs shows.
Detection Detect(const EnvironmentScan& scan, const SysfsProbe& sysfs);

}  // namespace hkim::wrapper
