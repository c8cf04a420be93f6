#pragma once
// The per-node JSON summary of hkim-health (the gate Job and the periodic CronJob print one
// each, as a single stdout line "HKIM_HEALTH_SUMMARY {json}"), read back by `hkimgen doctor`
// from files or `kubectl logs` output. Format (docs/CONTRACTS.md, "Fabric health"):
//   {"tool":"hkim-health","format":1,"mode":"node|gate","node":..,"pod":..,"passed":bool,
//    "time":..,"checks":[{"name":..,"status":"pass|fail|skip|error","detail":..,
//    "numbers":{..},"failures":[..],"fixes":[..]}],"mark":..,
//    "suspects":[{node,pod,rail,busbw_gbps,expected_gbps,transport,evidence}],  (gate, when run)
//    "localization":{ran,rounds,seconds,groups:[{round,nodes,ok,busbw_gbps,..}],notes},
//    "counters":{devices,moved:[{device,port,netdev,deltas:{counter:n}}]}}  (pod, when read)

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim::health {

inline constexpr const char* kSummaryMarker = "HKIM_HEALTH_SUMMARY ";

/// One check of the run.
struct CheckOutcome {
  std::string name;    ///< inventory | fleet-inventory | diagnosis | nccl-local | nccl-job | per-rail
  std::string status;  ///< pass | fail | skip | error
  std::string detail;  ///< one line with the numbers that matter
  nlohmann::json numbers = nlohmann::json::object();
  std::vector<std::string> failures;
  std::vector<std::string> fixes;
};

/// The whole run on one node.
struct NodeSummary {
  std::string mode;  ///< node | gate
  std::string node;
  std::string pod;
  std::string time;  ///< RFC 3339 UTC
  std::vector<CheckOutcome> checks;
  std::string mark;  ///< what was written to the Node ("label fail + taint", "label pass", "")
  /// Gate: the pairwise localization ({ran, rounds, seconds, groups, notes}) and its suspects
  /// ([{node, pod, rail, busbw_gbps, expected_gbps, transport, evidence}]); null when not run.
  nlohmann::json localization;
  nlohmann::json suspects;
  /// Pod: the error counters of the pod's RDMA devices that moved during its checks
  /// ({devices, moved: [{device, port, netdev, deltas}]}, vf_counters.h); null when not read.
  nlohmann::json counters;

  /// True when no check failed or errored.
  bool Passed() const;
};

/// The summary as one line: kSummaryMarker + compact JSON + "\n".
std::string FormatSummaryLine(const NodeSummary& summary);

/// The JSON object alone (for tests and the line).
nlohmann::json SummaryJson(const NodeSummary& summary);

/// The most a check pod's termination message may hold (the kubelet keeps 4096 bytes).
inline constexpr size_t kTerminationMessageBytes = 4000;

/// A check pod's result for the night coordinator, as its termination message: compact JSON
/// {"tool":"hkim-health","report":1,"node":..,"passed":bool,"checks":[{"name","status",
/// "detail","failures":[first]}]}, each text cut on a UTF-8 boundary, at most
/// kTerminationMessageBytes in all (details are shortened until it fits). Never throws.
std::string CompactReport(const NodeSummary& summary);

/// Reads a CompactReport back into `checks` and `passed`; false when `text` is not one (cut off,
/// another program's message).
bool ParseCompactReport(const std::string& text, std::vector<CheckOutcome>* checks, bool* passed);

}  // namespace hkim::health
