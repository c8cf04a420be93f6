#include "environment_scan.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

namespace hkim::wrapper {
namespace {

constexpr std::string_view kPrefix = "PCIDEVICE_";
constexpr std::string_view kInfoSuffix = "_INFO";

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Printable excerpt for messages: control characters escaped, long values cut.
std::string Excerpt(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 60; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > 60) out += "...";
  return out;
}

// nlohmann parses recursively; measure nesting first so hostile input cannot overflow the stack.
int JsonDepth(const std::string& text) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      max_depth = std::max(max_depth, ++depth);
    else if (c == ']' || c == '}')
      --depth;
  }
  return max_depth;
}

// Byte offset (0-based) -> 1-based line:column inside the value.
std::string Position(const std::string& text, size_t byte) {
  int line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

struct InfoEntry {
  std::string rdma_dev;  // empty when absent
  std::string uverbs;    // "uverbs6", empty when absent
};

// Parses one _INFO value into address -> entry. Returns false (with a finding) when the value
// cannot be used at all.
bool ParseInfo(const std::string& name, const std::string& value,
               std::map<std::string, InfoEntry>* out, Findings* findings) {
  const std::string where = "env " + name;
  if (value.size() > kMaxInfoBytes) {
    findings->push_back({Severity::kWarning, where, "env.info-too-large",
                         "value is " + std::to_string(value.size()) + " bytes, more than the " +
                             std::to_string(kMaxInfoBytes) + " accepted; ignoring it",
                         "check the SR-IOV device plugin; device names will come from sysfs"});
    return false;
  }
  if (JsonDepth(value) > kMaxInfoDepth) {
    findings->push_back(
        {Severity::kWarning, where, "env.info-json-malformed",
         "JSON nested deeper than " + std::to_string(kMaxInfoDepth) + " levels; ignoring it",
         "check the SR-IOV device plugin; device names will come from sysfs"});
    return false;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(value);
  } catch (const nlohmann::json::parse_error& e) {
    findings->push_back(
        {Severity::kWarning, where + ":" + Position(value, e.byte == 0 ? 0 : e.byte - 1),
         "env.info-json-malformed", "malformed JSON (" + std::string(e.what()) + "); ignoring it",
         "check the SR-IOV device plugin; device names will come from sysfs"});
    return false;
  } catch (const std::exception& e) {
    findings->push_back({Severity::kWarning, where, "env.info-json-malformed",
                         std::string("cannot parse value: ") + e.what(),
                         "check the SR-IOV device plugin; device names will come from sysfs"});
    return false;
  }
  if (!doc.is_object()) {
    findings->push_back({Severity::kWarning, where, "env.info-not-object",
                         std::string("expected a JSON object keyed by PCI address, found ") +
                             doc.type_name() + "; ignoring it",
                         "check the SR-IOV device plugin; device names will come from sysfs"});
    return false;
  }
  for (const auto& [key, providers] : doc.items()) {
    std::string address = Lower(Trim(key));
    if (!IsPciAddress(address)) {
      findings->push_back({Severity::kWarning, where, "env.bad-pci-address",
                           "key \"" + Excerpt(key) + "\" is not a PCI address; skipping it", ""});
      continue;
    }
    InfoEntry entry;
    if (providers.is_object()) {
      auto rdma = providers.find("rdma");
      if (rdma != providers.end() && rdma->is_object()) {
        auto uverbs = rdma->find("uverbs");
        if (uverbs != rdma->end() && uverbs->is_string()) {
          const std::string path = uverbs->get<std::string>();
          const std::string node = path.substr(path.rfind('/') + 1);
          if (node.rfind("uverbs", 0) == 0 && IsSafeDeviceName(node)) entry.uverbs = node;
        }
        auto dev = rdma->find("rdma_dev");
        if (dev != rdma->end()) {
          if (dev->is_string() && IsSafeDeviceName(dev->get<std::string>())) {
            entry.rdma_dev = dev->get<std::string>();
          } else {
            findings->push_back({Severity::kWarning, where, "env.bad-rdma-dev",
                                 "rdma.rdma_dev of " + address + " is not a usable device name (" +
                                     Excerpt(dev->dump()) + "); looking it up in sysfs instead",
                                 ""});
          }
        }
      }
    } else {
      findings->push_back({Severity::kWarning, where, "env.info-not-object",
                           "entry for " + address + " is not an object; looking it up in sysfs",
                           ""});
    }
    (*out)[address] = entry;
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> ParseEnvironment(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> vars;
  for (const std::string& entry : entries) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    vars.emplace(entry.substr(0, eq), entry.substr(eq + 1));  // emplace: first occurrence wins
  }
  return vars;
}

bool IsPciAddress(const std::string& text) {
  // DDDD:BB:DD.F
  size_t first = text.find(':');
  if (first == std::string::npos || first < 4 || first > 8) return false;
  if (text.size() != first + 8) return false;
  auto hex = [&](size_t from, size_t n) {
    for (size_t i = from; i < from + n; ++i)
      if (!std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
    return true;
  };
  return hex(0, first) && hex(first + 1, 2) && text[first + 3] == ':' && hex(first + 4, 2) &&
         text[first + 6] == '.' && text[first + 7] >= '0' && text[first + 7] <= '7';
}

bool IsSafeVariableName(const std::string& name) {
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return false;
  }
  return !name.empty();
}

bool IsSafeDeviceName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return false;
  }
  return true;
}

