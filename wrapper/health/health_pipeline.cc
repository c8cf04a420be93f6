#include "health_pipeline.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <ostream>

#include "check_outcomes.h"
#include "child_run.h"
#include "job_check.h"
#include "night_plan.h"
#include "node_api.h"
#include "rotation.h"

namespace hkim::health {
namespace {

// Nodes of the group too short to host a pod: marked fail here (their own pod never runs).
// Returns false when the API could not be read or written.
bool FleetInventory(const HealthConfig& config, const KubeClient& api, const NodeSummary& self,
                    std::ostream& out, std::ostream& log) {
  std::vector<nlohmann::json> nodes;
  std::string error;
  if (!ListNodes(api, LabelSelector(config.node_selector), &nodes, &error)) {
    log << "hkim-health: error: fleet inventory: " << error << "\n";
    return false;
  }
  bool ok = true;
  for (const nlohmann::json& node : PoolOf(nodes, config.include_nodes, config.exclude_nodes)) {
    const InventoryResult inventory = CheckNodeInventory(node, config.expected);
    if (inventory.passed || inventory.node == config.node_name) continue;
    NodeSummary other;
    other.mode = "inventory";
    other.node = inventory.node;
    other.pod = self.pod;
    other.time = self.time;
    other.checks.push_back(InventoryOutcome(inventory));
    const NodeMark mark{false, "inventory: " + inventory.failures.front(), self.time, config.taint,
                        config.release_after};
    const std::string write_error = WriteMark(api, inventory.node, mark);
    other.mark = write_error.empty() ? (config.taint ? "label fail + taint" : "label fail")
                                     : "not marked: " + write_error;
    ok &= write_error.empty();
    PrintOutcome(other.checks.back(), log);
    out << FormatSummaryLine(other) << std::flush;
  }
  return ok;
}

// With a rotation (HKIM_HEALTH_ROTATION_NIGHTS > 1), whether this node's turn for the NCCL
// checks is tonight; `why` says which night it is and when the node's turn comes. A group that
// cannot be listed runs the checks (a check too many, never one too few).
bool NcclTurnTonight(const HealthConfig& config, const KubeClient& api, std::string* why) {
  if (config.rotation_nights <= 1) return true;
  std::vector<nlohmann::json> nodes;
  std::string error;
  if (!ListNodes(api, LabelSelector(config.node_selector), &nodes, &error)) {
    *why = "rotation: group not listed (" + error + "), checking anyway";
    return true;
  }
  std::vector<std::string> group;
  for (const nlohmann::json& node : PoolOf(nodes, config.include_nodes, config.exclude_nodes))
    group.push_back(node.value(nlohmann::json::json_pointer("/metadata/name"), std::string()));
  const int64_t day = UtcDayNumber(static_cast<int64_t>(std::time(nullptr)));
  const int wait = NightsUntilTurn(group, config.node_name, day, config.rotation_nights);
  *why = "rotation: night " + std::to_string(RotationNight(day, config.rotation_nights) + 1) +
         " of " + std::to_string(config.rotation_nights) + ", " + std::to_string(group.size()) +
         " nodes in the group; " +
         (wait == 0 ? std::string("this node's turn")
                    : "this node's turn in " + std::to_string(wait) + " night(s)");
  return wait == 0;
}

}  // namespace

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

int RunNodeMode(const HealthConfig& config, const std::optional<KubeClient>& api,
                std::ostream& out, std::ostream& log) {
  NodeSummary summary;
  summary.mode = "node";
  summary.node = config.node_name;
  summary.pod = config.pod_name;
  summary.time = UtcNow();
  bool recorded = true;

  // 1. Cheap: what this node advertises. A node short of GPUs or VFs gets no NCCL run. (A night
  // check pod has no API: its coordinator read the inventory before placing it.)
  if (api && !config.report_to_termination) {
    const NodeRead read = GetNode(*api, config.node_name);
    if (read.ok) {
      summary.checks.push_back(InventoryOutcome(CheckNodeInventory(read.node, config.expected)));
    } else {
      summary.checks.push_back({"inventory", "error", "", nlohmann::json::object(), {read.error},
                                {"the pod's service account needs get on nodes"}});
      recorded = false;
    }
    PrintOutcome(summary.checks.back(), log);
    recorded &= FleetInventory(config, *api, summary, out, log);
    // Not this node's night: the capacity checks above ran, NCCL and the mark wait for its turn
    // (a node that failed its inventory is marked now: that costs nothing).
    std::string why;
    if (summary.Passed() && !NcclTurnTonight(config, *api, &why)) {
      log << "hkim-health: " << why << ": NCCL checks skipped, mark unchanged\n" << std::flush;
      return recorded ? 0 : 2;
    }
    if (!why.empty()) log << "hkim-health: " << why << "\n" << std::flush;
  }
  // 2. The wrapper's diagnosis, then 3. NCCL: each only when everything before passed.
  if (summary.Passed()) {
    summary.checks.push_back(Diagnose(config, log));
    PrintOutcome(summary.checks.back(), log);
  }
  if (summary.Passed()) {
    summary.checks.push_back(RunNccl(config, "nccl-local", {"--scope", "local"}, log));
    PrintOutcome(summary.checks.back(), log);
  }
  if (config.per_rail && summary.Passed()) {
    summary.checks.push_back(RunNccl(config, "per-rail", {"--scope", "local", "--per-rail"}, log));
    PrintOutcome(summary.checks.back(), log);
  }

  // 4. The mark, or for a night check pod the report its coordinator marks the node from.
  const bool passed = summary.Passed();
  if (config.report_to_termination) {
    summary.mark = "reported to the night coordinator";
    WriteTerminationMessage(config, CompactReport(summary));
    log << "hkim-health: node " << config.node_name << ": " << (passed ? "PASS" : "FAIL")
        << ", reported in the termination message\n"
        << std::flush;
    out << FormatSummaryLine(summary) << std::flush;
    return passed ? 0 : 1;
  }
  if (api) {
    const NodeMark mark{passed, FirstFailure(summary), summary.time, config.taint,
                        config.release_after};
    std::string effect;
    const std::string error = WriteMark(*api, config.node_name, mark, &effect);
    if (error.empty()) {
      summary.mark = effect == "pass"   ? "label pass"
                     : effect != "fail" ? "label fail kept (" + effect + " passes)"
                     : config.taint     ? "label fail + taint"
                                        : "label fail";
    } else {
      summary.mark = "not marked: " + error;
      recorded = false;
    }
  } else {
    summary.mark = "not marked: no Kubernetes API";
    recorded = false;
  }
  log << "hkim-health: node " << config.node_name << ": " << (passed ? "PASS" : "FAIL") << ", "
      << summary.mark << "\n"
      << std::flush;
  out << FormatSummaryLine(summary) << std::flush;
  return recorded ? 0 : 2;
}

int RunGateMode(const HealthConfig& config, std::ostream& out, std::ostream& log) {
  NodeSummary summary;
  summary.mode = "gate";
  summary.node = config.node_name;
  summary.pod = config.pod_name;
  summary.time = UtcNow();
  // Every pod of the gate must reach the job-scope rendezvous, so the diagnosis never skips it.
  summary.checks.push_back(Diagnose(config, log));
  PrintOutcome(summary.checks.back(), log);
  RunJobScopeCheck(config, summary, log);
  const bool passed = summary.Passed();
  log << "hkim-health: gate on " << config.node_name << ": " << (passed ? "PASS" : "FAIL")
      << (passed || config.fail_on_failure ? "" : " (policy warn: the sync goes on)") << "\n"
      << std::flush;
  out << FormatSummaryLine(summary) << std::flush;
  return !passed && config.fail_on_failure ? 1 : 0;
}

}  // namespace hkim::health
