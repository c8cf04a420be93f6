#include "decide.h"

#include <algorithm>
#include <set>

namespace hkim::wrapper {
namespace {

constexpr char kSocketIfname[] = "=eth0";

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

DeviceVerdict Judge(const Candidate& candidate, const DecideInput& input) {
  const DeviceProbe& probe = candidate.probe;
  DeviceVerdict v;
  v.name = candidate.name;
  v.pci_address = candidate.pci_address.empty() ? probe.pci_address : candidate.pci_address;
  v.resource_var = candidate.resource_var;
  v.name_source = candidate.name_source;
  v.is_vf = probe.is_vf;
  v.netdev = probe.netdev;
  v.numa_node = probe.numa_node;
  v.iommu_group = probe.iommu_group;
  v.iommu_type = probe.iommu_type;
  if (!probe.visible) {
    v.reason = "not visible under /sys/class/infiniband";
    return v;
  }
  if (probe.ports.empty()) {
    v.reason = "no ports in sysfs";
    return v;
  }
  std::vector<std::string> reasons;
  for (const PortProbe& port : probe.ports) {
    if (v.state.empty()) {
      v.state = port.state;
      v.rate = port.rate;
    }
    const std::string label = "port " + std::to_string(port.number);
    if (!port.active()) {
      reasons.push_back(label + " is " + (port.state.empty() ? "in an unknown state" : port.state) +
                        (port.phys_state.empty() ? "" : " (" + port.phys_state + ")"));
      continue;
    }
    std::string transport;
    if (port.link_layer == "Ethernet") {
      if (probe.netdev_operstate == "down") {
        reasons.push_back(label + ": its netdev " + probe.netdev + " is down");
        continue;
      }
      if (port.gid_index < 0) {
        reasons.push_back(label + ": " + port.gid_problem);
        continue;
      }
      transport = "RoCE";
    } else if (port.link_layer == "InfiniBand") {
      transport = "InfiniBand";
    } else {
      reasons.push_back(label + " has link layer \"" + port.link_layer + "\"");
      continue;
    }
    if (input.verbs != nullptr && input.verbs->available) {
      auto it = input.verbs->devices.find(candidate.name);
      if (it == input.verbs->devices.end() || !it->second.listed || !it->second.opened) {
        reasons.push_back("libibverbs: " + (it == input.verbs->devices.end()
                                                ? std::string("not probed")
                                                : it->second.error));
        break;
      }
      auto active = it->second.port_active.find(port.number);
      if (active == it->second.port_active.end() || !active->second) {
        reasons.push_back("libibverbs: " + label + " is not ACTIVE");
        continue;
      }
    }
    v.usable = true;
    v.port = port.number;
    v.transport = transport;
    v.state = port.state;
    v.rate = port.rate;
    v.gid_index = port.gid_index;
    v.gid_ipv4 = port.gid_ipv4;
    break;
  }
  if (!v.usable) v.reason = Join(reasons, "; ");
  return v;
}

// "rail PCIDEVICE_OPENSHIFT_IO_ENO7NP0RDMA (interface net3, mlx5_8 at 0000:a3:00.2)": what an
// operator needs to find the rail on the node and in the profile.
std::string RailLabel(const DeviceVerdict& v) {
  std::string label = "rail " + (v.resource_var.empty() ? v.name : v.resource_var) + " (interface ";
  label += v.netdev.empty() ? std::string("none in this pod") : v.netdev;
  label += ", " + v.name + (v.pci_address.empty() ? "" : " at " + v.pci_address) + ")";
  return label;
}

// Names in a user's NCCL_IB_HCA, without ^ / = markers or :port suffixes.
std::set<std::string> HcaNames(std::string value) {
  if (!value.empty() && value[0] == '^') value.erase(0, 1);
  if (!value.empty() && value[0] == '=') value.erase(0, 1);
  std::set<std::string> names;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    std::string token =
        value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    token = token.substr(0, token.find(':'));
    if (!token.empty()) names.insert(token);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kRdma:
      return "rdma";
    case Outcome::kTcpMode:
      return "tcp-mode";
    case Outcome::kTcpFallback:
      return "tcp-fallback";
    case Outcome::kFail:
      return "fail";
  }
  return "fail";
}

const char* PolicyName(Policy policy) { return policy == Policy::kTcp ? "tcp" : "fail"; }

namespace {

// The job's own value of `name`, or null when unset or empty.
const std::string* UserValue(const DecideInput& input, const std::string& name) {
  auto it = input.vars.find(name);
  return it == input.vars.end() || it->second.empty() ? nullptr : &it->second;
}

// HKIM_MODE=tcp: the socket transport, nothing detected.
void DecideTcpMode(Decision& d) {
  Findings& findings = d.findings;
  d.outcome = Outcome::kTcpMode;
  d.allocation_source = "skipped";
  d.reason = "HKIM_MODE=tcp: the profile chose the socket transport; RDMA detection skipped";
  d.wanted = {{"NCCL_IB_DISABLE", "1"}, {"NCCL_SOCKET_IFNAME", kSocketIfname}};
  d.gid_decision = "not set: tcp mode";
  d.iommu_mode = "unknown";
  d.gpudirect = "not used: tcp mode";
  d.verbs = "skipped: tcp mode";
  findings.push_back(
      {Severity::kWarning, "", "mode.tcp",
       "HKIM_MODE=tcp: RDMA detection skipped, NCCL uses sockets on eth0 (TCP speed)", ""});
}

// What libibverbs says, and a verdict per candidate device: allocated ones that are unusable are
// errors.
void JudgeDevices(const DecideInput& input, const Detection& detection, Decision& d) {
  Findings& findings = d.findings;
  if (input.verbs == nullptr) {
    d.verbs = "skipped: " + input.verbs_skipped_reason;
  } else if (!input.verbs->available) {
    d.verbs = input.verbs->note;
    findings.push_back({Severity::kNote, "", "verbs.unavailable", input.verbs->note, ""});
  } else {
    d.verbs = "libibverbs lists " + std::to_string(input.verbs->listed_count) + " device(s)";
  }

  // Devices: the fallbacks over every visible device keep only the usable ones silently
  // enough (a host has many devices that are not for NCCL); allocated ones are reported.
  const bool host_fallback = detection.source == AllocationSource::kHostFallback;
  const bool fallback = host_fallback || detection.source == AllocationSource::kVfFallback;
  for (const Candidate& candidate : detection.candidates) {
    DeviceVerdict verdict = Judge(candidate, input);
    if (!verdict.usable) {
      // Without an allocation list, a device with no netdev in this pod is most likely another
      // pod's (shared RDMA namespace): worth a note, not an error.
      const bool foreign = fallback && candidate.probe.netdev.empty();
      findings.push_back(
          {host_fallback || foreign ? Severity::kNote : Severity::kError,
           "/sys/class/infiniband/" + verdict.name, "device.unusable",
           verdict.name + (verdict.pci_address.empty() ? "" : " (" + verdict.pci_address + ")") +
               " is not used: " + verdict.reason,
           host_fallback ? ""
                         : "check the link (ip link, cable, switch port), that the interface has "
                           "an IPv4 address, and the SR-IOV network attachment of this pod"});
    }
    d.devices.push_back(std::move(verdict));
  }
}

// IOMMU over the devices NCCL will use (all candidates when none is usable).
void DecideIommu(Decision& d) {
  Findings& findings = d.findings;
  const bool any_usable = std::any_of(d.devices.begin(), d.devices.end(),
                                      [](const DeviceVerdict& v) { return v.usable; });
  std::set<std::string> modes;
  for (const DeviceVerdict& v : d.devices) {
    if (any_usable && !v.usable) continue;
    if (v.iommu_group.empty())
      modes.insert("none");
    else if (v.iommu_type == "identity")
      modes.insert("passthrough");
    else if (v.iommu_type == "DMA" || v.iommu_type == "DMA-FQ")
      modes.insert("translation");
    else
      modes.insert("unknown");
  }
  d.iommu_mode = modes.empty() ? "unknown" : modes.size() == 1 ? *modes.begin() : "mixed";
  if (modes.count("translation")) {
    std::vector<std::string> names;
    for (const DeviceVerdict& v : d.devices)
      if ((!any_usable || v.usable) && (v.iommu_type == "DMA" || v.iommu_type == "DMA-FQ"))
        names.push_back(v.name + " (group " + v.iommu_group + ": " + v.iommu_type + ")");
    findings.push_back(
        {Severity::kError, "/sys/kernel/iommu_groups", "iommu.translation",
         "IOMMU translates DMA for " + Join(names, ", ") +
             ": RDMA to GPU memory fails with IBV_WC_LOC_PROT_ERR or falls back to TCP",
         "boot the nodes in passthrough mode: a MachineConfig (role worker, or the GPU pool's "
         "role) "
         "with spec.kernelArguments [iommu=pt] (plus intel_iommu=on or amd_iommu=on), e.g. "
         "99-worker-iommu-passthrough; the MCO drains and reboots each node"});
  }
}

// GID index: one global value in NCCL, so only when every device agrees.
void DecideGid(const std::vector<const DeviceVerdict*>& roce,
               const std::vector<const DeviceVerdict*>& ib, Decision& d) {
  Findings& findings = d.findings;
  if (roce.empty()) {
    d.gid_decision = ib.empty() ? "not set: no usable device"
                                : "not set: InfiniBand link layer (GID 0 / LID routing)";
  } else if (!ib.empty()) {
    d.gid_decision = "not set: InfiniBand and RoCE devices mixed; NCCL >= 2.21 picks per device";
  } else {
    std::set<int> indices;
    std::vector<std::string> parts;
    for (const DeviceVerdict* v : roce) {
      indices.insert(v->gid_index);
      parts.push_back(v->name + "=" + std::to_string(v->gid_index));
    }
    if (indices.size() == 1) {
      d.gid_decision = "set: every device has its RoCE v2 IPv4 GID at index " +
                       std::to_string(*indices.begin());
    } else {
      d.gid_decision = "not set: devices disagree (" + Join(parts, ", ") +
                       "); NCCL >= 2.21 picks the RoCE v2 IPv4 GID per device";
      findings.push_back({Severity::kWarning, "", "gid.disagree",
                          "RoCE v2 IPv4 GID indices differ (" + Join(parts, ", ") +
                              "); NCCL_IB_GID_INDEX is left unset",
                          "use NCCL >= 2.21 (automatic per-device GID selection)"});
    }
  }
}

// Isolated rails (NCCL_CROSS_NIC=0, one subnet per rail with no routing between them): GPU n
// talks only through rail n, so a pod short of one allocated rail makes its peers open
// connections to an address that never routes, and the job hangs instead of failing.
std::vector<std::string> MissingIsolatedRails(const DecideInput& input, const Detection& detection,
                                              const Decision& d) {
  const std::string* cross_nic = UserValue(input, "NCCL_CROSS_NIC");
  const bool isolated_rails = cross_nic != nullptr && *cross_nic == "0";
  std::vector<std::string> missing_rails;
  if (isolated_rails && detection.source == AllocationSource::kDevicePlugin) {
    for (const DeviceVerdict& v : d.devices)
      if (!v.usable) missing_rails.push_back(RailLabel(v) + ": " + v.reason);
    for (const std::string& pci : detection.unresolved_pci)
      missing_rails.push_back("rail at " + pci + ": allocated, but it has no RDMA device");
  }

  return missing_rails;
}

// The locked-memory limit: its findings (warnings on a fixture root), whether RDMA can register.
bool MemlockOk(const DecideInput& input, Findings& findings) {
  bool memlock_ok = true;
  if (input.memlock != nullptr) {
    for (Finding f : input.memlock->findings) {
      if (!input.memlock_enforced) {
        f.severity = Severity::kWarning;
        f.message += " (not enforced: the sysfs root is a fixture, not this machine)";
      }
      findings.push_back(f);
    }
    memlock_ok = input.memlock->sufficient || !input.memlock_enforced;
  }

  return memlock_ok;
}

// RDMA when a device is usable, memlock suffices and no isolated rail is missing; else the
// policy decides: stop the pod, or go on at TCP speed, loudly.
void DecideOutcome(const DecideInput& input, const Detection& detection,
                   const std::vector<std::string>& usable,
                   const std::vector<const DeviceVerdict*>& roce,
                   const std::vector<const DeviceVerdict*>& ib,
                   const std::vector<std::string>& missing_rails, bool memlock_ok, Decision& d) {
  Findings& findings = d.findings;
  const bool rail_stop = !missing_rails.empty() && input.policy == Policy::kFail;
  if (!missing_rails.empty() && !rail_stop) {
    findings.push_back(
        {Severity::kError, "env NCCL_CROSS_NIC", "rail.unusable-isolated",
         "NCCL_CROSS_NIC=0 (isolated rails) and " + Join(missing_rails, "; ") +
             "; policy tcp: going on without it, but peers that have every rail may hang "
             "connecting to it",
         "fix the rail (link, GID, SR-IOV attachment), or use HKIM_ON_NO_RDMA=fail so the pod "
         "stops instead"});
  }
  if (!usable.empty() && memlock_ok && !rail_stop) {
    d.outcome = Outcome::kRdma;
    d.wanted["NCCL_IB_HCA"] = "=" + Join(usable, ",");
    d.wanted["NCCL_IB_DISABLE"] = "0";
    d.wanted["NCCL_SOCKET_IFNAME"] = kSocketIfname;
    if (!roce.empty() && ib.empty() && d.gid_decision.rfind("set:", 0) == 0)
      d.wanted["NCCL_IB_GID_INDEX"] = std::to_string(roce.front()->gid_index);
  } else {
    if (rail_stop) {
      d.reason = "isolated rails (NCCL_CROSS_NIC=0) and " + std::to_string(missing_rails.size()) +
                 " allocated rail(s) unusable: " + Join(missing_rails, "; ");
    } else if (usable.empty()) {
      if (detection.source == AllocationSource::kNone) {
        d.reason =
            "no RDMA device: no PCIDEVICE_* variables and nothing under /sys/class/infiniband";
      } else if (d.devices.empty()) {
        d.reason = "no RDMA device: the allocated PCI functions have no RDMA device";
      } else {
        d.reason = "no usable RDMA device among " + std::to_string(d.devices.size()) + " found";
      }
    } else {
      d.reason = "locked-memory limit too low for RDMA registrations";
    }
    const std::string fix =
        rail_stop
            ? "fix the rail named above (ip link / cable / switch port for a DOWN port; an "
              "IPv4 address on the interface for a missing RoCE v2 GID; the SR-IOV attachment "
              "for a missing device), or mark the node hkimgen.io/nccl-health=fail so the "
              "workload avoids it; a pod with fewer rails than its peers hangs the job"
        : usable.empty()
            ? "request the RDMA resources (e.g. openshift.io/<nic>rdma: 1 or nvidia.com/rdma-vf) "
              "and the matching networks annotation, and check that the ports are ACTIVE with an "
              "IPv4 address; or set HKIM_ON_NO_RDMA=tcp to run at TCP speed on purpose"
            : "see memlock.too-low above; or set HKIM_ON_NO_RDMA=tcp to run at TCP speed on "
              "purpose";
    if (input.policy == Policy::kFail) {
      d.outcome = Outcome::kFail;
      d.exit_code = 1;
      findings.push_back({Severity::kError, "", rail_stop ? "rail.unusable-isolated" : "rdma.unusable",
                          d.reason + "; policy fail: the job is not started", fix});
    } else {
      d.outcome = Outcome::kTcpFallback;
      d.wanted = {{"NCCL_IB_DISABLE", "1"}, {"NCCL_SOCKET_IFNAME", kSocketIfname}};
      findings.push_back({Severity::kError, "", "rdma.tcp-fallback",
                          d.reason +
                              "; policy tcp: NCCL_IB_DISABLE=1, sockets on eth0 -- THE JOB "
                              "RUNS AT TCP SPEED (tens of times slower than RDMA)",
                          fix});
    }
  }
}

// GPUDirect (nvidia_peermem vs DMA-BUF) and the socket interface NCCL bootstraps over.
void DecideGpuDirect(const DecideInput& input, Decision& d) {
  Findings& findings = d.findings;
  const std::string* dmabuf = UserValue(input, "NCCL_DMABUF_ENABLE");
  if (input.peermem_loaded) {
    d.gpudirect =
        "nvidia_peermem loaded: GPUDirect RDMA works with or without DMA-BUF; "
        "NCCL_DMABUF_ENABLE does not matter";
  } else {
    d.gpudirect =
        "nvidia_peermem not loaded: GPUDirect RDMA needs DMA-BUF, so NCCL_DMABUF_ENABLE "
        "must stay 1 (NCCL's default)";
    if (dmabuf != nullptr && *dmabuf == "0" && d.outcome == Outcome::kRdma) {
      findings.push_back(
          {Severity::kError, "env NCCL_DMABUF_ENABLE", "gpudirect.dmabuf-disabled",
           "NCCL_DMABUF_ENABLE=0 without nvidia_peermem: GPU data goes through host "
           "memory (measured 38.8 instead of 194.6 GB/s on Barcelona); kept as set",
           "remove NCCL_DMABUF_ENABLE=0 (or set 1), or load nvidia_peermem on the node"});
    }
  }

  if (d.outcome == Outcome::kRdma || d.outcome == Outcome::kTcpFallback) {
    if (!input.net_interfaces.empty() &&
        std::find(input.net_interfaces.begin(), input.net_interfaces.end(), "eth0") ==
            input.net_interfaces.end() &&
        UserValue(input, "NCCL_SOCKET_IFNAME") == nullptr) {
      findings.push_back(
          {Severity::kWarning, "/sys/class/net", "net.no-eth0",
           "no eth0 in this pod, but NCCL_SOCKET_IFNAME is set to =eth0",
           "set NCCL_SOCKET_IFNAME in the profile to the pod network's interface"});
    }
  }
}

// Devices found, judged and turned into NCCL settings.
void DecideRdma(const DecideInput& input, Decision& d) {
  const Detection& detection = *input.detection;
  d.allocation_source = AllocationSourceName(detection.source);
  d.ignored_devices = detection.ignored_devices;
  d.findings.insert(d.findings.end(), detection.findings.begin(), detection.findings.end());
  JudgeDevices(input, detection, d);
  std::vector<std::string> usable;
  std::vector<const DeviceVerdict*> roce, ib;
  for (const DeviceVerdict& v : d.devices) {
    if (!v.usable) continue;
    usable.push_back(v.name);
    (v.transport == "RoCE" ? roce : ib).push_back(&v);
  }

  DecideIommu(d);
  DecideGid(roce, ib, d);
  const std::vector<std::string> missing_rails = MissingIsolatedRails(input, detection, d);
  const bool memlock_ok = MemlockOk(input, d.findings);
  DecideOutcome(input, detection, usable, roce, ib, missing_rails, memlock_ok, d);
  DecideGpuDirect(input, d);
}

// Never override what the user set; say what was kept and where it disagrees.
void KeepUserValues(const DecideInput& input, Decision& d) {
  Findings& findings = d.findings;
  for (const auto& [name, value] : d.wanted) {
    if (const std::string* user = UserValue(input, name)) {
      d.kept[name] = *user;
    } else {
      d.set[name] = value;
    }
  }
  if (d.outcome == Outcome::kRdma) {
    if (auto it = d.kept.find("NCCL_IB_HCA"); it != d.kept.end()) {
      std::set<std::string> theirs = HcaNames(it->second), ours = HcaNames(d.wanted["NCCL_IB_HCA"]);
      if (it->second[0] == '^') {
        findings.push_back(
            {Severity::kWarning, "env NCCL_IB_HCA", "env.kept-hca-mismatch",
             "kept the exclude list " + it->second + "; detected " + d.wanted["NCCL_IB_HCA"],
             "unset NCCL_IB_HCA and let the wrapper detect the devices"});
      } else if (theirs != ours) {
        findings.push_back({Severity::kError, "env NCCL_IB_HCA", "env.kept-hca-mismatch",
                            "kept NCCL_IB_HCA=" + it->second +
                                " but this pod's usable devices are " + d.wanted["NCCL_IB_HCA"] +
                                " (device names differ per node and over time)",
                            "unset NCCL_IB_HCA and let the wrapper detect the devices"});
      } else if (it->second[0] != '=') {
        findings.push_back({Severity::kWarning, "env NCCL_IB_HCA", "env.kept-hca-prefix",
                            "kept NCCL_IB_HCA=" + it->second +
                                " uses prefix matching (mlx5_1 also matches mlx5_10)",
                            "write it as =" + it->second + " or unset it"});
      }
    }
    if (auto it = d.kept.find("NCCL_IB_GID_INDEX"); it != d.kept.end()) {
      auto ours = d.wanted.find("NCCL_IB_GID_INDEX");
      if (ours == d.wanted.end() ? it->second != "-1" : it->second != ours->second) {
        findings.push_back(
            {Severity::kError, "env NCCL_IB_GID_INDEX", "env.kept-gid-mismatch",
             "kept NCCL_IB_GID_INDEX=" + it->second + " but the RoCE v2 IPv4 GID is " +
                 (ours == d.wanted.end() ? d.gid_decision : "at index " + ours->second),
             "unset NCCL_IB_GID_INDEX and let the wrapper (or NCCL >= 2.21) choose"});
      }
    }
    if (auto it = d.kept.find("NCCL_IB_DISABLE"); it != d.kept.end() && it->second != "0") {
      findings.push_back(
          {Severity::kError, "env NCCL_IB_DISABLE", "env.kept-ib-disabled",
           "kept NCCL_IB_DISABLE=" + it->second + ": NCCL will not use the RDMA devices",
           "unset NCCL_IB_DISABLE"});
    }
  } else if (d.outcome == Outcome::kTcpFallback || d.outcome == Outcome::kTcpMode) {
    if (auto it = d.kept.find("NCCL_IB_DISABLE"); it != d.kept.end() && it->second != "1") {
      findings.push_back({Severity::kWarning, "env NCCL_IB_DISABLE", "env.kept-ib-enabled",
                          "kept NCCL_IB_DISABLE=" + it->second + " although RDMA is not usable",
                          "unset NCCL_IB_DISABLE"});
    }
  }
}

}  // namespace

Decision Decide(const DecideInput& input) {
  Decision d;
  d.policy = input.policy;
  d.peermem_loaded = input.peermem_loaded;
  if (input.tcp_mode) {
    DecideTcpMode(d);
  } else {
    DecideRdma(input, d);
  }
  KeepUserValues(input, d);
  Findings& findings = d.findings;
  LimitFindings(&findings);  // hostile input must not flood the pod's log
  d.fully_usable = d.outcome == Outcome::kRdma &&
                   std::none_of(findings.begin(), findings.end(),
                                [](const Finding& f) { return f.severity == Severity::kError; });
  return d;
}

}  // namespace hkim::wrapper