EnvironmentScan ScanEnvironment(const std::vector<std::string>& entries) {
  EnvironmentScan scan;
  scan.vars = ParseEnvironment(entries);

  // Pair list and _INFO variables by their shared stem. std::map keeps the order deterministic.
  std::map<std::string, std::string> lists, infos;  // stem -> value
  size_t plugin_vars = 0;
  std::string first_ignored;
  for (const auto& [name, value] : scan.vars) {
    if (name.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    scan.plugin_vars_present = true;
    if (!IsSafeVariableName(name)) {
      scan.findings.push_back(
          {Severity::kWarning, "env", "env.bad-variable-name",
           "variable \"" + Excerpt(name) +
               "\" has bytes other than letters, digits, '_', '-' and '.'; ignoring it",
           "the SR-IOV device plugin never writes such a name: check the pod's env"});
      continue;
    }
    if (++plugin_vars > kMaxPluginVariables) {
      if (first_ignored.empty()) first_ignored = name;
      continue;
    }
    if (EndsWith(name, kInfoSuffix)) {
      infos[name.substr(0, name.size() - kInfoSuffix.size())] = value;
    } else {
      lists[name] = value;
    }
  }
  if (plugin_vars > kMaxPluginVariables) {
    scan.findings.push_back(
        {Severity::kWarning, "env", "env.too-many-variables",
         std::to_string(plugin_vars) + " PCIDEVICE_* variables; reading the first " +
             std::to_string(kMaxPluginVariables) + " in name order and ignoring " +
             std::to_string(plugin_vars - kMaxPluginVariables) + ", from " + first_ignored + " on",
         "request fewer device-plugin resources in one container"});
  }

  std::set<std::string> seen;
  size_t over_limit = 0;  // devices beyond kMaxAllocatedDevices
  std::string first_over;
  auto add = [&](const std::string& address, const std::string& var, const InfoEntry& info_entry) {
    if (seen.count(address)) {
      scan.findings.push_back({Severity::kWarning, "env " + var, "env.duplicate-address",
                               address + " is listed more than once; using it once", ""});
      return;
    }
    if (scan.devices.size() >= kMaxAllocatedDevices) {
      if (over_limit++ == 0) first_over = address + " of " + var;
      return;
    }
    seen.insert(address);
    scan.devices.push_back({address, var, info_entry.rdma_dev, info_entry.uverbs});
  };

  std::set<std::string> stems;
  for (const auto& [stem, value] : lists) stems.insert(stem);
  for (const auto& [stem, value] : infos) stems.insert(stem);

  for (const std::string& stem : stems) {
    std::map<std::string, InfoEntry> info;
    bool have_info = false;
    auto info_it = infos.find(stem);
    if (info_it != infos.end()) {
      have_info =
          ParseInfo(stem + std::string(kInfoSuffix), info_it->second, &info, &scan.findings);
    }
    auto list_it = lists.find(stem);
    if (list_it == lists.end()) {
      // Only an _INFO variable: its keys are the allocation.
      if (have_info) {
        scan.findings.push_back(
            {Severity::kNote, "env " + stem + std::string(kInfoSuffix), "env.info-without-list",
             "no " + stem + " list variable; using the addresses of the _INFO JSON", ""});
        for (const auto& [address, entry] : info) add(address, stem, entry);
      }
      continue;
    }
    const std::string& value = list_it->second;
    std::set<std::string> listed;
    size_t start = 0;
    size_t count = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      std::string token =
          Trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      start = comma == std::string::npos ? value.size() + 1 : comma + 1;
      if (token.empty()) continue;
      if (++count > kMaxListEntries) continue;  // counted for the finding below, not read
      std::string address = Lower(token);
      if (!IsPciAddress(address)) {
        scan.findings.push_back({Severity::kWarning, "env " + stem, "env.bad-pci-address",
                                 "\"" + Excerpt(token) + "\" is not a PCI address; skipping it",
                                 "check the SR-IOV device plugin's resource configuration"});
        continue;
      }
      listed.insert(address);
      auto entry = info.find(address);
      if (have_info && entry == info.end()) {
        scan.findings.push_back(
            {Severity::kNote, "env " + stem + std::string(kInfoSuffix), "env.info-missing-address",
             "no entry for " + address + "; its RDMA device comes from sysfs", ""});
      }
      add(address, stem, entry == info.end() ? InfoEntry{} : entry->second);
    }
    for (const auto& [address, entry] : info) {
      if (!listed.count(address)) {
        scan.findings.push_back({Severity::kWarning, "env " + stem + std::string(kInfoSuffix),
                                 "env.info-unknown-address",
                                 address + " is described but not allocated in " + stem +
                                     "; ignoring it (only allocated devices count)",
                                 ""});
      }
    }
    if (count > kMaxListEntries) {
      scan.findings.push_back({Severity::kWarning, "env " + stem, "env.too-many-addresses",
                               "lists " + std::to_string(count) + " entries; reading the first " +
                                   std::to_string(kMaxListEntries) + " and ignoring " +
                                   std::to_string(count - kMaxListEntries),
                               "check the SR-IOV device plugin's resource configuration"});
    }
    if (listed.empty()) {
      scan.findings.push_back(
          {Severity::kWarning, "env " + stem, "env.empty-allocation", "lists no PCI address", ""});
    }
  }
  if (over_limit > 0) {
    scan.findings.push_back({Severity::kWarning, "env", "env.too-many-devices",
                             std::to_string(kMaxAllocatedDevices + over_limit) +
                                 " PCI functions allocated; using the first " +
                                 std::to_string(kMaxAllocatedDevices) + " and ignoring " +
                                 std::to_string(over_limit) + ", from " + first_over + " on",
                             "request fewer device-plugin resources in one container"});
  }
  return scan;
}

}  // namespace hkim::wrapper
