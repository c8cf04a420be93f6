#include "health_pipeline.h"

#include <ctime>
#include <ostream>

#include "check_outcomes.h"
#include "child_run.h"
#include "node_api.h"

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
  for (const nlohmann::json& node : nodes) {
    const InventoryResult inventory = CheckNodeInventory(node, config.expected);
    if (inventory.passed || inventory.node == config.node_name) continue;
    NodeSummary other;
    other.mode = "inventory";
    other.node = inventory.node;
    other.pod = self.pod;
    other.time = self.time;
    other.checks.push_back(InventoryOutcome(inventory));
    const NodeMark mark{false, "inventory: " + inventory.failures.front(), self.time, config.taint};
    const std::string write_error = WriteMark(api, inventory.node, mark);
    other.mark = write_error.empty() ? (config.taint ? "label fail + taint" : "label fail")
                                     : "not marked: " + write_error;
    ok &= write_error.empty();
    PrintOutcome(other.checks.back(), log);
    out << FormatSummaryLine(other) << std::flush;
  }
  return ok;
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

  // 1. Cheap: what this node advertises. A node short of GPUs or VFs gets no NCCL run.
  if (api) {
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

  // 4. The mark.
  const bool passed = summary.Passed();
  if (api) {
    const NodeMark mark{passed, FirstFailure(summary), summary.time, config.taint};
    const std::string error = WriteMark(*api, config.node_name, mark);
    if (error.empty()) {
      summary.mark = passed ? "label pass" : config.taint ? "label fail + taint" : "label fail";
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
  const bool passed = summary.Passed();
  log << "hkim-health: gate on " << config.node_name << ": " << (passed ? "PASS" : "FAIL")
      << (passed || config.fail_on_failure ? "" : " (policy warn: the sync goes on)") << "\n"
      << std::flush;
  out << FormatSummaryLine(summary) << std::flush;
  return !passed && config.fail_on_failure ? 1 : 0;
}

}  // namespace hkim::health
