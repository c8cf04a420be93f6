// hkim-health night: the coordinator's loop (night.h); its decisions are in night_plan.cc.

#include "night.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>

#include "check_outcomes.h"
#include "health_pipeline.h"
#include "night_plan.h"
#include "node_api.h"
#include "node_condition.h"
#include "node_inventory.h"
#include "pod_api.h"
#include "pod_results.h"

namespace hkim::health {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kBusy = "busy: checked when its job starts";

// One pool node through the night.
struct NightNode {
  json node;
  NodeSummary summary;
  std::string pod;  ///< the check pod's name, once created
  bool done = true;  ///< no pod to wait for
  bool observed = false;  ///< the pod was seen in a list at least once
  std::optional<Clock::time_point> placed_at;
  std::string last_unschedulable;  ///< the scheduler's last words on it
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string Whole(double seconds) { return std::to_string(static_cast<long long>(seconds)); }

std::string FirstFailure(const NodeSummary& summary) {
  for (const CheckOutcome& check : summary.checks) {
    if (check.status != "fail" && check.status != "error") continue;
    return check.name + ": " + (check.failures.empty() ? check.detail : check.failures.front());
  }
  return "";
}

void Note(std::ostream& log, const std::string& node, const std::string& text) {
  log << "hkim-health: night: " << node << ": " << text << "\n" << std::flush;
}

class Night {
 public:
  Night(const HealthConfig& config, const KubeClient& api, std::ostream& log)
      : config_(config), api_(api), log_(log) {}

  int Run(std::ostream& out) {
    const std::string time = UtcNow();
    json pod_template;
    if (!ReadTemplate(&pod_template)) return 2;
    std::vector<json> listed;
    std::string error;
    const std::string selector = LabelSelector(config_.node_selector);
    if (!ListNodes(api_, selector, &listed, &error)) {
      log_ << "hkim-health: error: night: the pool (" << selector << ") is not listed: " << error
           << "\n";
      return 2;
    }
    std::vector<json> candidates;
    for (json& node : PoolOf(listed, config_.include_nodes, config_.exclude_nodes)) {
      const std::string name = NodeName(node);
      NightNode& entry = nodes_[name];
      entry.node = node;
      entry.summary.mode = "night";
      entry.summary.node = name;
      entry.summary.pod = config_.pod_name;
      entry.summary.time = time;
      if (Inventory(entry)) candidates.push_back(node);
    }
    log_ << "hkim-health: night: " << nodes_.size() << " node(s) in the pool (" << selector
         << (config_.exclude_nodes.empty() ? "" : ", less exclude_nodes")
         << (config_.include_nodes.empty() ? "" : ", within include_nodes") << "), "
         << candidates.size() << " with a full inventory\n";
    const std::vector<std::string> slice = TonightsSlice(candidates, config_.rotation_nights);
    for (const json& node : candidates) {
      NightNode& entry = nodes_[NodeName(node)];
      if (std::find(slice.begin(), slice.end(), entry.summary.node) != slice.end()) continue;
      const std::string last = LastTested(node);
      entry.summary.checks.push_back(
          {"placement", "skip",
           "not in tonight's slice (" + std::to_string(slice.size()) + " of " +
               std::to_string(candidates.size()) + " nodes a night); last tested " +
               (last.empty() ? "never" : last),
           json::object(), {}, {}});
      entry.summary.mark = "unchanged";
    }
    const CheckPodOwner owner{config_.pod_namespace, config_.pod_name, config_.pod_uid};
    for (const std::string& name : slice) Start(nodes_[name], pod_template, owner);
    Wait();
    if (config_.write_condition) PodResults();
    for (auto& [name, entry] : nodes_) out << FormatSummaryLine(entry.summary) << std::flush;
    if (failed_ > 0) return 1;
    if (!recorded_) return 2;
    if (placed_ > 0 && verdicts_ == 0) {
      log_ << "hkim-health: error: night: " << placed_
           << " check pod(s) ran and none gave a verdict: the check itself is broken (see the "
              "placement and check-pod lines above)\n";
      return 2;
    }
    return 0;
  }

 private:
  bool ReadTemplate(json* pod) {
    std::ifstream file(config_.check_pod_file);
    std::stringstream text;
    text << file.rdbuf();
    *pod = json::parse(text.str(), nullptr, false);
    if (file && pod->is_object() && pod->contains("spec")) return true;
    log_ << "hkim-health: error: night: no check pod template in " << config_.check_pod_file
         << " (a v1 Pod as JSON)\nfix: mount the ConfigMap the bundle renders for the periodic "
            "check there, or set HKIM_HEALTH_CHECK_POD\n";
    return false;
  }

  // The node's advertised GPUs and VFs; a node short of them is marked now. True when it passed.
  bool Inventory(NightNode& entry) {
    const InventoryResult inventory = CheckNodeInventory(entry.node, config_.expected);
    entry.summary.checks.push_back(InventoryOutcome(inventory));
    if (inventory.passed) return true;
    ++failed_;
    Mark(entry, false);
    Note(log_, entry.summary.node, "inventory failed: " + inventory.failures.front());
    return false;
  }

