#pragma once

// Model part of the fabric-health family (profile section `fabric_health`): the in-pod check
// (key `gate`) and the periodic per-node check. Read by model/model.cc through ReadFabricHealth;
// planned by plan/fabric_check.cc (in-pod) and plan/health.cc (periodic); templates in
// templates/health/.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "model/health_consumers.h"

namespace hkim {

/// The label (and taint key) the periodic health check writes on a failing node; the workload,
/// and with scheduling.kueue its ResourceFlavor, avoid it (plan/health.h's kHealthLabel).
inline constexpr const char* kHealthMarkKey = "hkimgen.io/nccl-health";
/// The annotations hkim-health writes beside the mark (wrapper/health/node_mark.h: the reason,
/// the time of the check, since when failed, the passes counted while healing), sorted: the only
/// annotations the admission policy lets the health check change (plan/health_fence.cc;
/// tests/health/node_mark_fence_test.cc checks the program writes no other).
inline constexpr const char* kHealthMarkAnnotations[] = {
    "hkimgen.io/nccl-health-passes", "hkimgen.io/nccl-health-reason",
    "hkimgen.io/nccl-health-since", "hkimgen.io/nccl-health-time"};

enum class GateMode { kOff, kWarn, kFail };

/// The in-pod fabric check (profile key `gate`): the StatefulSet's own pods run hkim-nccl-check
/// in job scope over the workload's nodes before the command starts (plan/fabric_check.h).
struct FabricGate {
  GateMode mode = GateMode::kFail;
  double min_busbw_gbps = 1.0;
  int64_t at_bytes = int64_t{1} << 30;
  int64_t max_bytes = int64_t{1} << 30;
  std::string transport = "auto";  ///< auto | any | NET/IB | NET/Socket | P2P
  bool per_rail = true;
  int timeout_seconds = 1800;
  /// How long a pod waits for the other pods of its revision before it checks alone.
  int assemble_timeout_seconds = 300;
  std::string pointer = "/fabric_health/gate";
};

/// The periodic per-node check (CronJob, one pod per node, marks the Node). Its NCCL checks
/// rotate over `nights` nights (wrapper/health/rotation.h picks each night's slice).
struct PeriodicHealth {
  bool enabled = false;  ///< unset in the profile: on for workload.mode rdma (ReadFabricHealth)
  std::string schedule = "17 3 * * *";
  int nodes = 0;  ///< the pool's node count, one pod each; 0 = workload.replicas
  int nights = 1;  ///< every node runs the NCCL checks once in `nights` runs
  bool taint = false;
  int release_after_passes = 2;  ///< consecutive passes that release a node marked fail
  bool per_rail = true;
  double min_busbw_gbps = 1.0;
  int64_t at_bytes = int64_t{1} << 30;
  int timeout_seconds = 3600;
  std::string pointer = "/fabric_health/periodic";
};

/// What the periodic check writes on a tested node (profile node_condition.marks).
enum class FabricMarks { kLabels, kCondition, kBoth };

/// The node condition RdmaFabric (profile key `node_condition`; wrapper/health/node_condition.h
/// writes it): its writers' rights, the fence, the heartbeat a reader holds it to.
struct NodeConditionSettings {
  bool enabled = false;
  int heartbeat_seconds = 300;
  FabricMarks marks = FabricMarks::kLabels;  ///< unset: kBoth when enabled
  std::string pointer = "/fabric_health/node_condition";
};

/// One counter's limit for the link agent (wrapper/health/link_watch.h).
struct LinkCounterThreshold {
  std::string counter;
  int64_t max_increase = 0;
  int64_t window_seconds = 3600;
};

/// The passive link agent (profile key `link_counters`): a DaemonSet running hkim-health links.
struct LinkCounters {
  bool enabled = false;  ///< unset: node_condition.enabled
  int interval_seconds = 60;
  /// Defaults cited in the schema: NVSentinel (any increase of link_downed, rnr_nak_retry_err;
  /// symbol_error above 120 per hour), Oracle (a link down within 6 hours).
  std::vector<LinkCounterThreshold> thresholds = {
      {"link_downed", 0, 21600}, {"rnr_nak_retry_err", 0, 21600}, {"symbol_error", 120, 3600}};
  std::string pointer = "/fabric_health/link_counters";
};

struct FabricHealth {
  FabricGate gate;
  PeriodicHealth periodic;
  NodeConditionSettings node_condition;
  LinkCounters link_counters;
  double min_rail_fraction = 0.75;
  FabricConsumers consumers;  ///< model/health_consumers.h
  std::string pointer = "/fabric_health";
};

const char* ToString(GateMode value);
const char* ToString(FabricMarks value);

/// Reads the schema-valid `fabric_health` section (`section` may be empty: defaults) into `out`.
/// Byte sizes that do not parse and a gate at_bytes above max_bytes are reported to `sink`
/// located through `loaded`. `rdma_pool`: the workload runs over RDMA, so the periodic check is
/// on unless the profile turns it off. Returns the number of errors reported.
int ReadFabricHealth(const nlohmann::json& section, const LoadedProfile& loaded,
                     DiagnosticSink& sink, bool rdma_pool, FabricHealth& out);

/// The namespace of the periodic check serving workload namespace `ns`: <ns>-fabric-health, or,
/// where that would pass the 63 characters of a namespace name, <ns cut>-<fingerprint of ns>-
/// fabric-health. Always ends in kFabricHealthNamespaceSuffix.
std::string FabricHealthNamespace(const std::string& ns);
inline constexpr const char* kFabricHealthNamespaceSuffix = "-fabric-health";

/// The names the family gives its objects: <workload.name><suffix> (plan/health.cc).
inline constexpr const char* kPeriodicNameSuffix = "-fabric-health";
/// Checks that workload.name leaves room for the names derived from it: the CronJob's name
/// <name>-fabric-health (52: the API appends 11 characters for its Jobs).
/// Errors model.name-too-long at /workload/name, and model.health-namespace-taken where a
/// workload namespace is another's health namespace; returns their count.
struct Profile;
int CheckFabricHealthNames(const Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink);

}  // namespace hkim
