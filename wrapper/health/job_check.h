#pragma once
// The checks that the gate Job's pods and the workload's own pods (pod mode) run alike, and the
// pieces node mode shares: the wrapper's diagnosis, one hkim-nccl-check run as a check outcome,
// and the job-scope check across the pod set with the pairwise localization on failure
// (localize_run.h), its suspects in the summary and in the termination message.

#include <iosfwd>
#include <string>
#include <vector>

#include "health_config.h"
#include "summary.h"

namespace hkim::health {

/// `hkim-wrapper --check` (at most 60 s) as the "diagnosis" outcome; in tcp mode a failure is a
/// skip (RDMA is not expected). Its output goes to `log`.
CheckOutcome Diagnose(const HealthConfig& config, std::ostream& log);

/// hkim-nccl-check with `args` (plus --json -), bounded by HKIM_HEALTH_TIMEOUT_S, as the
/// outcome `name`.
CheckOutcome RunNccl(const HealthConfig& config, const std::string& name,
                     const std::vector<std::string>& args, std::ostream& log);

/// "check: first failure" of the first check that failed or errored; "" when none did.
std::string FirstFailure(const NodeSummary& summary);

/// One outcome, its failures and fixes, as log lines.
void PrintOutcome(const CheckOutcome& check, std::ostream& log);

/// The job-scope check across HKIM_REPLICAS pods (per rail when HKIM_HEALTH_PER_RAIL), appended
/// to `summary`, then the localization when it failed (or HKIM_HEALTH_LOCALIZE=always): its
/// groups and suspects in the summary, the suspects (or the first failure) in the termination
/// message, and with HKIM_HEALTH_MARK_SUSPECTS this pod's node marked when it is a suspect.
void RunJobScopeCheck(const HealthConfig& config, NodeSummary& summary, std::ostream& log);

/// Writes `text` (cut to 4000 bytes on a UTF-8 boundary) where the kubelet reads the pod's
/// termination message: HKIM_HEALTH_TERMINATION_LOG, or /dev/termination-log when writable.
void WriteTerminationMessage(const HealthConfig& config, const std::string& text);

/// The numeric suffix of a pod name ("train-3" -> 3); -1 without one.
int PodOrdinal(const std::string& pod);

}  // namespace hkim::health
