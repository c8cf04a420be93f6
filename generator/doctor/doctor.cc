// `hkimgen doctor`'s stage: summaries out of log text -> one fleet table (doctor/doctor.h).

#include "doctor/doctor.h"
#include "support/untrusted_text.h"

#include <algorithm>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <ctime>
#include <set>
#include <sstream>

namespace hkim {
namespace {

using nlohmann::json;

constexpr std::string_view kMarker = "HKIM_HEALTH_SUMMARY ";

std::vector<std::string> Strings(const json& object, const char* key) {
  std::vector<std::string> out;
  if (!object.contains(key) || !object[key].is_array()) return out;
  for (const json& item : object[key])
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::string Text(const json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

// A number or a flag of another type reads as absent (nlohmann's value() would throw).
double NumberField(const json& object, const char* key) {
  return object.contains(key) && object[key].is_number() ? object[key].get<double>() : 0.0;
}

bool Flag(const json& object, const char* key) {
  return object.contains(key) && object[key].is_boolean() && object[key].get<bool>();
}

bool ReadSummary(const json& record, DoctorNode* node, std::string* problem) {
  if (!record.is_object() || Text(record, "tool") != "hkim-health") {
    *problem = "not an hkim-health summary";
    return false;
  }
  node->node = Text(record, "node");
  if (node->node.empty()) {
    *problem = "the summary names no node";
    return false;
  }
  node->mode = Text(record, "mode");
  node->time = Text(record, "time");
  node->pod = Text(record, "pod");
  node->mark = Text(record, "mark");
  node->passed = Flag(record, "passed");
  if (record.contains("checks") && record["checks"].is_array()) {
    for (const json& c : record["checks"]) {
      if (!c.is_object()) continue;
      node->checks.push_back({Text(c, "name"), Text(c, "status"), Text(c, "detail"),
                              Strings(c, "failures"), Strings(c, "fixes")});
    }
  }
  return true;
}

// The summary's "counters" ({devices, moved: [{device, port, netdev, deltas: {counter: n}}]}),
// as the in-pod check reads them around its checks; nothing when absent or of another shape.
std::optional<DoctorCounterRead> ReadCounters(const json& record, const std::string& time) {
  if (!record.contains("counters") || !record["counters"].is_object()) return std::nullopt;
  const json& counters = record["counters"];
  if (!counters.contains("moved") || !counters["moved"].is_array()) return std::nullopt;
  DoctorCounterRead read;
  read.time = time;
  for (const json& port : counters["moved"]) {
    if (!port.is_object() || !port.contains("deltas") || !port["deltas"].is_object()) continue;
    // A port number may come as a number or a string.
    const std::string number = port.contains("port") && port["port"].is_number_integer()
                                   ? std::to_string(port["port"].get<long long>())
                                   : Text(port, "port");
    for (auto it = port["deltas"].begin(); it != port["deltas"].end(); ++it) {
      if (!it.value().is_number_integer() || read.moved.size() >= kMaxCounterMoves) continue;
      read.moved.push_back({Text(port, "device"), number, Text(port, "netdev"), it.key(),
                            it.value().get<long long>()});
    }
  }
  return read;
}

std::vector<std::pair<std::string, DoctorSuspect>> ReadSuspects(const json& record) {
  std::vector<std::pair<std::string, DoctorSuspect>> out;
  if (!record.contains("suspects") || !record["suspects"].is_array()) return out;
  for (const json& s : record["suspects"]) {
    if (!s.is_object() || Text(s, "node").empty()) continue;
    DoctorSuspect suspect;
    suspect.rail = Text(s, "rail");
    suspect.busbw_gbps = NumberField(s, "busbw_gbps");
    suspect.expected_gbps = NumberField(s, "expected_gbps");
    suspect.transport = Text(s, "transport");
    suspect.evidence = Text(s, "evidence");
    suspect.time = Text(record, "time");
    out.emplace_back(Text(s, "node"), suspect);
  }
  return out;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value >= 10 ? "%.0f" : "%.1f", value);
  return text;
}

std::string SuspectCell(const DoctorSuspect& s) {
  return (s.rail.empty() ? std::string("all rails") : s.rail) + " " + Number(s.busbw_gbps) +
         "/" + Number(s.expected_gbps) + " GB/s";
}

// Checks of a night run that test nothing: its inventory read, the placement, a check pod that
// gave no verdict.
bool NightBookkeeping(const DoctorCheck& check) {
  return check.name == "inventory" || check.name == "placement" ||
         (check.name == "check-pod" && check.status == "skip");
}

// A summary that tested its node: any mode but night, or a night that placed a check pod that
// gave a verdict, or whose inventory failed (the node was marked from it).
bool IsTest(const DoctorNode& node) {
  if (node.mode != "night") return true;
  if (!node.passed) return true;
  for (const DoctorCheck& check : node.checks)
    if (!NightBookkeeping(check)) return true;
  return false;
}

std::string How(const DoctorNode& node) {
  if (node.mode != "night") return node.mode;
  for (const DoctorCheck& check : node.checks)
    if (!NightBookkeeping(check)) return "night";
  return "inventory";
}

// The night found the node busy: its placement was skipped as busy.
bool Busy(const DoctorNode& node) {
  for (const DoctorCheck& check : node.checks)
    if (check.name == "placement" && check.status == "skip" && check.detail.rfind("busy", 0) == 0)
      return true;
  return false;
}

// A test beats a skip; then the later time wins; at the same time, the fuller run (more checks).
bool Replaces(const DoctorNode& candidate, const DoctorNode& current) {
  if (candidate.tested != current.tested) return candidate.tested;
  if (candidate.time != current.time) return candidate.time > current.time;
  return candidate.checks.size() > current.checks.size();
}

std::string Pad(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

}  // namespace

long long SecondsBetween(const std::string& from, const std::string& to) {
  auto parse = [](const std::string& text, long long* seconds) {
    std::tm tm{};
    const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (end == nullptr) return false;
    if (*end == '.') {  // fractional seconds
      ++end;
      while (*end >= '0' && *end <= '9') ++end;
    }
    if (std::string(end) != "Z") return false;
    *seconds = static_cast<long long>(timegm(&tm));
    return true;
  };
  long long a = 0, b = 0;
  if (!parse(from, &a) || !parse(to, &b)) return -1;
  return b - a;
}

std::string ShortDuration(long long seconds) {
  if (seconds < 0) return "-";
  if (seconds < 60) return std::to_string(seconds) + "s";
  if (seconds < 3600) return std::to_string(seconds / 60) + "m";
  if (seconds < 86400) {
    const long long minutes = (seconds % 3600) / 60;
    return std::to_string(seconds / 3600) + "h" + (minutes ? " " + std::to_string(minutes) + "m" : "");
  }
  const long long hours = (seconds % 86400) / 3600;
  return std::to_string(seconds / 86400) + "d" + (hours ? " " + std::to_string(hours) + "h" : "");
}

std::string NewestTime(const std::vector<DoctorNode>& nodes) {
  std::string newest;
  for (const DoctorNode& node : nodes) newest = std::max({newest, node.time, node.last_busy});
  return newest;
}

std::vector<DoctorNode> CollectSummaries(const std::vector<DoctorInput>& inputs,
                                         std::vector<std::string>& warnings) {
  std::map<std::string, DoctorNode> latest;
  std::map<std::string, std::vector<DoctorSuspect>> suspects;  // node -> latest localization's
  std::map<std::string, std::set<std::string>> busy;  // node -> times it was found busy
  std::map<std::string, std::vector<DoctorCounterRead>> reads;  // node -> its counter reads
  for (const DoctorInput& input : inputs) {
    std::istringstream lines(input.text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      const size_t at = line.find(kMarker);
      if (at == std::string::npos) continue;
      const json record = json::parse(line.substr(at + kMarker.size()), nullptr, false);
      DoctorNode node;
      std::string problem = "the summary is not valid JSON (cut off?)";
      if (record.is_discarded() || !ReadSummary(record, &node, &problem)) {
        warnings.push_back(input.source + ":" + std::to_string(number) + ": " + problem);
        continue;
      }
      for (auto& [name, suspect] : ReadSuspects(record)) {
        std::vector<DoctorSuspect>& list = suspects[name];
        if (!list.empty() && list.front().time < suspect.time) list.clear();
        if (!list.empty() && list.front().time > suspect.time) continue;
        bool seen = false;
        for (const DoctorSuspect& s : list) seen |= s.rail == suspect.rail;
        if (!seen) list.push_back(suspect);
      }
      if (std::optional<DoctorCounterRead> read = ReadCounters(record, node.time))
        reads[node.node].push_back(std::move(*read));
      node.tested = IsTest(node);
      node.how = How(node);
      if (Busy(node)) busy[node.node].insert(node.time);
      auto it = latest.find(node.node);
      if (it == latest.end() || Replaces(node, it->second)) latest[node.node] = std::move(node);
    }
  }
  for (auto& [name, list] : suspects) {
    DoctorNode& node = latest[name];
    if (node.node.empty()) {  // its own pod left no summary (never ran, or its log is missing)
      node.node = name;
      node.mode = "gate";
      node.time = list.front().time;
      node.passed = false;
    }
    node.suspects = list;
  }
  for (auto& [name, times] : busy) {
    DoctorNode& node = latest[name];
    for (const std::string& time : times) {
      // Busy nights after the last test (an untested row's own skip counts too).
      if (node.tested && time <= node.time) continue;
      ++node.busy_skips;
      node.last_busy = std::max(node.last_busy, time);
    }
  }
  for (auto& [name, list] : reads) {
    auto node = latest.find(name);
    if (node == latest.end()) continue;
    // Oldest first, the same bytes for any input order; the newest kMaxCounterReads kept.
    auto key = [](const DoctorCounterRead& read) {
      std::string text = read.time;
      for (const DoctorCounterMove& m : read.moved)
        text += "\n" + m.device + "/" + m.port + "/" + m.netdev + "/" + m.counter + "=" +
                std::to_string(m.delta);
      return text;
    };
    std::sort(list.begin(), list.end(), [&](const DoctorCounterRead& a, const DoctorCounterRead& b) {
      return key(a) < key(b);
    });
    if (list.size() > kMaxCounterReads) list.erase(list.begin(), list.end() - kMaxCounterReads);
    node->second.counter_reads = std::move(list);
  }
  std::vector<DoctorNode> out;
  for (auto& [name, node] : latest) out.push_back(std::move(node));
  return out;
}

// A node that passed but waits for a declared step (the OKE VF DaemonSet's reboot for the RDMA
// exclusive mode: check status "wait"). Not a failure: doctor exits 0 for it and lists it apart.
bool Waits(const DoctorNode& node) {
  if (!node.passed) return false;
  for (const DoctorCheck& check : node.checks)
    if (check.status == "wait") return true;
  return false;
}

std::string FormatFleetTable(const std::vector<DoctorNode>& given, const std::string& group_label) {
  const bool grouped = !group_label.empty();
  std::vector<DoctorNode> nodes = given;
  if (grouped) {
    // Nodes of one block together (a failing switch shows as a block of FAILs); by name within.
    std::stable_sort(nodes.begin(), nodes.end(), [](const DoctorNode& a, const DoctorNode& b) {
      return a.group < b.group;
    });
  }
  auto group_of = [](const DoctorNode& node) { return node.group.empty() ? "-" : node.group; };
  // Columns: node, result, then each check name in the order first seen, then time and mark.
  std::vector<std::string> check_names;
  for (const DoctorNode& node : nodes)
    for (const DoctorCheck& check : node.checks)
      if (std::find(check_names.begin(), check_names.end(), check.name) == check_names.end())
        check_names.push_back(check.name);
  const std::string now = NewestTime(nodes);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"NODE", "RESULT"};
  // The label's name without its prefix: rdma.network_block_id, rack.
  if (grouped) header.insert(header.begin() + 1, group_label.substr(group_label.rfind('/') + 1));
  for (const std::string& name : check_names) header.push_back(name);
  header.push_back("TIME");
  header.push_back("HOW");
  header.push_back("AGO");
  header.push_back("BUSY");
  header.push_back("MARK");
  header.push_back("SUSPECT");
  rows.push_back(header);
  int failed = 0;
  for (const DoctorNode& node : nodes) {
    failed += !node.passed;
    std::vector<std::string> row = {node.node, !node.passed   ? "FAIL"
                                               : !node.tested ? "UNTESTED"
                                               : Waits(node)  ? "WAIT"
                                                              : "PASS"};
    if (grouped) row.insert(row.begin() + 1, group_of(node));
    for (const std::string& name : check_names) {
      std::string cell = "-";
      for (const DoctorCheck& check : node.checks)
        if (check.name == name) cell = check.status;
      row.push_back(cell);
    }
    row.push_back(node.tested ? node.time : "never");
    row.push_back(node.tested ? node.how : "-");
    row.push_back(node.tested ? ShortDuration(SecondsBetween(node.time, now)) : "-");
    row.push_back(node.busy_skips == 0
                      ? "-"
                      : std::to_string(node.busy_skips) + " (last " +
                            ShortDuration(SecondsBetween(node.last_busy, now)) + " ago)");
    row.push_back(node.mark.empty() ? "-" : node.mark);
    std::string suspect;
    for (const DoctorSuspect& s : node.suspects) suspect += (suspect.empty() ? "" : ", ") + SuspectCell(s);
    row.push_back(suspect.empty() ? "-" : suspect);
    rows.push_back(row);
  }
  // Node names, check names and statuses come from pod logs: escaped and cut (the one sanitiser).
  for (auto& row : rows)
    for (std::string& cell : row) cell = UntrustedText(cell, 80);
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i)
      line += i + 1 == row.size() ? row[i] : Pad(row[i], widths[i] + 2);
    out += line + "\n";
  }
  for (const DoctorNode& node : nodes) {
    if (node.passed) continue;
    const auto safe = [](const std::string& text) { return UntrustedText(text, kMaxMessageBytes); };
    std::string body;
    for (const DoctorCheck& check : node.checks) {
      if (check.status == "pass" || check.status == "skip") continue;
      body += "  " + safe(check.name) + ": " + safe(check.status) +
              (check.detail.empty() ? "" : " (" + safe(check.detail) + ")") + "\n";
      for (const std::string& failure : check.failures) body += "    " + safe(failure) + "\n";
      for (const std::string& fix : check.fixes) body += "    fix: " + safe(fix) + "\n";
    }
    // A node known only as a suspect (or whose summary names no failing check) has nothing to
    // list here: its row and the suspects below say it all (empty sections).
    if (body.empty()) continue;
    out += "\n" + safe(node.node) + " (" + safe(node.mode) +
           (node.pod.empty() ? "" : ", pod " + safe(node.pod)) + "):\n" + body;
  }
  if (grouped) {
    std::map<std::string, std::pair<int, int>> per_group;  // group -> nodes, failing
    for (const DoctorNode& node : nodes) {
      auto& [count, failing] = per_group[group_of(node)];
      ++count;
      failing += !node.passed;
    }
    out += "\nBy " + UntrustedText(group_label) + ":\n";
    for (const auto& [group, counts] : per_group)
      out += "  " + UntrustedText(group) + ": " + std::to_string(counts.first) + " node(s), " +
             std::to_string(counts.second) + " failing\n";
  }
  int waiting = 0;
  for (const DoctorNode& node : nodes) {
    if (!Waits(node)) continue;
    if (waiting++ == 0) out += "\nWaiting for a declared step (not a fault):\n";
    for (const DoctorCheck& check : node.checks) {
      if (check.status != "wait") continue;
      out += "  " + UntrustedText(node.node) + " " + UntrustedText(check.name) +
             (check.detail.empty() ? "" : ": " + UntrustedText(check.detail, kMaxMessageBytes)) +
             "\n";
      for (const std::string& fix : check.fixes)
        out += "    fix: " + UntrustedText(fix, kMaxMessageBytes) + "\n";
    }
  }
  int suspects = 0;
  for (const DoctorNode& node : nodes) {
    for (const DoctorSuspect& s : node.suspects) {
      if (suspects++ == 0) out += "\nSuspects (the gate's pairwise localization):\n";
      out += "  node " + UntrustedText(node.node) +
             (grouped ? " (" + UntrustedText(group_label) + "=" + UntrustedText(group_of(node)) + ")"
                      : "") +
             (s.rail.empty() ? "" : " rail " + UntrustedText(s.rail)) + ": " +
             Number(s.busbw_gbps) + " GB/s vs >= " + Number(s.expected_gbps) + " expected" +
             (s.transport.empty() ? "" : " (" + UntrustedText(s.transport) + ")") + "\n";
      if (!s.evidence.empty()) out += "    " + UntrustedText(s.evidence, kMaxMessageBytes) + "\n";
    }
  }
  int untested = 0, busy_nodes = 0;
  for (const DoctorNode& node : nodes) {
    untested += !node.tested;
    busy_nodes += node.busy_skips > 0;
  }
  out += "\n" + std::to_string(nodes.size()) + " node(s), " + std::to_string(failed) + " failing" +
         (untested ? ", " + std::to_string(untested) + " never tested" : "") +
         (busy_nodes ? ", " + std::to_string(busy_nodes) + " busy since their last test" : "") +
         (waiting ? ", " + std::to_string(waiting) + " waiting" : "") +
         (suspects ? ", " + std::to_string(suspects) + " suspect(s)" : "") + "\n";
  // AGO is relative to the input, not the clock (the same logs print the same table): said so,
  // or a days-old log reads "0s".
  if (const std::string newest = NewestTime(nodes); !newest.empty())
    out += "AGO counts back from the newest record read, " + UntrustedText(newest) + "\n";
  return out;
}

}  // namespace hkim
