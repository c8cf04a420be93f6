#include "vf_counters.h"

#include <dirent.h>

#include <algorithm>

namespace hkim::health {
namespace {

// The one interface of a device (its netdev under device/net), "" when none or several.
std::string NetdevOf(const std::string& root, const std::string& device) {
  DIR* dir = ::opendir((root + "/" + device + "/device/net").c_str());
  if (dir == nullptr) return "";
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != ".." && name.size() <= 15) names.push_back(name);
    if (names.size() > 1) break;
  }
  ::closedir(dir);
  return names.size() == 1 ? names[0] : "";
}

}  // namespace

CounterSnapshot TakeCounterSnapshot(const std::string& root) {
  CounterSnapshot snapshot;
  for (const std::string& device : ListRdmaDevices(root)) {
    for (PortSample& port : ReadRailPorts(root, {device, device})) {
      if (port.state == "MISSING") continue;
      snapshot.ports[device + "/" + std::to_string(port.port)] = std::move(port);
    }
    const std::string netdev = NetdevOf(root, device);
    if (!netdev.empty()) snapshot.netdevs[device] = netdev;
  }
  return snapshot;
}

bool IsErrorCounter(const std::string& counter) {
  // Traffic, and congestion control's own notifications, move in a healthy run.
  static const char* const kNotErrors[] = {"np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets",
                                           "rp_cnp_ignored", "roce_adp_retrans", "roce_adp_retrans_to"};
  for (const char* name : kNotErrors)
    if (counter == name) return false;
  static const char* const kParts[] = {"err",     "discard", "drop",     "downed", "out_of_sequence",
                                       "timeout", "nak",     "duplicate", "overrun", "out_of_buffer",
                                       "slow_restart", "symbol",  "recovery", "integrity"};
  for (const char* part : kParts)
    if (counter.find(part) != std::string::npos) return true;
  return false;
}

std::vector<CounterMove> ErrorCounterMoves(const CounterSnapshot& before,
                                           const CounterSnapshot& after) {
  std::vector<CounterMove> moves;
  for (const auto& [key, port] : after.ports) {
    const auto old = before.ports.find(key);
    if (old == before.ports.end()) continue;
    CounterMove move{port.device, port.port, "", {}};
    if (const auto netdev = after.netdevs.find(port.device); netdev != after.netdevs.end())
      move.netdev = netdev->second;
    for (const auto& [name, value] : port.counters) {
      if (!IsErrorCounter(name)) continue;
      const auto was = old->second.counters.find(name);
      if (was == old->second.counters.end() || value <= was->second) continue;
      move.deltas[name] = value - was->second;
    }
    if (!move.deltas.empty()) moves.push_back(std::move(move));
  }
  return moves;
}

std::string DescribeMoves(const std::vector<CounterMove>& moves) {
  std::string out;
  for (const CounterMove& move : moves) {
    out += (out.empty() ? "" : "; ") + move.device +
           (move.netdev.empty() ? "" : " (" + move.netdev + ")") + " port " +
           std::to_string(move.port) + ":";
    bool first = true;
    for (const auto& [name, delta] : move.deltas) {
      out += (first ? " " : ", ") + name + " +" + std::to_string(delta);
      first = false;
    }
  }
  return out;
}

nlohmann::json MovesJson(size_t devices, const std::vector<CounterMove>& moves) {
  nlohmann::json moved = nlohmann::json::array();
  for (const CounterMove& move : moves)
    moved.push_back({{"device", move.device},
                     {"port", move.port},
                     {"netdev", move.netdev},
                     {"deltas", move.deltas}});
  return {{"devices", devices}, {"moved", moved}};
}

}  // namespace hkim::health
