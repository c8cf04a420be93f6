// Model part of the fabric-health family: `fabric_health` -> FabricHealth (defaults from the
// schema; see model/health.h).

#include "model/health.h"

#include <algorithm>
#include <set>

#include "support/fingerprint.h"

#include "model/model.h"
#include "model/checks.h"

namespace hkim {
namespace {

using nlohmann::json;

const json& Member(const json& object, const char* key) {
  static const json kEmpty = json::object();
  if (!object.is_object()) return kEmpty;
  const auto it = object.find(key);
  return it == object.end() ? kEmpty : *it;
}

template <typename T>
void Read(const json& object, const char* key, T& out) {
  if (!object.is_object() || !object.contains(key)) return;
  const json& value = object[key];
  if constexpr (std::is_same_v<T, bool>) {
    if (value.is_boolean()) out = value.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (value.is_string()) out = value.get<std::string>();
  } else {
    if (value.is_number()) out = value.get<T>();
  }
}

class HealthReader {
 public:
  HealthReader(const LoadedProfile& loaded, DiagnosticSink& sink) : loaded_(loaded), sink_(sink) {}

  void Bytes(const json& object, const std::string& pointer, const char* key, int64_t& out) {
    if (!object.is_object() || !object.contains(key)) return;
    const json& value = object[key];
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (auto bytes = ParseByteSize(text)) {
      out = *bytes;
    } else {
      Error(pointer + "/" + key, "model.byte-size", "'" + text + "' is not a byte size",
            "write an integer with an optional unit, e.g. 1Gi");
    }
  }

  void Error(const std::string& pointer, const std::string& rule, const std::string& message,
             const std::string& fix) {
    ReportModelError(loaded_, sink_, pointer, rule, message, fix);
    ++errors_;
  }

  int errors() const { return errors_; }

