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

Detection Detect(const EnvironmentScan& scan, const SysfsProbe& sysfs) {
  Detection detection;
  detection.findings = scan.findings;  // the environment step reports through detection
  std::map<std::string, Candidate, bool (*)(const std::string&, const std::string&)> by_name(
      NaturalLess);

  auto add = [&](Candidate candidate) {
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
  };

  const std::vector<std::string> visible = sysfs.ListRdmaDevices(&detection.findings);
  const auto is_visible = [&](const std::string& name) {
    return std::find(visible.begin(), visible.end(), name) != visible.end();
  };

  if (scan.plugin_vars_present) {
    detection.source = AllocationSource::kDevicePlugin;
    for (const AllocatedDevice& allocated : scan.devices) {
      std::string name, source;
      const std::string info_where = "env " + allocated.resource_var + "_INFO";
      if (!allocated.rdma_dev.empty()) {
        const std::string owner = sysfs.PciAddressOf(allocated.rdma_dev);
        if (!is_visible(allocated.rdma_dev)) {
          detection.findings.push_back(
              {Severity::kWarning, info_where, "detect.rdma-dev-not-visible",
               "rdma_dev " + allocated.rdma_dev + " of " + allocated.pci_address +
                   " is not under " + sysfs.root() +
                   "/class/infiniband; looking under the PCI function",
               ""});
        } else if (!owner.empty() && owner != allocated.pci_address) {
          detection.findings.push_back({Severity::kWarning, info_where, "detect.rdma-dev-mismatch",
                                        "rdma_dev " + allocated.rdma_dev + " belongs to " + owner +
                                            ", not to the allocated " + allocated.pci_address +
                                            "; looking under the PCI function",
                                        ""});
        } else {
          name = allocated.rdma_dev;
          source = "_INFO rdma_dev";
        }
      }
      if (name.empty()) {
        std::vector<std::string> names = sysfs.RdmaDevicesOfPci(allocated.pci_address);
        if (!names.empty()) {
          name = names.front();
          source = "sysfs " + allocated.pci_address + "/infiniband";
          if (allocated.rdma_dev.empty()) {
            detection.findings.push_back(
                {Severity::kNote, "env " + allocated.resource_var, "detect.name-from-sysfs",
                 allocated.pci_address +
                     " has no rdma_dev (no _INFO, or a device plugin before v3.10); found " + name +
                     " in sysfs",
                 ""});
          }
        } else if (std::string by_uverbs = sysfs.DeviceOfUverbs(allocated.uverbs);
                   !by_uverbs.empty()) {
          name = by_uverbs;
          source = "sysfs infiniband_verbs/" + allocated.uverbs;
          if (allocated.rdma_dev.empty()) {
            detection.findings.push_back(
                {Severity::kNote, "env " + allocated.resource_var, "detect.name-from-sysfs",
                 allocated.pci_address +
                     " has no rdma_dev (no _INFO, or a device plugin before v3.10); found " + name +
                     " in sysfs",
                 ""});
          }
        }
      }
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
      add({name, allocated.pci_address, allocated.resource_var, source, {}});
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
  } else {
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
      for (const std::string& name : vfs) add({name, sysfs.PciAddressOf(name), "", "sysfs VF", {}});
    } else if (!visible.empty()) {
      detection.source = AllocationSource::kHostFallback;
      detection.findings.push_back(
          {Severity::kWarning, "", "detect.host-fallback",
           "no PCIDEVICE_* variables and no SR-IOV VFs; using the usable RDMA devices in " +
               sysfs.root() + "/class/infiniband (host networking?)",
           "request the RDMA resources in the pod spec so the device plugin names them"});
      for (const std::string& name : visible)
        add({name, sysfs.PciAddressOf(name), "", "sysfs", {}});
    }
  }
  for (auto& [name, candidate] : by_name) detection.candidates.push_back(std::move(candidate));
  return detection;
}

}  // namespace hkim::wrapper
