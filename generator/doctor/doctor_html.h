#pragma once

// `hkimgen doctor --html FILE`'s page: the same nodes as the fleet table (doctor/doctor.h) as one
// self-contained HTML page (inline CSS, no script, no external resource) that a person reads in
// a browser. Rendered through templates/doctor/report.html.mustache; every value that came from
// a log goes through kainjow's HTML escaping, never into markup built here.

#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.h"

namespace hkim {

/// A check detail's measured bus bandwidth and its threshold ("busbw 4.30 GB/s (min 150.00)",
/// "busbw 194.60 GB/s via NET/IB (min 150.00)"); nullopt when the detail states no pair.
struct BusbwReading {
  double busbw_gbps = 0;
  double threshold_gbps = 0;
};
std::optional<BusbwReading> ParseBusbw(const std::string& detail);

/// The page for `nodes` (CollectSummaries' result, in its order; grouped by `group_label` as the
/// table is): counts, the fleet table, the suspects with their evidence, the nodes skipped as
/// busy and for how long, then per node its last active check (when, how, each check's status
/// and busbw against its threshold, failures and fixes) and its suspect rails. Ages count back
/// from NewestTime(nodes), so the same input gives the same bytes. nullopt after writing the
/// template's problem to `error` (a template that does not parse: a build defect).
/// With conditions (doctor --cluster), each node's RdmaFabric condition: its status, reason and
/// message, how long since it changed and since its last heartbeat; a heartbeat older than
/// `heartbeat_seconds` (the writer's interval) or status Unknown shows as Unknown (stale), never
/// as healthy. Ages then count back from the newest of the summaries and the heartbeats.
std::optional<std::string> FormatFleetPage(const std::vector<DoctorNode>& nodes,
                                           const std::string& group_label, std::string* error,
                                           long long heartbeat_seconds = 300);

/// How the page reads one condition at `now`: "True", "False" or "Unknown", and whether it is
/// stale (heartbeat older than `heartbeat_seconds`, unreadable, or written Unknown).
struct ConditionReading {
  std::string shown;  ///< True | False | Unknown | "" (no condition)
  bool stale = false;
};
ConditionReading ReadCondition(const DoctorCondition& condition, const std::string& now,
                               long long heartbeat_seconds);

}  // namespace hkim
