#include "sysfs_probe.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "environment_scan.h"

namespace hkim::wrapper {
namespace {

constexpr size_t kMaxPorts = 64;
constexpr size_t kMaxGids = 4096;

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool LinkOrFileExists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string Basename(const std::string& path) {
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;
  size_t slash = path.rfind('/', end - 1);
  return slash == std::string::npos ? path.substr(0, end) : path.substr(slash + 1, end - slash - 1);
}

// Last component of a symlink's target, or of the resolved path when it is not a link.
std::string LinkBasename(const std::string& path) {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof(buffer) - 1);
  if (n > 0) return Basename(std::string(buffer, static_cast<size_t>(n)));
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) != nullptr) return Basename(resolved);
  return "";
}

bool ParseInt(const std::string& text, long min, long max, long* out) {
  if (text.empty() || text.size() > 20) return false;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str()) return false;
  while (*end == ' ') ++end;
  if (*end != '\0' && *end != ':') return false;
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Numeric names of a directory, sorted by value.
std::vector<int> NumericEntries(const std::string& dir, size_t limit, long max_value,
                                Findings* findings) {
  std::vector<int> out;
  for (const std::string& name : ListReported(dir, limit, findings)) {
    long v;
    bool digits = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (digits && ParseInt(name, 0, max_value, &v)) out.push_back(static_cast<int>(v));
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsAllZeroGid(const std::string& gid) {
  for (char c : gid)
    if (c != '0' && c != ':') return false;
  return true;
}

// "0000:0000:0000:0000:0000:ffff:0a00:6715" -> "10.0.103.21"; "" when not IPv4-mapped.
std::string Ipv4OfGid(const std::string& gid) {
  static const std::string kMapped = "0000:0000:0000:0000:0000:ffff:";
  std::string g = Lower(gid);
  if (g.size() != 39 || g.compare(0, kMapped.size(), kMapped) != 0 || g[34] != ':') return "";
  auto byte = [&](size_t at) -> int {
    int v = 0;
    for (size_t i = at; i < at + 2; ++i) {
      char c = g[i];
      if (c >= '0' && c <= '9')
        v = v * 16 + (c - '0');
      else if (c >= 'a' && c <= 'f')
        v = v * 16 + (c - 'a' + 10);
      else
        return -1;
    }
    return v;
  };
  int a = byte(30), b = byte(32), c = byte(35), d = byte(37);
  if (a < 0 || b < 0 || c < 0 || d < 0) return "";
  return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c) + "." +
         std::to_string(d);
}

}  // namespace

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t si = i, sj = j;
      while (si < a.size() && a[si] == '0') ++si;
      while (sj < b.size() && b[sj] == '0') ++sj;
      size_t ei = si, ej = sj;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      int cmp = a.compare(si, ei - si, b, sj, ej - sj);
      if (cmp != 0) return cmp < 0;
      if (ei - i != ej - j) return ei - i < ej - j;  // fewer leading zeros first
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

void NaturalSort(std::vector<std::string>* names) {
  std::sort(names->begin(), names->end(), NaturalLess);
  names->erase(std::unique(names->begin(), names->end()), names->end());
}

