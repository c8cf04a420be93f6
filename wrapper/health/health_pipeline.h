#pragma once
// The order of hkim-health's checks, cheap first (docs/CONTRACTS.md, "Fabric health"):
//   node mode (periodic CronJob, one pod per node): inventory of this node from the API (fail
//     fast: no NCCL run on a node short of GPUs or VFs) and of the whole node group (nodes too
//     short to ever host a pod are marked here) -> the wrapper's diagnosis -> the local NCCL
//     check -> the per-rail check -> mark this node pass/fail through the API.
//   gate mode (the sync gate's Indexed Job): the wrapper's diagnosis -> the NCCL check in job
//     scope (per rail when asked) and the localization on failure (job_check.h); nothing is
//     marked (the gate has no API rights).
//   pod mode (the workload's own pods, before the command) is pod_mode.h: the same job check
//     once the pod set assembled, the local checks when it did not.
// Each run prints its summary line(s) (summary.h) on stdout.

#include <iosfwd>
#include <optional>

#include "health_config.h"
#include "kube_api.h"
#include "summary.h"

namespace hkim::health {

/// Runs node mode. With config.report_to_termination (a night check pod) it uses no API: the
/// checks, then CompactReport in the termination message; returns 0 passed, 1 failed. Otherwise
/// `api` is the API client (nullopt: no API, inventory and marking are errors).
/// Writes every summary line to `out` and progress to `log`. Returns 0 when the results were
/// recorded (the node passed or was marked failed), 2 when they could not be (API errors).
int RunNodeMode(const HealthConfig& config, const std::optional<KubeClient>& api, std::ostream& out,
                std::ostream& log);

/// Runs gate mode. Returns 1 when a check failed and the policy is fail, else 0.
int RunGateMode(const HealthConfig& config, std::ostream& out, std::ostream& log);

/// The current time as RFC 3339 UTC ("2026-11-23T10:00:00Z").
std::string UtcNow();

}  // namespace hkim::health
