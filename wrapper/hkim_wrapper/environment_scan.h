#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/finding.h"

namespace hkim::wrapper {

/// One PCI function the SR-IOV device plugin allocated to this container.
struct AllocatedDevice {
  std::string pci_address;   ///< normalised to lower case, e.g. "0000:1a:00.2"
  std::string resource_var;  ///< the PCIDEVICE_* variable that listed it
  std::string rdma_dev;      ///< `rdma.rdma_dev` from the _INFO JSON; empty on older plugins
  std::string uverbs;  ///< "uverbs6" from `rdma.uverbs` (/dev/infiniband/uverbs6); may be empty
};

/// Result of the first detection step: what the device-plugin variables say.
struct EnvironmentScan {
  bool plugin_vars_present = false;      ///< any PCIDEVICE_* variable at all
  std::vector<AllocatedDevice> devices;  ///< unique by address, in variable-name then list order
  std::map<std::string, std::string>
      vars;  ///< the whole environment (first occurrence of a name wins)
  Findings findings;
};

/// Largest _INFO value parsed; longer values are reported and skipped (a pod with 64 VFs
/// produces about 20 KB).
inline constexpr size_t kMaxInfoBytes = 1 << 20;
/// Deepest JSON nesting accepted (the plugin writes 3 levels); deeper input is rejected before
/// parsing so no input can exhaust the stack.
inline constexpr int kMaxInfoDepth = 16;
/// Most PCIDEVICE_* variables read (name order); a pod gets one per resource it requests, a
/// handful in practice. The rest are reported and ignored.
inline constexpr size_t kMaxPluginVariables = 256;
/// Most addresses read from one list variable (OKE's 16 VFs come in one); the rest are reported.
inline constexpr size_t kMaxListEntries = 256;
/// Most devices allocated in all (each is probed in sysfs); the rest are reported.
inline constexpr size_t kMaxAllocatedDevices = 256;

/// Splits `NAME=VALUE` entries (as in `environ`) into a map; entries without `=` are ignored.
std::map<std::string, std::string> ParseEnvironment(const std::vector<std::string>& entries);

/// True for a PCI address of the form DDDD:BB:DD.F (domain of 4 to 8 hex digits).
bool IsPciAddress(const std::string& text);

/// True for an environment variable name of letters, digits, `_`, `-` and `.` (kubelet's
/// PCIDEVICE_* names are the resource name upper-cased with `.` and `/` turned into `_`).
bool IsSafeVariableName(const std::string& name);

/// True for a name that can be an RDMA device and be put into NCCL_IB_HCA safely
/// (letters, digits, `_`, `-`, `.`; 1-64 characters; not `.` or `..`).
bool IsSafeDeviceName(const std::string& name);

/// Reads every PCIDEVICE_<P>_<R> / PCIDEVICE_<P>_<R>_INFO pair (names may contain `-`) and
/// returns the allocated PCI addresses with their `rdma_dev` where the _INFO JSON has one.
/// Never throws; every malformed value becomes a finding and the next step takes over. Names
/// with bytes other than letters, digits, `_`, `-` and `.` are ignored (with a finding), and
/// what lies beyond kMaxPluginVariables, kMaxListEntries or kMaxAllocatedDevices is counted
/// and reported, never silently dropped.
EnvironmentScan ScanEnvironment(const std::vector<std::string>& entries);

}  // namespace hkim::wrapper
