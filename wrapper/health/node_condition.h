#pragma once
// The node condition the fabric checks write (docs/health.md, "The node condition"), in the
// node-problem-detector convention that remediation tools read: type RdmaFabric, status True
// when the fabric has issues, reason RdmaFabricHasIssues or RdmaFabricHasNoIssues, a message
// that names the rail, the peer and the numbers. Several writers share it, each owning one part
// of the message ("links: ..." the node agent, "night: ..." the periodic check, "pod: ..." the
// in-pod check as the coordinator reads it): a writer replaces its own part and keeps the
// others', so the condition is True while any writer sees an issue. Written through
// nodes/status as a strategic merge patch of the one condition (merged by type), carrying the
// node's resourceVersion so that two writers never lose each other's part (409: read again).
//
// Heartbeat: every write sets lastHeartbeatTime; the node agent writes again before
// `heartbeat_s` passes. A reader treats a condition whose heartbeat is older than heartbeat_s as
// Unknown (reason RdmaFabricCheckStale), never as healthy: ReadFabricCondition.

#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "kube_api.h"

namespace hkim::health {

inline constexpr const char* kConditionType = "RdmaFabric";
inline constexpr const char* kReasonHasIssues = "RdmaFabricHasIssues";
inline constexpr const char* kReasonHasNoIssues = "RdmaFabricHasNoIssues";
inline constexpr const char* kReasonStale = "RdmaFabricCheckStale";

/// Parses the message of a RdmaFabricHasIssues condition into its parts by writer ("links",
/// "night", "pod"): "<writer>: <text>" pieces separated by " | ". Pieces of another shape are
/// kept under "other" (joined), so that no text is lost.
std::map<std::string, std::string> ParseConditionParts(const std::string& message);

/// The message of `parts` (writer order: sorted), each part on one line with its '|' replaced
/// by '/'.
std::string ComposeConditionMessage(const std::map<std::string, std::string>& parts);

/// What one writer reports: its part ("" = no issues from it).
struct ConditionUpdate {
  std::string writer;  ///< links | night | pod
  std::string issue;   ///< the rail, peer and numbers; "" when this writer sees none
  std::string time;    ///< RFC 3339 UTC, the heartbeat
  std::string healthy_note;  ///< the message when no writer has an issue
};

/// The condition as `node` carries it (null when absent).
nlohmann::json CurrentCondition(const nlohmann::json& node);

/// The strategic merge patch of nodes/status that sets `update` on `node` (as read): the
/// other writers' parts kept, status True while any part remains, lastTransitionTime kept
/// unless the status changes, metadata.resourceVersion of the node read.
nlohmann::json ConditionPatch(const nlohmann::json& node, const ConditionUpdate& update);

/// How a reader sees the condition.
struct ConditionView {
  std::string status = "Unknown";  ///< True | False | Unknown
  std::string reason;   ///< the written reason, or kReasonStale when stale, "" when absent
  std::string message;
  double age_s = -1;    ///< seconds since lastHeartbeatTime (-1: absent or unreadable)
  bool stale = false;
};

/// The condition of `node` at `now` (Unix seconds): as written while its heartbeat is at most
/// `heartbeat_s` old; Unknown with reason RdmaFabricCheckStale when older (or its time cannot
/// be read); Unknown with reason "" when the node has none.
ConditionView ReadFabricCondition(const nlohmann::json& node, std::time_t now, double heartbeat_s);

/// Parses "2026-11-28T03:17:00Z" (RFC 3339 UTC, optional fraction); false on another shape.
bool ParseUtcTime(const std::string& text, std::time_t* out);

/// Writes `update` on node `name` through PATCH /api/v1/nodes/<name>/status (a fresh read, up
/// to 3 tries on 409). "" on success, else the error; `*status` gets the status written.
std::string WriteCondition(const KubeClient& client, const std::string& name,
                           const ConditionUpdate& update, std::string* status = nullptr);

/// Posts a core/v1 Event about node `name` in namespace `ns` (reason, message; type Warning when
/// `warning`), from component hkim-health. "" on success, else the error.
std::string PostNodeEvent(const KubeClient& client, const std::string& ns, const std::string& name,
                          const std::string& reason, const std::string& message, bool warning,
                          const std::string& time);

}  // namespace hkim::health
