#include "report.h"

#include <nlohmann/json.hpp>

namespace hkim::wrapper {
namespace {

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string MemlockLine(const MemlockResult& m) {
  std::string out;
  for (size_t i = 0; i < m.steps.size(); ++i) out += (i ? "; " : "") + m.steps[i];
  out += m.sufficient ? (m.after.soft == kUnlimited ? " -- ok" : " -- ok (CAP_IPC_LOCK effective)")
                      : " -- TOO LOW";
  return out;
}

nlohmann::json LimitJson(uint64_t v) {
  return v == kUnlimited ? nlohmann::json("unlimited") : nlohmann::json(v);
}

}  // namespace

std::string FormatBanner(const Decision& d, const MemlockResult* memlock) {
  std::string out;
  size_t usable = 0;
  for (const DeviceVerdict& v : d.devices) usable += v.usable;
  out += "hkim-wrapper: " + std::string(OutcomeName(d.outcome)) + " -- " + std::to_string(usable) +
         " usable of " + std::to_string(d.devices.size()) + " RDMA device(s) (source " +
         d.allocation_source + ", policy " + PolicyName(d.policy) + ")\n";
  if (!d.reason.empty()) out += "  reason: " + d.reason + "\n";
  for (const DeviceVerdict& v : d.devices) {
    out += "  " + Pad(v.name, 9) + " " + Pad(v.pci_address.empty() ? "?" : v.pci_address, 13) + " ";
    if (v.usable) {
      out += Pad(v.transport, 10) + " port " + std::to_string(v.port) + " " + v.state;
      if (!v.rate.empty()) out += ", " + v.rate;
      if (!v.netdev.empty()) out += ", " + v.netdev;
      if (v.gid_index >= 0) out += ", GID " + std::to_string(v.gid_index) + " (" + v.gid_ipv4 + ")";
      if (v.numa_node >= 0) out += ", NUMA " + std::to_string(v.numa_node);
    } else {
      out += "NOT USED: " + v.reason;
    }
    out += "\n";
  }
  if (!d.ignored_devices.empty()) {
    out += "  ignored (not allocated to this pod): ";
    for (size_t i = 0; i < d.ignored_devices.size(); ++i)
      out += (i ? "," : "") + d.ignored_devices[i];
    out += "\n";
  }
  for (const auto& [name, value] : d.set) out += "  set  " + name + "=" + value + "\n";
  for (const auto& [name, value] : d.kept) {  // the user's bytes: shown escaped
    auto wanted = d.wanted.find(name);
    out += "  kept " + name + "=" + Printable(value) + " (user's value; detected " +
           (wanted == d.wanted.end() ? std::string("-") : wanted->second) + ")\n";
  }
  out += "  gid index: " + d.gid_decision + "\n";
  if (memlock != nullptr) out += "  memlock: " + MemlockLine(*memlock) + "\n";
  out += "  iommu: " + d.iommu_mode + "\n";
  out += "  gpudirect: " + d.gpudirect + "\n";
  out += "  verbs: " + d.verbs + "\n";
  for (const Finding& f : d.findings) out += FormatFinding(f) + "\n";
  return out;
}

std::string FormatJsonRecord(const Decision& d, const MemlockResult* memlock) {
  nlohmann::json j;
  j["tool"] = "hkim-wrapper";
  j["outcome"] = OutcomeName(d.outcome);
  j["policy"] = PolicyName(d.policy);
  j["allocation_source"] = d.allocation_source;
  j["exit_code"] = d.exit_code;
  j["fully_usable"] = d.fully_usable;
  j["reason"] = d.reason;
  j["set"] = d.set;
  nlohmann::json kept = nlohmann::json::object();
  for (const auto& [name, value] : d.kept) {
    auto wanted = d.wanted.find(name);
    kept[name] = {{"value", value}, {"detected", wanted == d.wanted.end() ? "" : wanted->second}};
  }
  j["kept"] = kept;
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceVerdict& v : d.devices) {
    nlohmann::json dev = {{"name", v.name},
                          {"pci_address", v.pci_address},
                          {"resource", v.resource_var},
                          {"name_source", v.name_source},
                          {"vf", v.is_vf},
                          {"usable", v.usable},
                          {"reason", v.reason},
                          {"port", v.port},
                          {"transport", v.transport},
                          {"state", v.state},
                          {"rate", v.rate},
                          {"netdev", v.netdev},
                          {"gid_index", v.gid_index},
                          {"gid_ipv4", v.gid_ipv4},
                          {"numa_node", v.numa_node},
                          {"iommu_group", v.iommu_group},
                          {"iommu_type", v.iommu_type}};
    devices.push_back(dev);
  }
  j["devices"] = devices;
  j["ignored_devices"] = d.ignored_devices;
  j["gid_index_decision"] = d.gid_decision;
  j["iommu"] = d.iommu_mode;
  j["gpudirect"] = {{"nvidia_peermem", d.peermem_loaded}, {"verdict", d.gpudirect}};
  j["verbs"] = d.verbs;
  if (memlock != nullptr) {
    j["memlock"] = {
        {"before",
         {{"soft", LimitJson(memlock->before.soft)}, {"hard", LimitJson(memlock->before.hard)}}},
        {"after",
         {{"soft", LimitJson(memlock->after.soft)}, {"hard", LimitJson(memlock->after.hard)}}},
        {"cap_ipc_lock", memlock->cap_ipc_lock},
        {"cap_sys_resource", memlock->cap_sys_resource},
        {"sufficient", memlock->sufficient},
        {"steps", memlock->steps}};
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : d.findings) {
    findings.push_back({{"severity", SeverityName(f.severity)},
                        {"where", f.where},
                        {"rule", f.rule},
                        {"message", f.message},
                        {"fix", f.fix}});
  }
  j["findings"] = findings;
  // Replace invalid UTF-8 (from hostile sysfs or env input) instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string FormatPrintEnv(const Decision& d) {
  std::string out;
  for (const auto& [name, value] : d.set) out += name + "=" + value + "\n";
  return out;
}

std::string FormatCheck(const Decision& d, const MemlockResult* memlock) {
  std::string out = FormatBanner(d, memlock);
  int problems = 0;
  for (const Finding& f : d.findings) problems += f.severity == Severity::kError;
  out += d.fully_usable ? "result: RDMA fully usable\n"
                        : "result: RDMA NOT fully usable (" + std::string(OutcomeName(d.outcome)) +
                              ", " + std::to_string(problems) + " problem(s))\n";
  return out;
}

}  // namespace hkim::wrapper