 private:
  const LoadedProfile& loaded_;
  DiagnosticSink& sink_;
  int errors_ = 0;
};

}  // namespace

const char* ToString(GateMode value) {
  switch (value) {
    case GateMode::kOff:
      return "off";
    case GateMode::kWarn:
      return "warn";
    case GateMode::kFail:
      return "fail";
  }
  return "?";
}

const char* ToString(FabricMarks value) {
  switch (value) {
    case FabricMarks::kLabels:
      return "labels";
    case FabricMarks::kCondition:
      return "condition";
    case FabricMarks::kBoth:
      return "both";
  }
  return "?";
}

int ReadFabricHealth(const json& section, const LoadedProfile& loaded, DiagnosticSink& sink,
                     bool rdma_pool, FabricHealth& out) {
  HealthReader reader(loaded, sink);
  Read(section, "min_rail_fraction", out.min_rail_fraction);

  const json& g = Member(section, "gate");
  FabricGate& gate = out.gate;
  std::string mode = ToString(gate.mode);
  Read(g, "mode", mode);
  gate.mode = mode == "off" ? GateMode::kOff : mode == "warn" ? GateMode::kWarn : GateMode::kFail;
  Read(g, "min_busbw_gbps", gate.min_busbw_gbps);
  reader.Bytes(g, gate.pointer, "at_bytes", gate.at_bytes);
  reader.Bytes(g, gate.pointer, "max_bytes", gate.max_bytes);
  Read(g, "transport", gate.transport);
  Read(g, "per_rail", gate.per_rail);
  Read(g, "timeout_seconds", gate.timeout_seconds);
  Read(g, "assemble_timeout_seconds", gate.assemble_timeout_seconds);
  if (gate.at_bytes > gate.max_bytes) {
    reader.Error(gate.pointer + "/at_bytes", "model.gate-size",
                 "the gate's at_bytes is above its max_bytes (the size is never measured)",
                 "set at_bytes to at most max_bytes, or raise max_bytes");
  }

  const json& p = Member(section, "periodic");
  PeriodicHealth& periodic = out.periodic;
  // Every RDMA pool gets its nightly check unless the profile says no: a fabric
  // nobody tests degrades unseen.
  periodic.enabled = rdma_pool;
  Read(p, "enabled", periodic.enabled);
  Read(p, "schedule", periodic.schedule);
  Read(p, "nodes", periodic.nodes);
  Read(p, "nights", periodic.nights);
  Read(p, "taint", periodic.taint);
  Read(p, "release_after_passes", periodic.release_after_passes);
  Read(p, "per_rail", periodic.per_rail);
  Read(p, "min_busbw_gbps", periodic.min_busbw_gbps);
  reader.Bytes(p, periodic.pointer, "at_bytes", periodic.at_bytes);
  Read(p, "timeout_seconds", periodic.timeout_seconds);

  const json& c = Member(section, "node_condition");
  NodeConditionSettings& condition = out.node_condition;
  Read(c, "enabled", condition.enabled);
  Read(c, "heartbeat_seconds", condition.heartbeat_seconds);
  std::string marks = condition.enabled ? "both" : "labels";
  Read(c, "marks", marks);
  condition.marks = marks == "condition" ? FabricMarks::kCondition
                    : marks == "both"    ? FabricMarks::kBoth
                                         : FabricMarks::kLabels;
  const json& l = Member(section, "link_counters");
  LinkCounters& links = out.link_counters;
  links.enabled = condition.enabled;
  Read(l, "enabled", links.enabled);
  Read(l, "interval_seconds", links.interval_seconds);
  if (l.contains("thresholds") && l["thresholds"].is_array()) {
    links.thresholds.clear();
    std::set<std::string> seen;
    for (size_t i = 0; i < l["thresholds"].size(); ++i) {
      const json& item = l["thresholds"][i];
      LinkCounterThreshold t;
      Read(item, "counter", t.counter);
      Read(item, "max_increase", t.max_increase);
      Read(item, "window_seconds", t.window_seconds);
      if (!seen.insert(t.counter).second)
        reader.Error(links.pointer + "/thresholds/" + std::to_string(i) + "/counter",
                     "model.link-counter-twice", "counter '" + t.counter + "' has two thresholds",
                     "keep one threshold per counter");
      links.thresholds.push_back(t);
    }
  }
  if (condition.marks != FabricMarks::kLabels && !condition.enabled)
    reader.Error(condition.pointer + "/marks", "model.node-condition-off",
                 "marks: " + marks + " needs the node condition, which is off",
                 "set fabric_health.node_condition.enabled: true, or marks: labels");
  if (condition.enabled && !periodic.enabled)
    reader.Error(condition.pointer + "/enabled", "model.node-condition-needs-periodic",
                 "the node condition's writers, fence and agent live in the periodic check's "
                 "namespace, and the periodic check is off",
                 "turn fabric_health.periodic on, or the node condition off");
  if (links.enabled && !condition.enabled)
    reader.Error(links.pointer + "/enabled", "model.link-counters-need-condition",
                 "the link agent reports through the node condition, which is off",
                 "set fabric_health.node_condition.enabled: true, or link_counters.enabled: false");
  if (condition.enabled && !links.enabled && condition.heartbeat_seconds < 90000)
    reader.Error(condition.pointer + "/heartbeat_seconds", "model.node-condition-heartbeat",
                 "without the link agent only the nightly check writes the condition, so a "
                 "heartbeat of " + std::to_string(condition.heartbeat_seconds) +
                     " s makes it read stale (Unknown) most of the day",
                 "set heartbeat_seconds to at least 90000, or turn link_counters on");
  if (links.enabled && links.interval_seconds >= condition.heartbeat_seconds)
    reader.Error(links.pointer + "/interval_seconds", "model.link-interval",
                 "the agent reads every " + std::to_string(links.interval_seconds) +
                     " s, not within the condition's heartbeat of " +
                     std::to_string(condition.heartbeat_seconds) + " s",
                 "make interval_seconds shorter than node_condition.heartbeat_seconds");
  ReadFabricConsumers(Member(section, "consumers"), out.consumers);
  return reader.errors();
}

std::string FabricHealthNamespace(const std::string& ns) {
  constexpr size_t kMaxNamespace = 63;  // a DNS label
  const std::string suffix = kFabricHealthNamespaceSuffix;
  if (ns.size() + suffix.size() <= kMaxNamespace) return ns + suffix;
  // Cut, and told apart from other cut names by the fingerprint of the whole name.
  const std::string print = "-" + Fingerprint(ns);
  return ns.substr(0, kMaxNamespace - suffix.size() - print.size()) + print + suffix;
}

int CheckFabricHealthNames(const Profile& p, const LoadedProfile& loaded, DiagnosticSink& sink) {
  HealthReader reader(loaded, sink);
  const std::string& name = p.workload.name;
  const std::string pointer = p.workload.pointer + "/name";
  if (p.fabric_health.periodic.enabled) {
    // The pool's check runs in the first workload namespace's health namespace (plan/health.h
    // HealthNamespace); a workload namespace of that name would hold both.
    const std::string health =
        p.namespaces.empty() ? std::string() : FabricHealthNamespace(p.namespaces.front());
    for (size_t taken = 1; taken < p.namespaces.size(); ++taken) {
      if (p.namespaces[taken] != health) continue;
      reader.Error("/namespaces/" + std::to_string(taken), "model.health-namespace-taken",
                   "namespace " + health + " is where the pool's periodic health check runs (the "
                       "first namespace's, <namespace>-fabric-health), so it cannot be a "
                       "workload namespace too",
                   "rename one of the two namespaces, or set fabric_health.periodic.enabled: false");
    }
    // CronJob names: 52 at most (its Jobs are named <cronjob>-<11-character timestamp>).
    constexpr size_t kCronJobName = 52;
    const std::string cronjob = name + kPeriodicNameSuffix;
    if (cronjob.size() > kCronJobName) {
      reader.Error(pointer, "model.name-too-long",
                   "the periodic health check's CronJob would be named " + cronjob + ", " +
                       std::to_string(cronjob.size()) +
                       " characters: the API refuses a CronJob name over 52",
                   "shorten workload.name to at most " +
                       std::to_string(name.size() - (cronjob.size() - kCronJobName)) +
                       " characters (or set fabric_health.periodic.enabled: false)");
    }
  }
  return reader.errors();
}

}  // namespace hkim
