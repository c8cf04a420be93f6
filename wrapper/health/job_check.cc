#include "job_check.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <ostream>

#include "check_outcomes.h"
#include "child_run.h"
#include "localize_run.h"
#include "node_api.h"
#include "text_cut.h"

namespace hkim::health {
namespace {

constexpr double kDiagnosisTimeoutS = 60;

}  // namespace

CheckOutcome Diagnose(const HealthConfig& config, std::ostream& log) {
  log << "hkim-health: diagnosis: hkim-wrapper --check\n" << std::flush;
  const ChildResult child =
      RunChild({config.bin_dir + "/hkim-wrapper", "--check"}, {}, kDiagnosisTimeoutS);
  log << child.output << std::flush;  // the diagnosis belongs in the pod log too
  CheckOutcome outcome = DiagnosisOutcome(child);
  if (config.tcp_mode && outcome.status == "fail") {
    // A tcp-mode profile expects no RDMA: the diagnosis is reported, not held against the node.
    outcome.status = "skip";
    outcome.detail = "tcp mode, RDMA not used: " + outcome.detail;
  }
  return outcome;
}

CheckOutcome RunNccl(const HealthConfig& config, const std::string& name,
                     const std::vector<std::string>& args, std::ostream& log) {
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

namespace {

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

}  // namespace

int PodOrdinal(const std::string& pod) {
  const size_t dash = pod.rfind('-');
  if (dash == std::string::npos || dash + 1 >= pod.size()) return -1;
  for (size_t i = dash + 1; i < pod.size(); ++i)
    if (pod[i] < '0' || pod[i] > '9') return -1;
  return std::atoi(pod.c_str() + dash + 1);
}

// What Argo CD shows for a failed pod: its termination message (the kubelet reads
// terminationMessagePath, /dev/termination-log by default, at most 4 KiB).
void WriteTerminationMessage(const HealthConfig& config, const std::string& text) {
  if (config.termination_log.empty()) return;
  if (!config.termination_log_set && ::access(config.termination_log.c_str(), W_OK) != 0) return;
  std::ofstream(config.termination_log, std::ios::trunc) << CutUtf8(text, 4000);
}

namespace {

// When the job-scope check failed (or HKIM_HEALTH_LOCALIZE=always): the pairwise rounds, the
// suspects in the summary and the termination message, and (with consent and API rights) the
// mark of this pod's node when it is a suspect.
void Localize(const HealthConfig& config, NodeSummary& summary, std::ostream& log) {
  const CheckOutcome& job = summary.checks.back();
  LocalizeSetup setup;
  setup.ordinal = PodOrdinal(config.pod_name);
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
    if (job.status != "pass")
      WriteTerminationMessage(config, summary.node + ": " + FirstFailure(summary));
    return;
  }
  const LocalizeOutcome outcome = RunLocalization(
      setup, job.status, config.per_rail ? OwnRails() : std::vector<std::string>{},
      NcclGroupCheck(config.bin_dir + "/hkim-nccl-check", config.at_bytes, config.per_rail, log),
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
    if (s.node == config.node_name)
      reason += (reason.empty() ? "" : "; ") + SuspectLine(s) + ": " + s.evidence;
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
  summary.mark =
      error.empty() ? (config.taint ? "label fail + taint" : "label fail") : "not marked: " + error;
  log << "hkim-health: node " << config.node_name << " (suspect): " << summary.mark << "\n";
}

}  // namespace

void RunJobScopeCheck(const HealthConfig& config, NodeSummary& summary, std::ostream& log) {
  std::vector<std::string> args = {"--scope", "job"};
  if (config.per_rail) args.push_back("--per-rail");
  summary.checks.push_back(RunNccl(config, config.per_rail ? "per-rail" : "nccl-job", args, log));
  PrintOutcome(summary.checks.back(), log);
  Localize(config, summary, log);
}

}  // namespace hkim::health
