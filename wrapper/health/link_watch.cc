#include "link_watch.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "text_cut.h"

namespace hkim::health {
namespace {

constexpr double kMaxWindowS = 30 * 86400;

bool CounterName(const std::string& name) {
  return !name.empty() && name.size() <= 64 &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_';
         });
}

bool Digits(const std::string& text) {
  return !text.empty() && text.size() <= 12 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "6 h", "1 h", "90 s": how a window reads in a message.
std::string Span(double seconds) {
  const long long s = static_cast<long long>(seconds);
  if (s % 3600 == 0) return std::to_string(s / 3600) + " h";
  if (s % 60 == 0) return std::to_string(s / 60) + " min";
  return std::to_string(s) + " s";
}

}  // namespace

bool ParseThresholds(const std::string& text, std::vector<CounterThreshold>* out,
                     std::string* error) {
  std::set<std::string> seen;
  for (const std::string& item : CommaItems(text)) {
    const size_t eq = item.find('=');
    const size_t slash = item.find('/', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || slash == std::string::npos) {
      *error = "'" + item + "' is not counter=max_increase/window_seconds";
      return false;
    }
    const std::string name = item.substr(0, eq);
    const std::string max = item.substr(eq + 1, slash - eq - 1);
    const std::string window = item.substr(slash + 1);
    if (!CounterName(name) || !Digits(max) || !Digits(window)) {
      *error = "'" + item + "' is not counter=max_increase/window_seconds";
      return false;
    }
    const double window_s = std::strtod(window.c_str(), nullptr);
    if (window_s < 1 || window_s > kMaxWindowS) {
      *error = "'" + item + "': the window must be 1 to 2592000 seconds";
      return false;
    }
    if (!seen.insert(name).second) {
      *error = "counter '" + name + "' is named twice";
      return false;
    }
    out->push_back({name, std::strtoull(max.c_str(), nullptr, 10), window_s});
  }
  return true;
}

std::string DescribeIssue(const LinkIssue& issue) {
  return "rail " + issue.rail + " (" + (issue.device.empty() ? "no device" : issue.device) +
         " port " + std::to_string(issue.port) + "): " + issue.what;
}

LinkWatch::LinkWatch(std::vector<CounterThreshold> thresholds)
    : thresholds_(std::move(thresholds)) {
  for (const CounterThreshold& t : thresholds_)
    longest_window_s_ = std::max(longest_window_s_, t.window_s);
}

void LinkWatch::Add(double t_s, const std::vector<PortSample>& ports) {
  now_s_ = t_s;
  std::map<PortKey, PortHistory> next;
  for (const PortSample& sample : ports) {
    const PortKey key{sample.rail, sample.device, sample.port};
    PortHistory history;
    if (const auto old = ports_.find(key); old != ports_.end()) history = std::move(old->second);
    history.latest = sample;
    for (const CounterThreshold& t : thresholds_) {
      const auto value = sample.counters.find(t.counter);
      if (value == sample.counters.end()) continue;  // not read this time: keep what we had
      std::deque<Point>& points = history.counters[t.counter];
      if (!points.empty() && value->second < points.back().value) points.clear();
      points.push_back({t_s, value->second});
      // Keep the latest point at or before the longest window's start as its base.
      while (points.size() > 1 && points[1].t_s <= t_s - longest_window_s_) points.pop_front();
    }
    next[key] = std::move(history);
  }
  ports_ = std::move(next);
}

std::vector<LinkIssue> LinkWatch::Issues() const {
  std::vector<LinkIssue> out;
  for (const auto& [key, history] : ports_) {
    const PortSample& latest = history.latest;
    auto add = [&](const std::string& what) {
      out.push_back({latest.rail, latest.device, latest.port, what});
    };
    if (latest.state == "MISSING") {
      add(latest.problems.empty() ? "not found" : latest.problems.front());
      continue;
    }
    if (latest.state != "ACTIVE")
      add("state " + (latest.state.empty() ? std::string("unreadable") : latest.state) +
          (latest.phys_state.empty() ? "" : " (" + latest.phys_state + ")"));
    for (const CounterThreshold& t : thresholds_) {
      const auto found = history.counters.find(t.counter);
      if (found == history.counters.end() || found->second.empty()) continue;
      const std::deque<Point>& points = found->second;
      // The base: the latest point at or before the window's start, else the oldest kept.
      const Point* base = &points.front();
      for (const Point& p : points) {
        if (p.t_s > now_s_ - t.window_s) break;
        base = &p;
      }
      const uint64_t increase = points.back().value - base->value;
      if (increase <= t.max_increase) continue;
      add(t.counter + " +" + std::to_string(increase) + " within " + Span(t.window_s) +
          " (threshold: " +
          (t.max_increase == 0 ? std::string("any increase")
                               : "more than " + std::to_string(t.max_increase)) +
          ", now " + std::to_string(points.back().value) + ")");
    }
  }
  return out;
}

size_t LinkWatch::SampleCount() const {
  size_t n = 0;
  for (const auto& [key, history] : ports_)
    for (const auto& [name, points] : history.counters) n += points.size();
  return n;
}

}  // namespace hkim::health
