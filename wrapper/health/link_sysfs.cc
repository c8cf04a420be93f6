#include "link_sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "text_cut.h"

namespace hkim::health {
namespace {

// sysfs attributes are at most a page; more is not a counter.
constexpr size_t kMaxFileBytes = 4096;
// A port has a few dozen counters; a folder with more entries is not one we understand.
constexpr size_t kMaxEntries = 512;

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool PlainName(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), NameChar);
}

// Reads a small file whole; false with why.
bool ReadSmallFile(const std::string& path, std::string* text, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    *why = std::strerror(errno);
    return false;
  }
  text->clear();
  char buffer[1024];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    text->append(buffer, static_cast<size_t>(n));
    if (text->size() > kMaxFileBytes) {
      *why = "longer than " + std::to_string(kMaxFileBytes) + " bytes";
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

// Sorted plain names in `dir` (at most kMaxEntries); false when it cannot be opened.
bool ListNames(const std::string& dir, std::vector<std::string>* names) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return false;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string name = entry->d_name;
    if (name == "." || name == ".." || !PlainName(name)) continue;
    names->push_back(name);
    if (names->size() >= kMaxEntries) break;
  }
  ::closedir(handle);
  std::sort(names->begin(), names->end());
  return true;
}

void ReadCounters(const std::string& dir, PortSample* sample) {
  std::vector<std::string> names;
  if (!ListNames(dir, &names)) return;  // hw_counters is absent on some drivers
  for (const std::string& name : names) {
    std::string text, why;
    uint64_t value = 0;
    if (!ReadSmallFile(dir + "/" + name, &text, &why)) {
      // Some counters refuse reads by design (EINVAL/EOPNOTSUPP on RoCE): not a problem.
      continue;
    }
    if (!ParseCounterText(text, &value)) {
      sample->problems.push_back(dir + "/" + name + ": not a counter");
      continue;
    }
    sample->counters[name] = value;
  }
}

std::string ReadState(const std::string& path, PortSample* sample) {
  std::string text, why, name;
  if (!ReadSmallFile(path, &text, &why)) {
    sample->problems.push_back(path + ": " + why);
    return "";
  }
  if (!ParsePortStateText(text, &name)) {
    sample->problems.push_back(path + ": not a port state");
    return "";
  }
  return name;
}

}  // namespace

bool ParseCounterText(const std::string& text, uint64_t* value) {
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;
  if (end == 0 || end > 20) return false;
  uint64_t out = 0;
  for (size_t i = 0; i < end; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (out > (UINT64_MAX - digit) / 10) return false;
    out = out * 10 + digit;
  }
  *value = out;
  return true;
}

bool ParsePortStateText(const std::string& text, std::string* name) {
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;
  size_t i = 0;
  while (i < end && text[i] >= '0' && text[i] <= '9') ++i;
  if (i == 0 || i > 3 || i + 2 > end || text[i] != ':' || text[i + 1] != ' ') return false;
  const std::string out = text.substr(i + 2, end - i - 2);
  if (!PlainName(out)) return false;
  *name = out;
  return true;
}

bool ParseRailList(const std::string& text, std::vector<RailDevice>* rails, std::string* error) {
  for (const std::string& item : CommaItems(text)) {
    const size_t eq = item.find('=');
    const std::string rail = eq == std::string::npos ? "" : item.substr(0, eq);
    const std::string device = eq == std::string::npos ? "" : item.substr(eq + 1);
    const std::string bare = !device.empty() && device[0] == '@' ? device.substr(1) : device;
    if (!PlainName(rail) || !PlainName(bare)) {
      *error = "'" + item + "' is not rail=device or rail=@interface";
      return false;
    }
    rails->push_back({rail, device});
  }
  return true;
}

std::vector<std::string> ListRdmaDevices(const std::string& root) {
  std::vector<std::string> names;
  ListNames(root, &names);
  return names;
}

std::vector<RailDevice> ResolveRails(const std::string& root,
                                     const std::vector<RailDevice>& wanted) {
  const std::vector<std::string> devices = ListRdmaDevices(root);
  std::vector<RailDevice> out;
  if (wanted.empty()) {
    for (const std::string& device : devices) out.push_back({device, device});
    return out;
  }
  for (const RailDevice& rail : wanted) {
    if (rail.device.empty() || rail.device[0] != '@') {
      out.push_back(rail);
      continue;
    }
    const std::string ifname = rail.device.substr(1);
    RailDevice resolved{rail.rail, ""};
    for (const std::string& device : devices) {
      if (::access((root + "/" + device + "/device/net/" + ifname).c_str(), F_OK) == 0) {
        resolved.device = device;
        break;
      }
    }
    out.push_back(resolved);
  }
  return out;
}

std::vector<PortSample> ReadRailPorts(const std::string& root, const RailDevice& rail) {
  std::vector<PortSample> out;
  auto missing = [&](const std::string& why) {
    PortSample sample;
    sample.rail = rail.rail;
    sample.device = rail.device;
    sample.state = "MISSING";
    sample.problems.push_back(why);
    out.push_back(sample);
    return out;
  };
  if (rail.device.empty()) return missing("no RDMA device under " + root + " for this rail");
  const std::string ports_dir = root + "/" + rail.device + "/ports";
  std::vector<std::string> ports;
  if (!ListNames(ports_dir, &ports)) return missing(ports_dir + " cannot be read");
  for (const std::string& port : ports) {
    if (port.size() > 3 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    PortSample sample;
    sample.rail = rail.rail;
    sample.device = rail.device;
    sample.port = std::stoi(port);
    const std::string dir = ports_dir + "/" + port;
    sample.state = ReadState(dir + "/state", &sample);
    std::string text, why, phys;
    if (ReadSmallFile(dir + "/phys_state", &text, &why) && ParsePortStateText(text, &phys))
      sample.phys_state = phys;
    ReadCounters(dir + "/counters", &sample);
    ReadCounters(dir + "/hw_counters", &sample);
    out.push_back(sample);
  }
  if (out.empty()) return missing(ports_dir + " has no port");
  return out;
}

}  // namespace hkim::health
