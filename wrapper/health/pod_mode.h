#pragma once
// Pod mode: the fabric check in the workload's own pods, before the training command
// (`hkim-wrapper -- hkim-health pod -- <command...>`, docs/health.md). In order:
//   remove the ready file -> the wrapper's diagnosis -> assemble the pod set (assemble.h) ->
//   complete: the job-scope check across the set (per rail when asked) and the localization on
//   failure (job_check.h), exactly as the gate runs them;
//   not complete within HKIM_HEALTH_ASSEMBLE_TIMEOUT_S (a pod restarted alone while the others
//   train): the job check is a skip that says so, and the pod runs what it can alone, the local
//   NCCL check and the local per-rail check -> the summary line (mode "pod").
// Passed (or HKIM_HEALTH_POLICY=warn): the ready file is written (one line, the summary time)
// and the caller execs the command. Failed under policy fail: the termination message names
// the suspects (or the first failure), no ready file, exit 1.

#include <iosfwd>
#include <string>

#include "health_config.h"

namespace hkim::health {

/// What pod mode decided.
struct PodOutcome {
  bool exec = false;    ///< run the command now (the ready file is written)
  int exit_status = 0;  ///< when not exec: 1 failed under policy fail, 2 could not run
};

/// Runs pod mode (see above): summary line(s) to `out`, progress to `log`.
PodOutcome RunPodMode(const HealthConfig& config, std::ostream& out, std::ostream& log);

/// `hkim-health ready`: true when the ready file exists; else `why` says so in one line.
bool FabricReady(const HealthConfig& config, std::string* why);

}  // namespace hkim::health
