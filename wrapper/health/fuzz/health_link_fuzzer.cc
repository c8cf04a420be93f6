// libFuzzer target over what the link agent and the node condition's writers read from outside:
// arbitrary bytes as a sysfs counter or port-state file, as a workload pod's termination
// message (the in-pod check's suspects, read by the coordinator), as HKIM_HEALTH_LINK_RAILS and
// HKIM_HEALTH_LINK_THRESHOLDS, as a condition's message (another writer's parts, or someone's
// edit), as a lastHeartbeatTime, and, when they parse as JSON, as the Node a writer patches and a
// reader judges. Nothing may crash or throw; a composed message parses back into the same
// writers; the patch carries exactly one condition.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "link_sysfs.h"
#include "link_watch.h"
#include "node_condition.h"
#include "pod_results.h"

namespace {

using nlohmann::json;
using namespace hkim::health;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  uint64_t value = 0;
  if (ParseCounterText(text, &value) && text.empty()) std::abort();
  std::string name;
  if (ParsePortStateText(text, &name) && name.empty()) std::abort();
  std::vector<RailDevice> rails;
  std::string error;
  (void)ParseRailList(text, &rails, &error);
  std::vector<CounterThreshold> thresholds;
  if (ParseThresholds(text, &thresholds, &error)) {
    LinkWatch watch(thresholds);
    PortSample sample;
    sample.rail = "r";
    sample.device = "d";
    sample.state = "ACTIVE";
    for (const CounterThreshold& t : thresholds) sample.counters[t.counter] = value;
    watch.Add(0, {sample});
    for (auto& [counter, v] : sample.counters) v += 1000;
    watch.Add(1e6, {sample});
    for (const LinkIssue& issue : watch.Issues()) (void)DescribeIssue(issue);
  }
  const auto parts = ParseConditionParts(text);
  const std::string message = ComposeConditionMessage(parts);
  const auto again = ParseConditionParts(message);
  if (message.size() < 1900 && again.size() != parts.size()) std::abort();
  for (const auto& [named, lines] : SuspectLinesByNode(text))
    if (named.empty() || lines.empty()) std::abort();
  std::time_t t = 0;
  (void)ParseUtcTime(text, &t);
  const json node = json::parse(text, nullptr, false);
  if (node.is_discarded()) return 0;
  // As a PodList's items (PodVerdicts takes any JSON in them).
  if (node.is_object() && node.contains("items") && node["items"].is_array()) {
    std::vector<json> pods(node["items"].begin(), node["items"].end());
    for (const auto& [named, verdict] : PodVerdicts(pods))
      if (verdict.clear && !verdict.issue.empty()) std::abort();
  }
  for (const char* issue : {"", "rail r0: state DOWN"}) {
    const json patch = ConditionPatch(node, {"links", issue, "2026-01-01T00:00:00Z", "ok"});
    if (!patch.is_object() || patch["status"]["conditions"].size() != 1) std::abort();
  }
  const ConditionView view = ReadFabricCondition(node, 1800000000, 300);
  if (view.stale && view.status != "Unknown") std::abort();
  return 0;
}
