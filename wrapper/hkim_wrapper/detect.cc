#include "detect.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

namespace hkim::wrapper {

const char* AllocationSourceName(AllocationSource source) {
  switch (source) {
    case AllocationSource::kDevicePlugin:
      return "device-plugin";
    case AllocationSource::kVfFallback:
      return "sysfs-vf";
    case AllocationSource::kHostFallback:
      return "sysfs-all";
    case AllocationSource::kNone:
      return "none";
  }
  return "none";
}

namespace {

// Candidates by RDMA device name in natural order (mlx5_2 before mlx5_10), so the list that
// leaves Detect is sorted and each name appears once.
using CandidatesByName =
    std::map<std::string, Candidate, bool (*)(const std::string&, const std::string&)>;

bool IsVisible(const std::vector<std::string>& visible, const std::string& name) {
  return std::find(visible.begin(), visible.end(), name) != visible.end();
}

// Probes one device and keeps it, once: two PCI functions can lead to the same name, and the
// job must see each device a single time. Reads detection.source, so callers set it first.
void AddCandidate(Candidate candidate, const SysfsProbe& sysfs, Detection& detection,
                  CandidatesByName& by_name) {
  auto it = by_name.find(candidate.name);
  if (it != by_name.end()) {
    detection.findings.push_back({Severity::kWarning, "", "detect.duplicate-device",
                                  candidate.name + " is reached from both " +
                                      it->second.pci_address + " and " + candidate.pci_address +
                                      "; using it once",
                                  ""});
    return;
  }
  candidate.probe =
      sysfs.ProbeDevice(candidate.name, &detection.findings, candidate.pci_address,
                        /*trust_gid_ndev=*/detection.source == AllocationSource::kDevicePlugin);
  if (candidate.probe.netdev_source == "gid ndev (not in class/net)") {
    detection.findings.push_back(
        {Severity::kWarning, sysfs.root() + "/class/infiniband/" + candidate.name,
         "netdev.not-visible",
         "no netdev of " + candidate.name + " is visible in this pod; trusting the GID table's " +
             candidate.probe.netdev,
         ""});
  }
  by_name.emplace(candidate.name, std::move(candidate));
}

// The name the device plugin's _INFO gives (rdma_dev), when sysfs agrees: the device must be
// visible and belong to the allocated function. "" (with a warning) when it does not; the
// caller then looks under the PCI function.
std::string NameFromInfo(const AllocatedDevice& allocated, const SysfsProbe& sysfs,
                         const std::vector<std::string>& visible, Findings& findings) {
  const std::string info_where = "env " + allocated.resource_var + "_INFO";
  const std::string owner = sysfs.PciAddressOf(allocated.rdma_dev);
  if (!IsVisible(visible, allocated.rdma_dev)) {
    findings.push_back({Severity::kWarning, info_where, "detect.rdma-dev-not-visible",
                        "rdma_dev " + allocated.rdma_dev + " of " + allocated.pci_address +
                            " is not under " + sysfs.root() +
                            "/class/infiniband; looking under the PCI function",
                        ""});
    return "";
  }
  if (!owner.empty() && owner != allocated.pci_address) {
    findings.push_back({Severity::kWarning, info_where, "detect.rdma-dev-mismatch",
                        "rdma_dev " + allocated.rdma_dev + " belongs to " + owner +
                            ", not to the allocated " + allocated.pci_address +
                            "; looking under the PCI function",
                        ""});
    return "";
  }
  return allocated.rdma_dev;
}

// The name sysfs gives the allocated function: its infiniband/ folder, else the uverbs device
// the plugin named. Sets `source` to where it came from; "" when neither knows the function.
std::string NameFromSysfs(const AllocatedDevice& allocated, const SysfsProbe& sysfs,
                          Findings& findings, std::string& source) {
  std::string name;
  std::vector<std::string> names = sysfs.RdmaDevicesOfPci(allocated.pci_address);
  if (!names.empty()) {
    name = names.front();
    source = "sysfs " + allocated.pci_address + "/infiniband";
  } else if (std::string by_uverbs = sysfs.DeviceOfUverbs(allocated.uverbs); !by_uverbs.empty()) {
    name = by_uverbs;
    source = "sysfs infiniband_verbs/" + allocated.uverbs;
  } else {
    return "";
  }
  // Without rdma_dev (old plugin, no _INFO) the sysfs name is the expected path, so only a note.
  if (allocated.rdma_dev.empty()) {
    findings.push_back({Severity::kNote, "env " + allocated.resource_var, "detect.name-from-sysfs",
                        allocated.pci_address +
                            " has no rdma_dev (no _INFO, or a device plugin before v3.10); found " +
                            name + " in sysfs",
                        ""});
  }
  return name;
}

// The device plugin spoke: only the functions it allocated count, whatever else sysfs shows
// (a shared RDMA namespace or a privileged pod sees other pods' devices).
void DetectAllocated(const EnvironmentScan& scan, const SysfsProbe& sysfs,
                     const std::vector<std::string>& visible, Detection& detection,
                     CandidatesByName& by_name) {
  detection.source = AllocationSource::kDevicePlugin;
  for (const AllocatedDevice& allocated : scan.devices) {
    std::string name, source;
    if (!allocated.rdma_dev.empty()) {
      name = NameFromInfo(allocated, sysfs, visible, detection.findings);
      if (!name.empty()) source = "_INFO rdma_dev";
    }
    if (name.empty()) name = NameFromSysfs(allocated, sysfs, detection.findings, source);
    if (name.empty()) {
      detection.unresolved_pci.push_back(allocated.pci_address);
      detection.findings.push_back(
          {Severity::kWarning, "env " + allocated.resource_var, "detect.no-rdma-device",
           "allocated " + allocated.pci_address + " has no RDMA device in " + sysfs.root(),
           "request an RDMA-enabled resource (SriovNetworkNodePolicy isRdma: true) and check "
           "that "
           "the rdma CNI moved the device into the pod"});
      continue;
    }
    AddCandidate({name, allocated.pci_address, allocated.resource_var, source, {}}, sysfs,
                 detection, by_name);
  }
  for (const std::string& name : visible)
    if (!by_name.count(name)) detection.ignored_devices.push_back(name);
  if (!detection.ignored_devices.empty()) {
    detection.findings.push_back(
        {Severity::kNote, sysfs.root() + "/class/infiniband", "detect.not-allocated",
         std::to_string(detection.ignored_devices.size()) +
             " RDMA device(s) visible but not allocated to this pod (shared RDMA namespace or a "
             "privileged pod); ignoring them",
         ""});
  }
}

// No device-plugin variables: the SR-IOV VFs in sysfs (physfn marks a VF), else every visible
// device (host networking). Both are guesses, hence the warnings.
void DetectFromSysfs(const SysfsProbe& sysfs, const std::vector<std::string>& visible,
                     Detection& detection, CandidatesByName& by_name) {
  std::vector<std::string> vfs;
  for (const std::string& name : visible) {
    struct stat st;
    const std::string physfn = sysfs.root() + "/class/infiniband/" + name + "/device/physfn";
    if (::lstat(physfn.c_str(), &st) == 0) vfs.push_back(name);
  }
  if (!vfs.empty()) {
    detection.source = AllocationSource::kVfFallback;
    detection.findings.push_back(
        {Severity::kWarning, "", "detect.vf-fallback",
         "no PCIDEVICE_* variables from the SR-IOV device plugin; using the SR-IOV VFs in " +
             sysfs.root() +
             "/class/infiniband (in a privileged pod these may include other pods' VFs)",
         "request the RDMA resources in the pod spec so the device plugin names them"});
    for (const std::string& name : vfs)
      AddCandidate({name, sysfs.PciAddressOf(name), "", "sysfs VF", {}}, sysfs, detection, by_name);
  } else if (!visible.empty()) {
    detection.source = AllocationSource::kHostFallback;
    detection.findings.push_back(
        {Severity::kWarning, "", "detect.host-fallback",
         "no PCIDEVICE_* variables and no SR-IOV VFs; using the usable RDMA devices in " +
             sysfs.root() + "/class/infiniband (host networking?)",
         "request the RDMA resources in the pod spec so the device plugin names them"});
    for (const std::string& name : visible)
      AddCandidate({name, sysfs.PciAddressOf(name), "", "sysfs", {}}, sysfs, detection, by_name);
  }
}

}  // namespace

Detection Detect(const EnvironmentScan& scan, const SysfsProbe& sysfs) {
  Detection detection;
  detection.findings = scan.findings;  // the environment step reports through detection
  CandidatesByName by_name(NaturalLess);
  const std::vector<std::string> visible = sysfs.ListRdmaDevices(&detection.findings);
  if (scan.plugin_vars_present) {
    DetectAllocated(scan, sysfs, visible, detection, by_name);
  } else {
    DetectFromSysfs(sysfs, visible, detection, by_name);
  }
  for (auto& [name, candidate] : by_name) detection.candidates.push_back(std::move(candidate));
  return detection;
}

}  // namespace hkim::wrapper
