#include "pod_mode.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>

#include "assemble.h"
#include "health_pipeline.h"
#include "job_check.h"
#include "text_cut.h"
#include "vf_counters.h"

namespace hkim::health {
namespace {

std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

// Removes the ready file; "" or why it could not be.
std::string RemoveReadyFile(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return "";
  return "cannot remove the ready file " + path + ": " + std::strerror(errno);
}

// Writes the ready file whole (a temporary beside it, then renamed); "" or why not.
std::string WriteReadyFile(const std::string& path, const std::string& time) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) ::mkdir(path.substr(0, slash).c_str(), 0755);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << time << "\n";
    if (!file) return "cannot write " + temporary + ": " + std::strerror(errno);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0)
    return "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
  return "";
}

// The pod alone: the job-scope check is a skip that says why, then the local checks.
void RunAlone(const HealthConfig& config, const std::string& why, NodeSummary& summary,
              std::ostream& log) {
  CheckOutcome job;
  job.name = "nccl-job";
  job.status = "skip";
  job.detail = why;
  summary.checks.push_back(job);
  PrintOutcome(summary.checks.back(), log);
  summary.checks.push_back(RunNccl(config, "nccl-local", {"--scope", "local"}, log));
  PrintOutcome(summary.checks.back(), log);
  if (config.per_rail) {
    summary.checks.push_back(RunNccl(config, "per-rail", {"--scope", "local", "--per-rail"}, log));
    PrintOutcome(summary.checks.back(), log);
  }
}

// Adds the counters' line to the termination message the checks wrote (the suspects or the
// failure), keeping the line whole: what moved on this pod's devices names the rail.
void AppendToTerminationMessage(const HealthConfig& config, const std::string& line) {
  if (config.termination_log.empty()) return;
  std::ifstream in(config.termination_log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string tail = CutUtf8(line, 1000) + "\n";
  WriteTerminationMessage(config, CutUtf8(text, 4000 - tail.size()) + tail);
}

}  // namespace

PodOutcome RunPodMode(const HealthConfig& config, std::ostream& out, std::ostream& log) {
  PodOutcome outcome;
  // Not Ready from the start: a ready file left by the previous run of this container (the
  // folder outlives restarts) must not vouch for this one.
  if (const std::string error = RemoveReadyFile(config.ready_file); !error.empty()) {
    log << "hkim-health: error: " << error
        << "\nfix: HKIM_HEALTH_READY_FILE must be in a folder this container may write\n";
    outcome.exit_status = 2;
    return outcome;
  }
  NodeSummary summary;
  summary.mode = "pod";
  summary.node = config.node_name;
  summary.pod = config.pod_name;
  summary.time = UtcNow();
  summary.checks.push_back(Diagnose(config, log));
  PrintOutcome(summary.checks.back(), log);

  // The pod's own devices before its all-reduce: what moves during the checks is evidence.
  const CounterSnapshot before = TakeCounterSnapshot(config.sysfs_root);
  const int ordinal = PodOrdinal(config.pod_name);
  if (config.replicas < 2) {
    RunAlone(config, "one pod (HKIM_REPLICAS=1): the local checks are the job's fabric", summary,
             log);
  } else if (ordinal < 0 || ordinal >= config.replicas) {
    CheckOutcome job{"nccl-job",
                     "error",
                     "",
                     nlohmann::json::object(),
                     {"HKIM_POD_NAME '" + config.pod_name + "' has no ordinal in 0.." +
                      std::to_string(config.replicas - 1)},
                     {"set HKIM_POD_NAME from the downward API (metadata.name) of the "
                      "StatefulSet's pod"}};
    summary.checks.push_back(job);
    PrintOutcome(summary.checks.back(), log);
  } else {
    AssembleSetup setup;
    setup.ordinal = ordinal;
    setup.replicas = config.replicas;
    setup.master_addr = config.master_addr;
    setup.port = config.rendezvous_port + 1;
    setup.revision = config.pod_revision;
    setup.node = config.node_name;
    setup.pod = config.pod_name;
    setup.timeout_s = config.assemble_timeout_s;
    const AssembleResult set = AssemblePodSet(setup, log);
    log << "hkim-health: assemble: " << set.present << " of " << config.replicas << " pod(s) in "
        << Seconds(set.seconds) << " s" << (set.detail.empty() ? "" : " (" + set.detail + ")")
        << "\n"
        << std::flush;
    if (set.complete) {
      RunJobScopeCheck(config, summary, log);
    } else {
      log << "hkim-health: the pod set did not assemble: this pod runs its checks alone\n";
      RunAlone(config,
               "ran alone: the pod set did not assemble within " +
                   Seconds(config.assemble_timeout_s) + " s (the other pods are running)",
               summary, log);
      summary.checks[1].numbers = {{"present", set.present},
                                   {"replicas", config.replicas},
                                   {"assemble_timeout_s", config.assemble_timeout_s},
                                   {"why", set.detail}};
    }
  }

  const CounterSnapshot after = TakeCounterSnapshot(config.sysfs_root);
  const std::vector<CounterMove> moves = ErrorCounterMoves(before, after);
  summary.counters = MovesJson(after.ports.size(), moves);
  const std::string moved = DescribeMoves(moves);
  log << "hkim-health: counters of this pod's " << after.ports.size() << " RDMA port(s) during "
      << "the checks: " << (moved.empty() ? "no error counter moved" : "moved: " + moved) << "\n";

  const bool passed = summary.Passed();
  const bool go_on = passed || !config.fail_on_failure;
  if (go_on) {
    if (const std::string error = WriteReadyFile(config.ready_file, summary.time); !error.empty()) {
      log << "hkim-health: error: " << error
          << "\nfix: HKIM_HEALTH_READY_FILE must be in a folder this container may write\n";
      out << FormatSummaryLine(summary) << std::flush;
      outcome.exit_status = 2;
      return outcome;
    }
  } else if (summary.suspects.is_null() || summary.suspects.empty()) {
    // With suspects, the localization wrote them; otherwise the message says what failed.
    WriteTerminationMessage(config, "fabric check failed, no suspect: " + summary.node + ": " +
                                        FirstFailure(summary) + "\n");
  }
  if (!passed && !moved.empty())
    AppendToTerminationMessage(config, "node " + summary.node + " counters moved during the "
                                       "check: " + moved);
  log << "hkim-health: pod " << config.pod_name << " on " << config.node_name << ": "
      << (passed ? "PASS" : "FAIL")
      << (go_on ? (passed ? ", fabric ready: starting the command"
                          : " (policy warn): fabric ready, starting the command")
                : ": the command is not started")
      << "\n"
      << std::flush;
  out << FormatSummaryLine(summary) << std::flush;
  outcome.exec = go_on;
  outcome.exit_status = go_on ? 0 : 1;
  return outcome;
}

bool FabricReady(const HealthConfig& config, std::string* why) {
  struct stat info {};
  if (::stat(config.ready_file.c_str(), &info) == 0) return true;
  *why = "fabric not ready: " + config.ready_file +
         (errno == ENOENT ? std::string(" does not exist (the in-pod check has not passed)")
                          : ": " + std::string(std::strerror(errno)));
  return false;
}

}  // namespace hkim::health
