#pragma once
// hkim-health's settings, from the pod's environment (docs/CONTRACTS.md, "Fabric health"):
//   HKIM_HEALTH_MODE            node | gate | night (the command line's first word wins; pod and ready
//                               are given on the command line only)
//   HKIM_HEALTH_POLICY          warn | fail: gate and pod; fail = a failed check fails the Job
//                               (gate) or ends the pod with exit 1 before the command (pod)
//   HKIM_HEALTH_READY_FILE      pod, ready: written when the in-pod check passed, read by
//                               `hkim-health ready` (default /opt/hkim/nccl/fabric-ready)
//   HKIM_HEALTH_ASSEMBLE_TIMEOUT_S  pod: how long the pods wait for the whole set (default 300);
//                               a pod that finds no complete set by then runs its checks alone
//   HKIM_POD_REVISION           pod: the pod's controller-revision-hash (downward API); pods of
//                               different revisions never assemble ("" = not checked)
//   HKIM_NODE_NAME              downward API spec.nodeName (required in node mode)
//   HKIM_POD_NAME               the pod's name, for the summary
//   HKIM_HEALTH_EXPECT_GPUS     GPUs a node of the shape registers (node mode)
//   HKIM_HEALTH_EXPECT_RESOURCES  "name=count,..." minimum allocatable RDMA resources
//   HKIM_HEALTH_NODE_SELECTOR   "key=value,..." the node group (fleet inventory, night)
//   HKIM_HEALTH_INCLUDE_NODES   "name,...": node_shape.include_nodes; when set, the pool is only
//                               these of the selector's nodes (no other node is read or marked)
//   HKIM_HEALTH_EXCLUDE_NODES   "name,...": node_shape.exclude_nodes, never part of the pool
//   HKIM_HEALTH_REPORT          node: "termination" = a night check pod: no API, the compact
//                               report in the termination message, exit 1 when a check failed
//   HKIM_HEALTH_PLACEMENT_TIMEOUT_S  night: how long a check pod may wait for its node
//                               (default 300); then the node is busy, a skip
//   HKIM_HEALTH_POLL_S          night: seconds between two looks at the check pods (default 5)
//   HKIM_HEALTH_CHECK_POD       night: the check pod template, a v1 Pod as JSON (default
//                               /etc/hkim-health/check-pod.json, the ConfigMap's mount)
//   HKIM_POD_NAMESPACE, HKIM_POD_UID  night: the coordinator's own pod (downward API), owner
//                               of the check pods
//   HKIM_HEALTH_TAINT           true | false: consent to a NoSchedule taint on failure
//   HKIM_HEALTH_PER_RAIL        true | false: also run hkim-nccl-check --per-rail
//   HKIM_HEALTH_TIMEOUT_S       node, gate: per NCCL check (default 900); night: one check pod,
//                               from its placement to its end
//   HKIM_MODE                   tcp: the profile runs without RDMA (diagnosis does not fail)
//   HKIM_HEALTH_RELEASE_AFTER   consecutive passes that release a node marked fail (default 2)
//   HKIM_HEALTH_ROTATION_NIGHTS node: the group's NCCL checks are spread over this many nights
//                               (rotation.h; default 1 = every node every night)
//   HKIM_HEALTH_LOCALIZE        gate and pod: fail (pairwise rounds when the job check fails,
//                               default) | always | off
//   HKIM_HEALTH_PAIR_TIMEOUT_S  gate, pod: one localization round's measurement (default 120)
//   HKIM_HEALTH_PEER_ADDRESS    gate, pod: pod address template with {ordinal} (default: MASTER_ADDR
//                               with <set>-0 replaced by <set>-<ordinal>)
//   HKIM_HEALTH_MARK_SUSPECTS   gate: true = a pod whose node is a suspect marks it (needs get and
//                               patch on nodes; the bundle's gate never sets it)
//   HKIM_HEALTH_TERMINATION_LOG gate, pod: where the suspects go for the Job (default
//                               /dev/termination-log, written only when it exists)
//   HKIM_HEALTH_SYSFS           links: the RDMA class folder to read (default
//                               /sys/class/infiniband; the DaemonSet's /host/sys/class/infiniband)
//   HKIM_HEALTH_LINK_RAILS      links: "rail=device,..." (device "@ifname": the host netdev's
//                               device); empty = every device under HKIM_HEALTH_SYSFS
//   HKIM_HEALTH_LINK_INTERVAL_S links: seconds between two reads (default 60)
//   HKIM_HEALTH_LINK_THRESHOLDS links: "counter=max_increase/window_seconds,..." (default
//                               link_watch.h's kDefaultLinkThresholds)
//   HKIM_HEALTH_HEARTBEAT_S     links, night: the RdmaFabric condition's heartbeat interval: a
//                               reader takes an older condition as Unknown (default 300)
//   HKIM_HEALTH_MARKS           night: labels | condition | both: what the coordinator writes on
//                               a tested node (default labels)
//   HKIM_HEALTH_WORKLOAD_PODS   night, with the condition: "ns,...", the workload namespaces
//                               whose pods' termination messages give the condition's pod part
//   HKIM_HEALTH_WORKLOAD_SELECTOR night: the workload pods' label selector ("app=<workload>")
//   HKIM_REPLICAS, MASTER_ADDR, HKIM_RENDEZVOUS_PORT, HKIM_NCCL_CHECK_MIN_BUSBW_GBPS,
//   HKIM_NCCL_CHECK_AT_BYTES    the job check's own settings, read for the localization

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kube_api.h"
#include "link_sysfs.h"
#include "node_inventory.h"

