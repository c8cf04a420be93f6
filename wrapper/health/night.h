#pragma once
// hkim-health night: the periodic check's coordinator, one small pod with no GPU (the CronJob's).
// It lists the pool (HKIM_HEALTH_NODE_SELECTOR less HKIM_HEALTH_EXCLUDE_NODES, within
// HKIM_HEALTH_INCLUDE_NODES), checks every pool node's inventory from its Node status (a node
// short of GPUs or VFs is marked fail now), takes tonight's slice (night_plan.h: the least
// recently tested), and starts one check pod per slice node from the generator's template,
// pinned to the node. A pod the scheduler cannot place within HKIM_HEALTH_PLACEMENT_TIMEOUT_S
// is deleted and its node recorded busy (a skip: its turn comes again next night, first); a
// placed pod runs within HKIM_HEALTH_TIMEOUT_S (else deleted: inconclusive). Each finished pod's
// report (its termination message and exit code) marks its node pass or fail; the coordinator,
// not the check pods, holds the right to patch nodes. No other node is read or written.

#include <iosfwd>
#include <optional>

#include "health_config.h"
#include "kube_api.h"

namespace hkim::health {

/// Runs the night. Prints one summary line (mode "night") per pool node on `out`, progress on
/// `log`. Returns 0 when no node that was tested failed (busy and inconclusive nodes are not
/// failures), 1 when one failed (its check pod, or its inventory), 2 when the night could not
/// run or record its results (no API, no template, the pool not listed, a mark or a pod not
/// written; or every placed pod ended without a verdict: the check itself is broken).
int RunNightMode(const HealthConfig& config, const std::optional<KubeClient>& api,
                 std::ostream& out, std::ostream& log);

}  // namespace hkim::health