SysfsProbe::SysfsProbe(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::vector<std::string> SysfsProbe::ListRdmaDevices(Findings* findings) const {
  std::vector<std::string> names;
  const std::string folder = Path("class/infiniband");
  for (std::string& name : ListReported(folder, 4096, findings)) {
    if (IsSafeDeviceName(name)) {
      names.push_back(std::move(name));
    } else if (findings != nullptr) {
      findings->push_back({Severity::kWarning, folder, "sysfs.bad-name",
                           "entry \"" + Printable(name.substr(0, 80)) +
                               "\" cannot be an RDMA device name; ignoring it",
                           ""});
    }
  }
  NaturalSort(&names);
  return names;
}

std::vector<std::string> SysfsProbe::RdmaDevicesOfPci(const std::string& pci) const {
  std::vector<std::string> names;
  if (!IsPciAddress(pci)) return names;
  const std::string function = Path("bus/pci/devices/" + pci);
  for (std::string& name : ListDirectory(function + "/infiniband"))
    if (IsSafeDeviceName(name)) names.push_back(std::move(name));
  if (names.empty()) {
    for (const std::string& node : ListDirectory(function + "/infiniband_verbs")) {
      std::string ibdev;
      if (ReadAttribute(function + "/infiniband_verbs/" + node + "/ibdev", &ibdev) &&
          IsSafeDeviceName(ibdev))
        names.push_back(ibdev);
    }
  }
  if (names.empty()) {
    for (const std::string& name : ListRdmaDevices())
      if (PciAddressOf(name) == pci) names.push_back(name);
  }
  NaturalSort(&names);
  return names;
}

std::string SysfsProbe::PciAddressOf(const std::string& device) const {
  if (!IsSafeDeviceName(device)) return "";
  std::string address = Lower(LinkBasename(Path("class/infiniband/" + device + "/device")));
  return IsPciAddress(address) ? address : "";
}

bool SysfsProbe::PeermemLoaded() const {
  return Exists(Path("module/nvidia_peermem")) ||
         Exists(Path("kernel/mm/memory_peers/nv_mem/version")) ||
         Exists(Path("kernel/mm/memory_peers/nv_mem_nc/version"));
}

std::vector<std::string> SysfsProbe::NetInterfaces() const {
  std::vector<std::string> names = ListDirectory(Path("class/net"));
  NaturalSort(&names);
  return names;
}

std::string SysfsProbe::DeviceOfUverbs(const std::string& node) const {
  std::string ibdev;
  if (!IsSafeDeviceName(node) ||
      !ReadAttribute(Path("class/infiniband_verbs/" + node + "/ibdev"), &ibdev))
    return "";
  return IsSafeDeviceName(ibdev) ? ibdev : "";
}

DeviceProbe SysfsProbe::ProbeDevice(const std::string& name, Findings* findings,
                                    const std::string& pci_hint, bool trust_gid_ndev) const {
  DeviceProbe device;
  device.name = name;
  if (!IsSafeDeviceName(name)) return device;
  std::string base = Path("class/infiniband/" + name);
  struct stat st;
  if (!LinkOrFileExists(base) && IsPciAddress(pci_hint) &&
      Exists(Path("bus/pci/devices/" + pci_hint + "/infiniband/" + name)))
    base = Path("bus/pci/devices/" + pci_hint + "/infiniband/" + name);
  if (::stat(base.c_str(), &st) != 0) {
    if (errno == ELOOP) {
      findings->push_back({Severity::kWarning, base, "sysfs.symlink-loop",
                           "symlink loop; treating the device as absent", ""});
    } else if (LinkOrFileExists(base)) {
      findings->push_back({Severity::kWarning, base, "sysfs.broken-link",
                           std::string("link to nowhere (") + std::strerror(errno) +
                               "); treating the device as absent",
                           ""});
    }
    return device;
  }
  device.visible = true;
  ProbePciFunction(base, pci_hint, &device, findings);

  for (int number : NumericEntries(base + "/ports", kMaxPorts, 255, findings)) {
    if (number == 0) continue;  // ports are numbered from 1
    ProbePort(base, number, trust_gid_ndev, &device, findings);
  }
  if (!device.netdev.empty()) {
    std::string operstate;
    if (ReadReported(Path("class/net/" + device.netdev + "/operstate"), &operstate, findings) ||
        ReadReported(base + "/device/net/" + device.netdev + "/operstate", &operstate, findings))
      device.netdev_operstate = operstate.size() <= 16 ? Printable(operstate) : "";
  }
  return device;
}

// The PCI function behind the device: address, VF or PF, NUMA node, IOMMU group, own netdev.
void SysfsProbe::ProbePciFunction(const std::string& base, const std::string& pci_hint,
                                  DeviceProbe* device, Findings* findings) const {
  struct stat st;
  if (::stat((base + "/device").c_str(), &st) != 0 && errno == ELOOP) {
    findings->push_back({Severity::kWarning, base + "/device", "sysfs.symlink-loop",
                         "symlink loop; the PCI function's NUMA node, IOMMU group and netdev "
                         "are unknown",
                         ""});
  }
  device->pci_address = Lower(LinkBasename(base + "/device"));
  if (!IsPciAddress(device->pci_address))
    device->pci_address = IsPciAddress(pci_hint) ? pci_hint : "";
  device->is_vf = LinkOrFileExists(base + "/device/physfn");

  std::string text;
  long value;
  if (ReadReported(base + "/device/numa_node", &text, findings)) {
    if (ParseInt(text, -1, 4095, &value)) {
      device->numa_node = static_cast<int>(value);
    } else {
      findings->push_back({Severity::kWarning, base + "/device/numa_node", "sysfs.bad-value",
                           "\"" + Printable(text.substr(0, 40)) +
                               "\" is not a NUMA node (-1 to 4095); ignoring it",
                           ""});
    }
  }

  if (LinkOrFileExists(base + "/device/iommu_group")) {
    std::string group = LinkBasename(base + "/device/iommu_group");
    if (ParseInt(group, 0, 1L << 30, &value)) {
      device->iommu_group = group;
      std::string type;
      if (ReadReported(Path("kernel/iommu_groups/" + group + "/type"), &type, findings) &&
          type.size() < 32)
        device->iommu_type = Printable(type);
    } else {
      findings->push_back({Severity::kWarning, base + "/device/iommu_group", "sysfs.bad-value",
                           "the link names \"" + Printable(group.substr(0, 40)) +
                               "\", not an IOMMU group number; the IOMMU mode is unknown",
                           ""});
    }
  }

  // The function's own netdev, as this pod's network namespace shows it.
  std::vector<std::string> netdevs;
  for (std::string& n : ListReported(base + "/device/net", 64, findings))
    if (IsSafeDeviceName(n)) netdevs.push_back(std::move(n));
  if (netdevs.empty() && !device->pci_address.empty()) {
    for (std::string& n :
         ListReported(Path("bus/pci/devices/" + device->pci_address + "/net"), 64, findings))
      if (IsSafeDeviceName(n)) netdevs.push_back(std::move(n));
  }
  if (netdevs.empty() && !device->pci_address.empty()) {
    // class/net/<if> -> ../../devices/.../<pci>/net/<if>
    const std::string marker = "/" + device->pci_address + "/net/";
    for (const std::string& n : ListReported(Path("class/net"), 1024, findings)) {
      char target[PATH_MAX];
      ssize_t len = ::readlink(Path("class/net/" + n).c_str(), target, sizeof(target) - 1);
      if (len > 0 && IsSafeDeviceName(n) &&
          Lower(std::string(target, static_cast<size_t>(len))).find(marker) != std::string::npos)
        netdevs.push_back(n);
    }
  }
  NaturalSort(&netdevs);
  if (!netdevs.empty()) {
    device->netdev = netdevs.front();
    device->netdev_source = "pci net/";
  }
}

namespace {

// "4: ACTIVE" -> "ACTIVE": the text after the number, printable, at most 32 bytes.
std::string StateWord(const std::string& text) {
  size_t colon = text.find(':');
  std::string word = colon == std::string::npos ? text : text.substr(colon + 1);
  word.erase(0, word.find_first_not_of(' '));
  if (word.size() > 32) word.resize(32);
  return Printable(word);
}

}  // namespace

void SysfsProbe::ProbePort(const std::string& base, int number, bool trust_gid_ndev,
                           DeviceProbe* device, Findings* findings) const {
  PortProbe port;
  port.number = number;
  const std::string port_dir = base + "/ports/" + std::to_string(number);
  std::string text;
  long value;
  int error = 0;
  if (ReadAttribute(port_dir + "/state", &text, &error)) {
    if (ParseInt(text, 0, 255, &value)) port.state_code = static_cast<int>(value);
    port.state = StateWord(text);
    if (port.state_code < 0 && Lower(port.state) == "active") port.state_code = 4;
    if (port.state_code < 0 && Lower(port.state) == "down") port.state_code = 1;
    if (port.state_code < 0) {
      findings->push_back({Severity::kWarning, port_dir + "/state", "sysfs.bad-value",
                           "cannot parse port state; treating the port as not active", ""});
    }
  } else {
    findings->push_back({Severity::kWarning, port_dir + "/state", "sysfs.unreadable",
                         "cannot read port state (" + ReadErrorText(error) +
                             "); treating the port as not active",
                         ""});
  }
  if (ReadReported(port_dir + "/phys_state", &text, findings)) port.phys_state = StateWord(text);
  if (ReadReported(port_dir + "/link_layer", &text, findings)) {
    if (text.size() <= 32) {
      port.link_layer = Lower(text) == "ethernet"     ? "Ethernet"
                        : Lower(text) == "infiniband" ? "InfiniBand"
                                                      : Printable(text);
    } else {
      findings->push_back({Severity::kWarning, port_dir + "/link_layer", "sysfs.bad-value",
                           "longer than any link layer; ignoring it", ""});
    }
  }
  if (ReadReported(port_dir + "/rate", &text, findings)) {
    if (text.size() <= 64) {
      port.rate = Printable(text);
    } else {
      findings->push_back({Severity::kWarning, port_dir + "/rate", "sysfs.bad-value",
                           "longer than any port rate; ignoring it", ""});
    }
  }
  if (port.link_layer == "Ethernet") SelectGid(port_dir, trust_gid_ndev, device, &port, findings);
  device->ports.push_back(port);
}

bool SysfsProbe::NetdevOwnedBy(const std::string& netdev, const std::string& pci) const {
  std::string owner;
  char resolved[PATH_MAX];
  if (::realpath(Path("class/net/" + netdev).c_str(), resolved) != nullptr) {
    std::string path = resolved;
    const std::string tail = "/net/" + netdev;
    if (path.size() > tail.size() &&
        path.compare(path.size() - tail.size(), tail.size(), tail) == 0)
      owner = Lower(Basename(path.substr(0, path.size() - tail.size())));
  }
  if (!IsPciAddress(owner)) owner = Lower(LinkBasename(Path("class/net/" + netdev + "/device")));
  if (!IsPciAddress(owner)) return true;  // virtual or unknown: nothing contradicts it
  return owner == pci;
}

void SysfsProbe::SelectGid(const std::string& port_dir, bool trust_gid_ndev, DeviceProbe* device,
                           PortProbe* port, Findings* findings) const {
  int ipv4_v2_elsewhere = 0, ipv4_v1_only = 0;
  std::string elsewhere_ndev;
  for (int index : NumericEntries(port_dir + "/gids", kMaxGids, 1 << 20, findings)) {
    const std::string i = std::to_string(index);
    std::string gid, type, ndev;
    if (!ReadReported(port_dir + "/gids/" + i, &gid, findings) || gid.empty() ||
        IsAllZeroGid(gid))
      continue;
    std::string ipv4 = Ipv4OfGid(gid);
    if (ipv4.empty()) continue;
    // Empty slots fail with EINVAL on types/ and ndevs/: that entry is simply not usable.
    if (!ReadReported(port_dir + "/gid_attrs/types/" + i, &type, findings)) continue;
    if (Lower(type) != "roce v2") {
      ++ipv4_v1_only;
      continue;
    }
    if (!ReadReported(port_dir + "/gid_attrs/ndevs/" + i, &ndev, findings) || ndev.empty())
      continue;
    if (device->netdev.empty() && IsSafeDeviceName(ndev) &&
        (Exists(Path("class/net/" + ndev)) ? NetdevOwnedBy(ndev, device->pci_address)
                                           : trust_gid_ndev)) {
      // No netdev found for the PCI function: accept the GID's netdev when it is not another
      // function's (in shared mode a foreign table can name "net1" too). A netdev this pod
      // cannot see at all is accepted only for allocated devices (trust_gid_ndev).
      device->netdev = ndev;
      device->netdev_source =
          Exists(Path("class/net/" + ndev)) ? "gid ndev" : "gid ndev (not in class/net)";
    }
    if (ndev != device->netdev) {
      ++ipv4_v2_elsewhere;
      if (elsewhere_ndev.empty() && ndev.size() <= 64) elsewhere_ndev = Printable(ndev);
      continue;
    }
    port->gid_index = index;
    port->gid = gid;
    port->gid_ipv4 = ipv4;
    return;
  }
  if (device->netdev.empty()) {
    port->gid_problem = "the device has no netdev in this pod, so no GID can be tied to it";
  } else if (ipv4_v2_elsewhere > 0) {
    port->gid_problem = "no RoCE v2 IPv4-mapped GID on " + device->netdev + " (" +
                        std::to_string(ipv4_v2_elsewhere) + " bound to another netdev, e.g. " +
                        elsewhere_ndev + ")";
  } else if (ipv4_v1_only > 0) {
    port->gid_problem = "only RoCE v1 IPv4-mapped GIDs on " + device->netdev;
  } else {
    port->gid_problem = "no RoCE v2 IPv4-mapped GID on " + device->netdev +
                        " (does the interface have an IPv4 address?)";
  }
}

}  // namespace hkim::wrapper