  void Mark(NightNode& entry, bool passed) {
    std::string written;
    if (config_.write_labels) {
      const NodeMark mark{passed, FirstFailure(entry.summary), UtcNow(), config_.taint,
                          config_.release_after};
      std::string effect;
      const std::string error = WriteMark(api_, entry.summary.node, mark, &effect);
      if (!error.empty()) {
        entry.summary.mark = "not marked: " + error;
        recorded_ = false;
        Note(log_, entry.summary.node, entry.summary.mark);
        return;
      }
      written = effect == "pass"   ? "label pass"
                : effect != "fail" ? "label fail kept (" + effect + " passes)"
                : config_.taint    ? "label fail + taint"
                                   : "label fail";
    }
    if (config_.write_condition) {
      // The night's part of the node condition: the failure names the check, rail and numbers.
      const std::string time = UtcNow();
      const ConditionUpdate update{"night", passed ? "" : FirstFailure(entry.summary), time,
                                   "night: passed " + time};
      std::string status;
      const std::string error = WriteCondition(api_, entry.summary.node, update, &status);
      if (!error.empty()) {
        entry.summary.mark = (written.empty() ? "" : written + "; ") + "condition not written: " +
                             error;
        recorded_ = false;
        Note(log_, entry.summary.node, entry.summary.mark);
        return;
      }
      written += (written.empty() ? "" : " + ") + std::string("condition ") + kConditionType +
                 "=" + status;
    }
    entry.summary.mark = written;
  }

  // The in-pod checks' verdicts (the workload pods' termination messages and readiness) as the
  // condition's pod part of each pool node they name; nodes they do not name stay as they are.
  void PodResults() {
    std::vector<json> pods;
    for (const std::string& ns : config_.workload_namespaces) {
      std::string error;
      if (!ListPods(api_, ns, config_.workload_selector, &pods, &error))
        log_ << "hkim-health: night: the in-pod checks' results are not read: " << error << "\n";
    }
    for (const auto& [node, verdict] : PodVerdicts(pods)) {
      const auto entry = nodes_.find(node);
      if (entry == nodes_.end()) continue;  // not a pool node: never written
      const std::string time = UtcNow();
      const ConditionUpdate update{"pod", verdict.issue, time, "pod: passed " + time};
      std::string status;
      const std::string error = WriteCondition(api_, node, update, &status);
      const std::string what =
          error.empty() ? "in-pod check: condition " + std::string(kConditionType) + "=" + status
                        : "in-pod check: condition not written: " + error;
      if (!error.empty()) recorded_ = false;
      entry->second.summary.mark += (entry->second.summary.mark.empty() ? "" : "; ") + what;
      Note(log_, node, what + (verdict.issue.empty() ? "" : " (" + verdict.issue + ")"));
    }
  }

  void Start(NightNode& entry, const json& pod_template, const CheckPodOwner& owner) {
    const std::string error = CreatePod(
        api_, owner.namespace_name, CheckPodFor(pod_template, entry.summary.node, owner),
        &entry.pod);
    if (!error.empty()) {
      entry.summary.checks.push_back({"placement", "error", error, json::object(), {}, {}});
      entry.summary.mark = "unchanged (no check pod)";
      recorded_ = false;
      Note(log_, entry.summary.node, "no check pod: " + error);
      return;
    }
    entry.done = false;
    Note(log_, entry.summary.node, "check pod " + entry.pod);
  }

  void Finish(NightNode& entry, const std::string& placement_status,
              const std::string& placement_detail, bool remove) {
    if (remove) {
      const std::string error = DeletePod(api_, config_.pod_namespace, entry.pod);
      if (!error.empty()) Note(log_, entry.summary.node, "not deleted: " + error);
    }
    if (!placement_status.empty())
      entry.summary.checks.push_back(
          {"placement", placement_status, placement_detail, json::object(), {}, {}});
    entry.done = true;
  }

  void Inconclusive(NightNode& entry, const std::string& why, bool remove) {
    Finish(entry, "", "", remove);
    entry.summary.checks.push_back(
        {"check-pod", "skip", "inconclusive: " + why, json::object(), {}, {}});
    entry.summary.mark = "unchanged (inconclusive)";
    Note(log_, entry.summary.node, "inconclusive: " + why);
  }

  void Busy(NightNode& entry, const std::string& why) {
    Finish(entry, "skip", std::string(kBusy) + " (" + why + ")", true);
    entry.summary.mark = "unchanged (busy)";
    Note(log_, entry.summary.node, std::string(kBusy) + " (" + why + ")");
  }