namespace hkim::health {

enum class RunMode { kNode, kGate, kPod, kNight, kLinks };

inline constexpr const char* kDefaultReadyFile = "/opt/hkim/nccl/fabric-ready";

struct HealthConfig {
  RunMode mode = RunMode::kNode;
  bool fail_on_failure = true;  ///< gate, pod: HKIM_HEALTH_POLICY=fail
  std::string ready_file = kDefaultReadyFile;  ///< pod, ready
  double assemble_timeout_s = 300;             ///< pod: HKIM_HEALTH_ASSEMBLE_TIMEOUT_S
  std::string pod_revision;                    ///< pod: HKIM_POD_REVISION ("" = not checked)
  std::string node_name;
  std::string pod_name;
  NodeExpectation expected;
  std::map<std::string, std::string> node_selector;
  bool taint = false;
  bool per_rail = false;
  bool tcp_mode = false;  ///< HKIM_MODE=tcp: RDMA is not expected, the diagnosis only informs
  double check_timeout_s = 900;
  std::string bin_dir;  ///< folder of hkim-wrapper and hkim-nccl-check (our own folder)
  int release_after = 2;
  int rotation_nights = 1;  ///< node mode: the night's slice of the group runs NCCL (rotation.h)
  std::set<std::string> include_nodes;  ///< the pool is within these (empty: the selector's)
  std::set<std::string> exclude_nodes;  ///< never part of the pool
  bool report_to_termination = false;   ///< node: a night check pod (HKIM_HEALTH_REPORT)
  // Night (the coordinator).
  double placement_timeout_s = 300;
  double poll_s = 5;
  std::string check_pod_file = "/etc/hkim-health/check-pod.json";
  std::string pod_namespace;
  std::string pod_uid;
  // Localization (gate, pod).
  std::string localize = "fail";
  double pair_timeout_s = 120;
  std::string peer_address;
  bool mark_suspects = false;
  std::string termination_log = "/dev/termination-log";
  bool termination_log_set = false;  ///< given explicitly: created when absent
  int replicas = 1;
  std::string master_addr;
  int rendezvous_port = 29650;
  double min_busbw_gbps = 0;
  std::string at_bytes;  ///< as given (hkim-nccl-check parses it)
  // The node condition and the link agent (links; night writes the condition too).
  std::string sysfs_root = "/sys/class/infiniband";
  std::vector<RailDevice> link_rails;  ///< empty: every device under sysfs_root
  double link_interval_s = 60;
  std::string link_thresholds;  ///< checked; default kDefaultLinkThresholds
  double heartbeat_s = 300;
  bool write_labels = true;      ///< night: HKIM_HEALTH_MARKS labels | both
  bool write_condition = false;  ///< night: HKIM_HEALTH_MARKS condition | both
  std::set<std::string> workload_namespaces;  ///< night: HKIM_HEALTH_WORKLOAD_PODS
  std::string workload_selector;              ///< night: HKIM_HEALTH_WORKLOAD_SELECTOR
};

/// Reads the variables above through `env` into `config`; one message (naming the variable,
/// the value and the fix) per bad value in `errors`.
void ReadHealthEnvironment(const EnvLookup& env, HealthConfig& config,
                           std::vector<std::string>& errors);

/// Parses "a=1,b=2" into a map; false on an item without '=' or with an empty key.
bool ParseKeyValueList(const std::string& text, std::map<std::string, std::string>* out);

/// "key=value,..." as a label selector query value (sorted, as in the map).
std::string LabelSelector(const std::map<std::string, std::string>& selector);

}  // namespace hkim::health
