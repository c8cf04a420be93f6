// `hkimgen doctor --html`'s page: the fleet's nodes -> a mustache context -> one HTML page
// (doctor/doctor_html.h).

#include "doctor/doctor_html.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <kainjow/mustache.hpp>

#include "support/embedded_files.h"
#include "support/untrusted_text.h"

namespace hkim {
namespace {

namespace mustache = kainjow::mustache;

constexpr const char* kTemplate = "templates/doctor/report.html.mustache";

// A value from a log, as the page shows it: control bytes as visible escapes and cut to a
// bounded length (the template's HTML escaping then makes it text, never markup).
mustache::data Untrusted(const std::string& text, size_t max_bytes = kMaxQuotedValueBytes) {
  return mustache::data(UntrustedText(text, max_bytes));
}

mustache::data Flag(bool value) { return mustache::data(value); }

// GB/s as the summary gave them, to two decimals at most: 37.5, 194.6, 150 (the table rounds
// more, for its width).
std::string GbpsText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

// The page's CSS classes are a fixed set: a status from a log picks one, it never becomes one.
std::string StatusClass(const std::string& status) {
  for (const char* known : {"pass", "fail", "skip", "error", "wait"})
    if (status == known) return known;
  return "other";
}

std::string Result(const DoctorNode& node) {
  return !node.passed ? "FAIL" : !node.tested ? "UNTESTED" : Waits(node) ? "WAIT" : "PASS";
}

std::string SuspectCell(const DoctorNode& node) {
  std::string cell;
  for (const DoctorSuspect& s : node.suspects)
    cell += (cell.empty() ? "" : ", ") + (s.rail.empty() ? std::string("all rails") : s.rail) +
            " " + GbpsText(s.busbw_gbps) + "/" + GbpsText(s.expected_gbps) + " GB/s";
  return cell.empty() ? "-" : cell;
}

mustache::data Strings(const std::vector<std::string>& items) {
  mustache::data list{mustache::data::type::list};
  for (const std::string& item : items) list.push_back(Untrusted(item, kMaxMessageBytes));
  return list;
}

mustache::data CheckData(const DoctorCheck& check) {
  mustache::data c;
  c.set("name", Untrusted(check.name));
  c.set("status", Untrusted(check.status));
  c.set("status_class", StatusClass(check.status));
  c.set("detail", Untrusted(check.detail, kMaxMessageBytes));
  c.set("has_problems", Flag(!check.failures.empty() || !check.fixes.empty()));
  c.set("failures", Strings(check.failures));
  c.set("fixes", Strings(check.fixes));
  if (std::optional<BusbwReading> reading = ParseBusbw(check.detail)) {
    // The threshold sits at the bar's middle: half the bar is the minimum, a full bar twice it.
    const double ratio = reading->busbw_gbps / reading->threshold_gbps;
    mustache::data measured;
    measured.set("busbw", GbpsText(reading->busbw_gbps));
    measured.set("threshold", GbpsText(reading->threshold_gbps));
    measured.set("percent", std::to_string(static_cast<long long>(ratio * 100 + 0.5)));
    measured.set("bar_percent",
                 std::to_string(static_cast<long long>(std::min(ratio * 50, 100.0) + 0.5)));
    measured.set("below", Flag(ratio < 1));
    c.set("measured", measured);
  } else {
    c.set("measured", Flag(false));
  }
  return c;
}

mustache::data SuspectData(const DoctorNode& node, const DoctorSuspect& s) {
  mustache::data d;
  d.set("node", Untrusted(node.node));
  d.set("group", Untrusted(node.group.empty() ? "-" : node.group));
  d.set("rail", Untrusted(s.rail.empty() ? "all rails" : s.rail));
  d.set("busbw", GbpsText(s.busbw_gbps));
  d.set("expected", GbpsText(s.expected_gbps));
  d.set("transport", Untrusted(s.transport.empty() ? "-" : s.transport));
  d.set("has_transport", Flag(!s.transport.empty()));
  d.set("evidence", Untrusted(s.evidence, kMaxMessageBytes));
  d.set("time", Untrusted(s.time));
  return d;
}

// The node's error counters over its reads: one row per device, port and counter that moved in
// any read, its delta in each read (oldest first; 0 where it did not move) and the trend of the
// last two.
mustache::data CounterRows(const DoctorNode& node, bool* any) {
  std::map<std::tuple<std::string, std::string, std::string>, std::string> netdev_of;
  for (const DoctorCounterRead& read : node.counter_reads)
    for (const DoctorCounterMove& m : read.moved)
      netdev_of[{m.device, m.port, m.counter}] = m.netdev;
  mustache::data rows{mustache::data::type::list};
  *any = false;
  for (const auto& [series, netdev] : netdev_of) {
    std::vector<long long> deltas;
    for (const DoctorCounterRead& read : node.counter_reads) {
      long long delta = 0;
      for (const DoctorCounterMove& m : read.moved)
        if (std::tie(m.device, m.port, m.counter) ==
            std::tie(std::get<0>(series), std::get<1>(series), std::get<2>(series)))
          delta += m.delta;
      deltas.push_back(delta);
    }
    std::string runs;
    for (long long d : deltas)
      runs += (runs.empty() ? "" : ", ") + std::string(d > 0 ? "+" : "") + std::to_string(d);
    const long long last = deltas.back();
    const long long before = deltas.size() > 1 ? deltas[deltas.size() - 2] : 0;
    const std::string trend = deltas.size() == 1 ? "one read"
                              : last > before    ? "rising"
                              : last < before    ? "falling"
                                                 : "steady";
    mustache::data row;
    const std::string& device = std::get<0>(series);
    row.set("port", Untrusted(device + "/" + std::get<1>(series)));
    row.set("netdev", Untrusted(netdev.empty() ? "-" : netdev));
    row.set("counter", Untrusted(std::get<2>(series)));
    row.set("runs", runs);  // numbers only
    row.set("trend", trend);
    row.set("rising", Flag(trend == "rising"));
    rows.push_back(row);
    *any = true;
  }
  return rows;
}

// The page's fixed classes for a condition as shown: True (issues) fails, False passes.
std::string ConditionClass(const ConditionReading& reading) {
  return reading.shown == "True" ? "fail" : reading.shown == "False" ? "pass" : "other";
}

// The newest of `now` and every condition's heartbeat: the page's ages never run negative.
std::string NewestWithHeartbeats(const std::vector<DoctorNode>& nodes, std::string now) {
  for (const DoctorNode& node : nodes) {
    const std::string& beat = node.condition.last_heartbeat;
    if (!node.condition.present || SecondsBetween(beat, beat) < 0) continue;
    if (now.empty() || SecondsBetween(now, beat) > 0) now = beat;
  }
  return now;
}

/// The page's template, parsed the first time a page is asked for (parsing it was most of the
/// cost of a small fleet's page), and `hold` locked on it while the caller renders: kainjow's
/// render is not const only because partial and lambda tags record their errors in the
/// template, and this one has no partial and its context no lambda, so the one parse serves
/// every page. nullptr, with `*error` set, when the template is not embedded or does not parse.
mustache::mustache* ParsedPage(std::string* error, std::unique_lock<std::mutex>& hold) {
  static std::mutex mutex;
  static const std::string_view* text = FindEmbeddedFile(kTemplate);
  static mustache::mustache page{text ? std::string(*text) : std::string()};
  if (text == nullptr) {
    *error = std::string(kTemplate) + " is not embedded";
    return nullptr;
  }
  hold = std::unique_lock<std::mutex>(mutex);
  if (!page.is_valid()) {
    *error = std::string(kTemplate) + ": " + page.error_message();
    return nullptr;
  }
  return &page;
}

}  // namespace


ConditionReading ReadCondition(const DoctorCondition& condition, const std::string& now,
                               long long heartbeat_seconds) {
  ConditionReading reading;
  if (!condition.present) return reading;
  const long long age = SecondsBetween(condition.last_heartbeat, now);
  if (condition.status == "Unknown" || age < 0 || age > heartbeat_seconds ||
      (condition.status != "True" && condition.status != "False")) {
    reading.shown = "Unknown";
    reading.stale = true;
    return reading;
  }
  reading.shown = condition.status;
  return reading;
}

std::optional<BusbwReading> ParseBusbw(const std::string& detail) {
  const size_t at = detail.find("busbw ");
  if (at == std::string::npos) return std::nullopt;
  const size_t min_at = detail.find("(min ", at);
  if (min_at == std::string::npos) return std::nullopt;
  auto number = [&](size_t from, double* value) {
    const char* begin = detail.c_str() + from;
    char* end = nullptr;
    *value = std::strtod(begin, &end);
    return end != begin && *value >= 0 && *value < 1e9;
  };
  BusbwReading reading;
  if (!number(at + 6, &reading.busbw_gbps) || !number(min_at + 5, &reading.threshold_gbps) ||
      reading.threshold_gbps <= 0)
    return std::nullopt;
  return reading;
}

std::optional<std::string> FormatFleetPage(const std::vector<DoctorNode>& given,
                                           const std::string& group_label, std::string* error,
                                           long long heartbeat_seconds) {
  std::unique_lock<std::mutex> hold;
  mustache::mustache* page = ParsedPage(error, hold);
  if (page == nullptr) return std::nullopt;
  const bool grouped = !group_label.empty();
  std::vector<DoctorNode> nodes = given;
  if (grouped) {  // as the table: a block's nodes together, by name within it
    std::stable_sort(nodes.begin(), nodes.end(),
                     [](const DoctorNode& a, const DoctorNode& b) { return a.group < b.group; });
  }
  const std::string now = NewestWithHeartbeats(nodes, NewestTime(nodes));
  auto ago = [&](const std::string& time) { return ShortDuration(SecondsBetween(time, now)); };
  mustache::data rows{mustache::data::type::list};
  mustache::data suspects{mustache::data::type::list};
  mustache::data busy_nodes{mustache::data::type::list};
  int failing = 0, untested = 0, waiting = 0, busy = 0, suspect_count = 0;
  int conditions = 0, condition_issues = 0, condition_unknown = 0, counters_moved = 0;
  for (const DoctorNode& node : nodes) {
    failing += !node.passed;
    untested += !node.tested;
    waiting += Waits(node);
    busy += node.busy_skips > 0;
    mustache::data row;
    row.set("node", Untrusted(node.node));
    row.set("group", Untrusted(node.group.empty() ? "-" : node.group));
    row.set("result", Result(node));
    std::string result_class = Result(node);  // FAIL -> fail: the page's fixed classes
    for (char& c : result_class) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    row.set("result_class", result_class);
    row.set("failed", Flag(!node.passed));
    row.set("tested", Flag(node.tested));
    row.set("time", Untrusted(node.tested ? node.time : "never"));
    row.set("summary_time", Untrusted(node.time));  // an untested node's: the latest skip
    row.set("how", Untrusted(node.tested ? node.how : "-"));
    row.set("ago", node.tested ? ago(node.time) : "-");
    row.set("pod", Untrusted(node.pod));
    row.set("has_pod", Flag(!node.pod.empty()));
    row.set("mark", Untrusted(node.mark.empty() ? "-" : node.mark));
    row.set("has_mark", Flag(!node.mark.empty()));
    row.set("busy_skips", std::to_string(node.busy_skips));
    row.set("busy_skips_any", Flag(node.busy_skips > 0));
    row.set("busy_ago", node.busy_skips > 0 ? ago(node.last_busy) : "-");
    row.set("busy_cell", node.busy_skips == 0 ? "-"
                                              : std::to_string(node.busy_skips) + " night(s), last " +
                                                    ago(node.last_busy) + " ago");
    row.set("suspect_cell", Untrusted(SuspectCell(node), kMaxMessageBytes));
    const DoctorCondition& cond = node.condition;
    const ConditionReading reading = ReadCondition(cond, now, heartbeat_seconds);
    conditions += cond.present;
    condition_issues += reading.shown == "True";
    condition_unknown += reading.shown == "Unknown";
    row.set("has_condition", Flag(cond.present));
    row.set("condition_shown", reading.shown.empty() ? "-" : reading.shown);
    row.set("condition_class", ConditionClass(reading));
    row.set("condition_stale", Flag(reading.stale));
    row.set("condition_written", Untrusted(cond.status));
    row.set("condition_reason", Untrusted(cond.reason.empty() ? "-" : cond.reason));
    row.set("condition_message", Untrusted(cond.message.empty() ? "-" : cond.message,
                                           kMaxMessageBytes));
    auto since = [&](const std::string& time) {
      const long long seconds = SecondsBetween(time, now);
      return seconds < 0 ? std::string("unknown") : ShortDuration(seconds);
    };
    row.set("condition_since", since(cond.last_transition));
    row.set("condition_heartbeat", since(cond.last_heartbeat));
    row.set("condition_cell",
            !cond.present ? std::string("-")
                          : reading.shown + (reading.stale ? " (stale)" : "") + " for " +
                                since(cond.last_transition));
    mustache::data checks{mustache::data::type::list};
    for (const DoctorCheck& check : node.checks) checks.push_back(CheckData(check));
    row.set("checks", checks);
    mustache::data own{mustache::data::type::list};
    for (const DoctorSuspect& s : node.suspects) {
      own.push_back(SuspectData(node, s));
      suspects.push_back(SuspectData(node, s));
      ++suspect_count;
    }
    row.set("node_suspects", own);
    bool moved = false;
    row.set("counter_rows", CounterRows(node, &moved));
    row.set("has_counters", Flag(!node.counter_reads.empty()));
    row.set("counters_moved", Flag(moved));
    row.set("counter_reads", std::to_string(node.counter_reads.size()));
    const bool read = !node.counter_reads.empty();
    row.set("counter_first", Untrusted(read ? node.counter_reads.front().time : ""));
    row.set("counter_last", Untrusted(read ? node.counter_reads.back().time : ""));
    counters_moved += moved;
    rows.push_back(row);
    if (node.busy_skips > 0) {
      mustache::data b;
      b.set("node", Untrusted(node.node));
      b.set("busy_skips", std::to_string(node.busy_skips));
      b.set("last_busy", Untrusted(node.last_busy));
      b.set("busy_ago", ago(node.last_busy));
      b.set("untested_for", node.tested ? ago(node.time) : "never tested");
      busy_nodes.push_back(b);
    }
  }
  mustache::data context;
  context.set("node_count", std::to_string(nodes.size()));
  context.set("newest", Untrusted(now));
  context.set("failing", std::to_string(failing));
  context.set("has_failing", Flag(failing > 0));
  context.set("passing", std::to_string(nodes.size() - failing - untested - waiting));
  context.set("untested", std::to_string(untested));
  context.set("has_untested", Flag(untested > 0));
  context.set("waiting", std::to_string(waiting));
  context.set("has_waiting", Flag(waiting > 0));
  context.set("busy", std::to_string(busy));
  context.set("has_busy", Flag(busy > 0));
  context.set("suspect_count", std::to_string(suspect_count));
  context.set("has_suspects", Flag(suspect_count > 0));
  context.set("grouped", Flag(grouped));
  context.set("has_conditions", Flag(conditions > 0));
  context.set("moved_nodes", std::to_string(counters_moved));
  context.set("has_counters_moved", Flag(counters_moved > 0));
  context.set("condition_issues", std::to_string(condition_issues));
  context.set("condition_unknown", std::to_string(condition_unknown));
  context.set("heartbeat", ShortDuration(heartbeat_seconds));
  // The label's name without its prefix (rdma.network_block_id), as the table's column.
  context.set("group_label", Untrusted(group_label.substr(group_label.rfind('/') + 1)));
  context.set("nodes", rows);
  context.set("suspects", suspects);
  context.set("busy_nodes", busy_nodes);
  std::string html = page->render(context);
  if (!page->is_valid()) {
    *error = std::string(kTemplate) + ": " + page->error_message();
    return std::nullopt;
  }
  return html;
}

}  // namespace hkim
