#include "health_pipeline.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <ostream>

#include "check_outcomes.h"
#include "child_run.h"
#include "localize_run.h"
#include "night_plan.h"
#include "node_api.h"
#include "rotation.h"

namespace hkim::health {
namespace {

constexpr double kDiagnosisTimeoutS = 60;

CheckOutcome Diagnose(const HealthConfig& config, std::ostream& log) {
  log << "hkim-health: diagnosis: hkim-wrapper --check\n" << std::flush;
  const ChildResult child = RunChild({config.bin_dir + "/hkim-wrapper", "--check"}, {},
                                     kDiagnosisTimeoutS);
  log << child.output << std::flush;  // the diagnosis belongs in the pod log too
  CheckOutcome outcome = DiagnosisOutcome(child);
  if (config.tcp_mode && outcome.status == "fail") {
    // A tcp-mode profile expects no RDMA: the diagnosis is reported, not held against the node.
    outcome.status = "skip";
    outcome.detail = "tcp mode, RDMA not used: " + outcome.detail;
  }
  return outcome;
}

CheckOutcome Nccl(const HealthConfig& config, const std::string& name,
                  std::vector<std::string> args, std::ostream& log) {
  std::vector<std::string> argv = {config.bin_dir + "/hkim-nccl-check"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  argv.push_back("-");
  std::string line;
  for (const std::string& arg : argv) line += " " + arg;
  log << "hkim-health: " << name << ":" << line << "\n" << std::flush;
  // The wrapper's own pre-job check is not wanted in the children (HKIM_NCCL_CHECK is the
  // wrapper's switch); the thresholds come from the pod's HKIM_NCCL_CHECK_* variables.
  return NcclOutcome(name, RunChild(argv, {}, config.check_timeout_s));
}

std::string FirstFailure(const NodeSummary& summary) {
  for (const CheckOutcome& check : summary.checks) {
    if (check.status != "fail" && check.status != "error") continue;
    return check.name + ": " + (check.failures.empty() ? check.detail : check.failures.front());
  }
  return "";
}

void PrintOutcome(const CheckOutcome& check, std::ostream& log) {
  log << "hkim-health: " << check.name << ": " << check.status
      << (check.detail.empty() ? "" : " (" + check.detail + ")") << "\n";
  for (const std::string& failure : check.failures) log << "  " << failure << "\n";
  for (const std::string& fix : check.fixes) log << "  fix: " << fix << "\n";
  log << std::flush;
}

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

// This pod's RDMA devices in the per-rail check's order (NCCL_IB_HCA as the wrapper set it).
std::vector<std::string> OwnRails() {
  std::vector<std::string> rails;
  const char* hca = std::getenv("NCCL_IB_HCA");
  std::string list = hca ? hca : "";
  if (list.empty() || list[0] == '^') return rails;
  if (list[0] == '=') list.erase(0, 1);
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) rails.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return rails;
}

// The numeric suffix of the pod name ("gate-3" -> 3), -1 without one.
int Ordinal(const std::string& pod) {
  const size_t dash = pod.rfind('-');
  if (dash == std::string::npos || dash + 1 >= pod.size()) return -1;
  for (size_t i = dash + 1; i < pod.size(); ++i)
    if (pod[i] < '0' || pod[i] > '9') return -1;
  return std::atoi(pod.c_str() + dash + 1);
}

// What Argo CD shows for the failed hook: the pod's termination message (the kubelet reads
// terminationMessagePath, /dev/termination-log by default, at most 4 KiB).
void WriteTerminationMessage(const HealthConfig& config, const std::string& text) {
  if (config.termination_log.empty()) return;
  if (!config.termination_log_set && ::access(config.termination_log.c_str(), W_OK) != 0) return;
  std::ofstream(config.termination_log, std::ios::trunc) << text.substr(0, 4000);
}

// When the job-scope check failed (or HKIM_HEALTH_LOCALIZE=always): the pairwise rounds, the
// suspects in the summary and the termination message, and (with consent and API rights) the
// mark of this pod's node when it is a suspect.
void Localize(const HealthConfig& config, NodeSummary& summary, std::ostream& log) {
  const CheckOutcome& job = summary.checks.back();
  LocalizeSetup setup;
  setup.ordinal = Ordinal(config.pod_name);
  setup.replicas = config.replicas;
  setup.node = config.node_name;
  setup.pod = config.pod_name;
  setup.pod_set = config.pod_name.substr(0, config.pod_name.rfind('-'));
  setup.master_addr = config.master_addr;
  setup.peer_address = config.peer_address;
  setup.base_port = config.rendezvous_port;
  setup.pair_timeout_s = config.pair_timeout_s;
  setup.expected_gbps = config.min_busbw_gbps;
  setup.when = config.localize;
  if (setup.ordinal < 0 || config.replicas < 2) {
    if (job.status != "pass") WriteTerminationMessage(config, summary.node + ": " + FirstFailure(summary));
    return;
  }
  const LocalizeOutcome outcome =
      RunLocalization(setup, job.status, config.per_rail ? OwnRails() : std::vector<std::string>{},
                      NcclGroupCheck(config.bin_dir + "/hkim-nccl-check", config.at_bytes,
                                     config.per_rail, log),
                      log);
  summary.localization = LocalizationJson(outcome);
  summary.suspects = SuspectsJson(outcome.verdict);
  if (!outcome.error.empty()) log << "hkim-health: localize: " << outcome.error << "\n";
  std::string message;
  for (const Suspect& s : outcome.verdict.suspects) message += SuspectLine(s) + "\n";
  if (message.empty() && job.status != "pass")
    message = "fabric check failed, no suspect: " + FirstFailure(summary) + "\n";
  if (!message.empty()) WriteTerminationMessage(config, message);

  std::string reason;
  for (const Suspect& s : outcome.verdict.suspects)
    if (s.node == config.node_name) reason += (reason.empty() ? "" : "; ") + SuspectLine(s) + ": " + s.evidence;
  if (reason.empty() || !config.mark_suspects) return;
  ApiEndpoint endpoint;
  std::string error;
  const auto env = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  if (!InClusterEndpoint(env, kServiceAccountDir, &endpoint, &error)) {
    summary.mark = "not marked: no Kubernetes API: " + error;
    return;
  }
  const KubeClient api(endpoint, 20);
  const NodeMark mark{false, "gate suspect: " + reason, summary.time, config.taint,
                      config.release_after};
  error = WriteMark(api, config.node_name, mark);
  summary.mark = error.empty() ? (config.taint ? "label fail + taint" : "label fail")
                               : "not marked: " + error;
  log << "hkim-health: node " << config.node_name << " (suspect): " << summary.mark << "\n";
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
    summary.checks.push_back(Nccl(config, "nccl-local", {"--scope", "local"}, log));
    PrintOutcome(summary.checks.back(), log);
  }
  if (config.per_rail && summary.Passed()) {
    summary.checks.push_back(Nccl(config, "per-rail", {"--scope", "local", "--per-rail"}, log));
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
  std::vector<std::string> args = {"--scope", "job"};
  if (config.per_rail) args.push_back("--per-rail");
  summary.checks.push_back(Nccl(config, config.per_rail ? "per-rail" : "nccl-job", args, log));
  PrintOutcome(summary.checks.back(), log);
  Localize(config, summary, log);
  const bool passed = summary.Passed();
  log << "hkim-health: gate on " << config.node_name << ": " << (passed ? "PASS" : "FAIL")
      << (passed || config.fail_on_failure ? "" : " (policy warn: the sync goes on)") << "\n"
      << std::flush;
  out << FormatSummaryLine(summary) << std::flush;
  return !passed && config.fail_on_failure ? 1 : 0;
}

}  // namespace hkim::health