  void Verdict(NightNode& entry, const CheckPodState& state) {
    entry.summary.checks.insert(entry.summary.checks.end(), state.checks.begin(),
                                state.checks.end());
    const bool passed = state.phase == CheckPodPhase::kPassed;
    if (state.checks.empty())
      entry.summary.checks.push_back({"check-pod", passed ? "pass" : "fail",
                                      passed ? "exit 0" : "exit 1", json::object(), {}, {}});
    ++verdicts_;
    failed_ += passed ? 0 : 1;
    Mark(entry, passed);
    Note(log_, entry.summary.node, std::string(passed ? "PASS" : "FAIL") + ", " + entry.summary.mark);
  }

  // One look at every waiting pod; false when nothing is left to wait for.
  bool Look(Clock::time_point placement_deadline) {
    std::vector<json> pods;
    std::string error;
    const bool listed =
        ListPods(api_, config_.pod_namespace, std::string(kRunLabel) + "=" + config_.pod_uid,
                 &pods, &error);
    if (!listed) log_ << "hkim-health: night: " << error << " (trying again)\n" << std::flush;
    std::map<std::string, const json*> by_name;
    for (const json& pod : pods) by_name[NodeName(pod)] = &pod;  // metadata.name, as for a node
    const Clock::time_point now = Clock::now();
    bool waiting = false;
    for (auto& [name, entry] : nodes_) {
      if (entry.done) continue;
      const auto found = by_name.find(entry.pod);
      if (listed && found == by_name.end()) {
        // Listed and gone: someone removed it (a preemption that deleted it, an operator).
        if (entry.observed) Busy(entry, "its check pod was removed before it finished");
        else Inconclusive(entry, "its check pod " + entry.pod + " is not listed", false);
        continue;
      }
      CheckPodState state;
      if (found != by_name.end()) {
        entry.observed = true;
        state = ReadCheckPod(*found->second);
      } else if (entry.placed_at) {
        state.phase = CheckPodPhase::kPlaced;  // not seen this time: as last seen
      }
      switch (state.phase) {
        case CheckPodPhase::kWaiting:
        case CheckPodPhase::kUnschedulable:
          if (!state.why.empty()) entry.last_unschedulable = state.why;
          if (now < placement_deadline) break;
          if (!entry.observed)
            Inconclusive(entry, "its check pod was never seen: " + error, true);
          else
            Busy(entry, "not placed within " + Whole(config_.placement_timeout_s) + " s" +
                            (entry.last_unschedulable.empty()
                                 ? std::string()
                                 : ": " + entry.last_unschedulable));
          continue;
        case CheckPodPhase::kPlaced:
          if (!entry.placed_at) {
            entry.placed_at = now;
            ++placed_;
            Note(log_, entry.summary.node, "placed");
          }
          if (now < *entry.placed_at + std::chrono::duration<double>(config_.check_timeout_s))
            break;
          Finish(entry, "pass", "placed", false);
          Inconclusive(entry, "did not finish within " + Whole(config_.check_timeout_s) + " s",
                       true);
          continue;
        case CheckPodPhase::kPreempted:
          Busy(entry, "its check pod was preempted: " + state.why);
          continue;
        case CheckPodPhase::kPassed:
        case CheckPodPhase::kFailed:
        case CheckPodPhase::kNoVerdict:
          if (!entry.placed_at) ++placed_;
          Finish(entry, "pass", "placed", false);
          if (state.phase == CheckPodPhase::kNoVerdict) Inconclusive(entry, state.why, false);
          else Verdict(entry, state);
          continue;
      }
      waiting = true;
    }
    return waiting;
  }

  void Wait() {
    const Clock::time_point start = Clock::now();
    const Clock::time_point placement_deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(config_.placement_timeout_s));
    const auto poll = std::chrono::duration<double>(config_.poll_s);
    while (Look(placement_deadline)) std::this_thread::sleep_for(poll);
    log_ << "hkim-health: night: done in " << Whole(Seconds(Clock::now() - start)) << " s\n"
         << std::flush;
  }

  const HealthConfig& config_;
  const KubeClient& api_;
  std::ostream& log_;
  std::map<std::string, NightNode> nodes_;  // by name: the summaries print in that order
  int failed_ = 0;
  int placed_ = 0;
  int verdicts_ = 0;
  bool recorded_ = true;
};

}  // namespace

int RunNightMode(const HealthConfig& config, const std::optional<KubeClient>& api,
                 std::ostream& out, std::ostream& log) {
  if (!api) {
    log << "hkim-health: error: night: no Kubernetes API (the coordinator needs its service "
           "account token)\n";
    return 2;
  }
  if (config.pod_namespace.empty() || config.pod_uid.empty() || config.pod_name.empty()) {
    log << "hkim-health: error: night: HKIM_POD_NAMESPACE, HKIM_POD_NAME and HKIM_POD_UID must "
           "name the coordinator's pod\nfix: set them from the downward API (metadata.namespace, "
           "metadata.name, metadata.uid)\n";
    return 2;
  }
  return Night(config, *api, log).Run(out);
}

}  // namespace hkim::health
