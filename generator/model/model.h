#pragma once

// The typed profile. Owned by the model stage (model/model.cc); see schemas/profile.schema.json for
// the meaning and defaults of every field. Units are in the names (`mtu_bytes`,
// `shm_size_bytes`). Each struct keeps the JSON pointer it was read from (`pointer`), so later
// stages (lint) can point at the profile line with `loaded.locations.Find(pointer)`.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "model/health.h"
#include "model/image_mirror.h"
#include "model/operators.h"
#include "model/scheduling.h"

namespace hkim {

enum class Platform { kOpenShift, kOke, kKubernetes };
enum class Fabric { kRoceV2, kInfiniBand };
enum class IpamType { kWhereabouts, kNvIpam };
enum class CpuVendor { kIntel, kAmd };
/// The GPU nodes' SELinux mode (node_shape.selinux); unstated counts as enforcing.
enum class SelinuxMode { kEnforcing, kPermissive, kDisabled };
enum class GidPolicy { kAuto, kIndex };
enum class GpuDirect { kAuto, kDmaBuf, kNvidiaPeermem };
enum class MemlockStrategy { kSysResourceScc, kPrivileged, kCrioUlimits };
enum class IommuPolicy { kPassthrough, kAlreadyConfigured, kSkip };
enum class WorkloadMode { kRdma, kTcp };
enum class OnNoRdma { kFail, kTcp };
enum class HealthCheckMode { kOff, kWarn, kFail };
enum class HealthCheckScope { kLocal, kJob };
/// Which child Applications sync themselves (gitops.self_sync); each value adds to the one
/// before it. Node disruption (drain, reboot, driver roll) is plan/disruption's table.
enum class SelfSync {
  kOff,                   ///< "off": every sync is pressed
  kNamespaces,            ///< "namespaces": the workload layer (the profile's namespaces)
  kExceptNodeDisruption,  ///< "except-node-disruption": also the platform layer and charts
  kEverything,            ///< "everything": also the nodes layer (drains, reboots, driver rolls)
};

/// Stable spelling of each enum value, as in the schema (for output and messages).
const char* ToString(Platform value);
const char* ToString(Fabric value);
const char* ToString(IpamType value);
const char* ToString(CpuVendor value);
const char* ToString(SelinuxMode value);
const char* ToString(GidPolicy value);
const char* ToString(GpuDirect value);
const char* ToString(MemlockStrategy value);
const char* ToString(IommuPolicy value);
const char* ToString(WorkloadMode value);
const char* ToString(OnNoRdma value);
const char* ToString(HealthCheckMode value);
const char* ToString(HealthCheckScope value);
const char* ToString(SelfSync value);

struct Toleration {
  std::string key;
  std::string operator_name = "Equal";  ///< Exists | Equal
  std::string value;
  std::string effect;  ///< empty = all effects
  std::string pointer;
};

/// One NIC under a PCIe switch, in the topology description.
struct TopologyNic {
  std::string bus_id;                     ///< 0000:0c:00.0
  std::vector<std::string> rdma_devices;  ///< one per port, as the pod sees them
};

struct PcieSwitch {
  std::string bus_id;  ///< upstream port of the switch
  std::vector<std::string> gpu_bus_ids;
  std::vector<TopologyNic> nics;
};

struct NumaNode {
  int id = 0;
  std::string cpu_affinity;  ///< hex mask as NCCL prints it
  std::vector<PcieSwitch> pcie_switches;
};

/// Which GPUs and NICs share a PCIe switch (from a preset or the profile). Empty
/// `numa_nodes` means "no topology file".
struct NodeTopology {
  std::string preset;  ///< preset name, or "custom", or "none"
  CpuVendor cpu_vendor = CpuVendor::kIntel;
  int cpu_family = 0;          ///< x86 family id for the <cpu> element (0 = omit)
  int cpu_model = 0;           ///< x86 model id (0 = omit)
  std::string gpu_pci_device;  ///< 0x2330
  int gpu_sm = 0;              ///< 90 Hopper, 80 Ampere
  std::string nic_pci_device;  ///< 0x1021
  int64_t nic_speed_mbps = 0;
  std::vector<NumaNode> numa_nodes;
  /// False for a preset not checked against real nodes (bus IDs, switches and RDMA names
  /// assumed, as barcelona-h100-cx7): the bundle then ships no topology file and leaves NCCL's
  /// own detection alone. A profile may opt in with node_shape.topology.verified: true.
  bool verified = true;
  std::string pointer;

  bool empty() const { return numa_nodes.empty(); }
};

struct NodeShape {
  std::string name;
  int gpus_per_node = 0;
  int nics_per_node = 0;
  CpuVendor cpu_vendor = CpuVendor::kIntel;
  /// Enforcing (the default of Oracle Linux and RHCOS) keeps container_t pods off host sysfs,
  /// host sockets and host paths whatever their capabilities: node agents then run privileged.
  SelinuxMode selinux = SelinuxMode::kEnforcing;
  bool selinux_set = false;  ///< the profile states it (else assumed enforcing)
  std::map<std::string, std::string> node_selector;  ///< sorted: deterministic output
  /// kubernetes.io/hostname values the pods may run on (empty = any) / must never run on; in
  /// profile order, rendered as required node affinity (In / NotIn).
  std::vector<std::string> include_nodes;
  std::vector<std::string> exclude_nodes;
  std::vector<Toleration> tolerations;
  NodeTopology topology;
  std::string pointer;
};

struct NvIpamPool {
  std::string name;
  std::string namespace_name = "network-operator";
  std::string subnet;
  int per_node_block_size = 0;
  std::string gateway;  ///< empty = none
  std::string pointer;
};

struct Ipam {
  IpamType type = IpamType::kWhereabouts;
  std::string range;    ///< whereabouts CIDR
  std::string gateway;  ///< empty = none
  std::vector<std::string> routes;
  std::optional<NvIpamPool> pool;  ///< nv-ipam
  std::string pointer;
};

struct Rail {
  std::string name;
  std::string interface_name;    ///< host PF netdev, may be empty
  std::string nad_name;          ///< default <name>-network
  std::string resource_name;     ///< openshift.io/eno5np0rdma
  std::string rdma_device_hint;  ///< mlx5_6, may be empty
  int attachments_per_pod = 1;
  int mtu_bytes = 9000;
  Ipam ipam;
  int vlan = 0;
  bool spoof_check = false;
  bool trust = true;
  std::string cni_version = "1.0.0";
  std::string pointer;  ///< "/network/rails/<i>"
};

struct SriovDevicePlugin {
  std::string resource_prefix = "nvidia.com";
  std::string resource_name;
  std::vector<std::string> vendor_ids{"15b3"};
  std::vector<std::string> device_ids;
  std::vector<std::string> drivers{"mlx5_core"};
  // Image overrides; empty = the pinned Network Operator release's (model/operator_versions.h).
  std::string repository;
  std::string image;
  std::string version;
  std::string pointer;

  /// The extended resource pods request: <prefix>/<name>.
  std::string ExtendedResourceName() const { return resource_prefix + "/" + resource_name; }
};

struct NvIpamController {
  // Image overrides; empty = the pinned Network Operator release's (model/operator_versions.h).
  std::string repository;
  std::string image;
  std::string version;
  bool enable_webhook = false;
  std::string pointer;
};

/// The GPU nodes' RDMA subsystem network-namespace mode (`rdma system set netns`).
/// kShared: every pod sees the host's RDMA devices and libibverbs filters to its VFs (the
/// kernel's default; Barcelona's). kExclusive: the bundle switches the nodes to exclusive mode
/// (OpenShift: a SriovNetworkPoolConfig, one reboot per node; OKE: the VF DaemonSet) and the
/// NADs chain the rdma CNI, which moves each VF's RDMA device into its pod.
/// kAlreadyExclusive: the nodes run exclusive already (an implied precondition); NADs chain rdma.
enum class RdmaNetns { kShared, kExclusive, kAlreadyExclusive };
const char* ToString(RdmaNetns value);  ///< "shared", "exclusive", "already-exclusive"

struct Network {
  Fabric fabric = Fabric::kRoceV2;
  RdmaNetns rdma_netns = RdmaNetns::kExclusive;
  bool rdma_netns_set = false;  ///< the profile names it (else derived: model/network.cc)
  std::vector<Rail> rails;
  std::optional<SriovDevicePlugin> sriov_device_plugin;
  std::optional<NvIpamController> nv_ipam;
  std::string pointer = "/network";
};

struct NcclSettings {
  GidPolicy gid_policy = GidPolicy::kAuto;
  std::optional<int> gid_index;
  int ib_tc = 0;
  int ib_sl = 0;
  int ib_timeout = 20;
  int ib_retry_count = 7;
  int ib_qps_per_connection = 1;
  bool ib_split_data_on_qps = false;
  int cross_nic = 2;
  std::string gdr_level;  ///< as written ("SYS" or "5"); empty = NCCL's default
  GpuDirect gpudirect = GpuDirect::kAuto;
  std::optional<int> socket_nthreads;
  std::string socket_ifname;                     ///< empty = detected by the wrapper
  std::vector<std::string> ib_hca;               ///< empty = detected by the wrapper
  std::string debug;                             ///< empty = unset
  std::map<std::string, std::string> extra_env;  ///< sorted
  std::string pointer = "/nccl";
};

struct Security {
  MemlockStrategy memlock_strategy = MemlockStrategy::kSysResourceScc;
  std::string service_account = "hkim-workload";
  std::string scc_name;  ///< default <cluster.name>-nccl-rdma: the bundle's own SCC
  std::optional<int64_t> run_as_user;
  bool host_ipc = false;
  std::string pointer = "/security";
};

struct Iommu {
  IommuPolicy policy = IommuPolicy::kAlreadyConfigured;
  std::string machine_config_role = "worker";
  /// For a custom role (not worker/master): render its MachineConfigPool (`create`), or use one
  /// that exists already (`existing`, e.g. Barcelona's hand-made `h100` pool).
  bool create_pool = true;
  /// Kernel arguments the pool's nodes already boot with (a MachineConfig the cluster's admins
  /// own): the bundle renders only the rest, and no MachineConfig when none is left.
  std::vector<std::string> already_set;
  std::string pointer = "/iommu";
};

struct Workload {
  std::string name;
  std::string image;
  int replicas = 1;
  int gpus_per_pod = 1;
  std::vector<std::string> command;
  std::string shm_size = "32Gi";  ///< as written; a Kubernetes quantity
  int64_t shm_size_bytes = 0;
  WorkloadMode mode = WorkloadMode::kRdma;
  OnNoRdma on_no_rdma = OnNoRdma::kFail;
  int master_port = 29500;
  std::string service_name;                              ///< default <name>-headless
  std::map<std::string, std::string> resource_requests;  ///< quantities as strings, sorted
  std::map<std::string, std::string> resource_limits;
  std::map<std::string, std::string> env;
  int termination_grace_period_seconds = 30;
  std::string pointer = "/workload";
};

struct Wrapper {
  std::string image;
  std::string digest;  ///< "sha256:<64 hex>" pins `image` (model/wrapper_image.h); empty: by tag only
  int rendezvous_port = 29650;
  std::string pointer = "/wrapper";
};

struct HealthCheck {
  HealthCheckMode mode = HealthCheckMode::kWarn;
  HealthCheckScope scope = HealthCheckScope::kLocal;
  double min_busbw_gbps = 1.0;
  int64_t at_bytes = int64_t{1} << 30;
  int64_t max_bytes = int64_t{1} << 30;
  std::string transport = "any";
  std::string pointer = "/health_check";
};

/// Argo CD's name for its own cluster's API server.
inline constexpr char kInClusterServer[] = "https://kubernetes.default.svc";
/// The service account `argocd cluster add` creates in kube-system of a cluster it registers.
inline constexpr char kRemoteClusterAccount[] = "argocd-manager";

struct GitOps {
  std::string argocd_namespace = "argocd";
  /// Service account Argo CD writes to the destination cluster with (the subject of
  /// bootstrap/). Default, on Argo CD's own cluster: <argocd_namespace>-argocd-application-
  /// controller, the name the OpenShift GitOps operator gives the controller of the instance
  /// named like its namespace; on a remote destination: `argocd-manager`, the account
  /// `argocd cluster add` creates there (in kube-system).
  std::string controller_service_account;
  /// That account's namespace: argocd_namespace, or kube-system for a remote destination.
  std::string controller_namespace;
  /// Set by a fleet render (fleet/plan_fleet.h): the ApplicationSet that creates this bundle's
  /// parent Application on the central Argo CD; empty for a single render, whose parent
  /// application.yaml a person applies.
  std::string fleet_applicationset;
  std::string project = "default";
  std::string repo_url;
  std::string path;
  std::string revision = "HEAD";
  std::string destination_server = kInClusterServer;
  /// Argo CD's name for the destination cluster (`argocd cluster add CONTEXT --name NAME`); empty:
  /// use destination_server. When set, the layer and chart Applications say `destination.name`
  /// (Argo CD takes one or the other) and the parent Application stays on Argo CD's own cluster.
  std::string destination_name;
  std::string destination_namespace;  ///< default: the profile's first namespace
  SelfSync self_sync = SelfSync::kNamespaces;
  /// Self-syncing Applications prune and the parent syncs itself: only the deprecated
  /// `automated_sync: true` asks for it (what it meant before self_sync).
  bool prune = false;
  std::string platform_project;  ///< default: project
  std::string workload_project;  ///< default: project
  /// Project of the operator chart Applications (OKE); not in the profile: empty means
  /// platform_project. A fleet render gives them a project of their own (fleet/plan_fleet.h), since a
  /// chart's contents are the chart's, not a list hkimgen can restrict.
  std::string charts_project;
  int retry_limit = 20;          ///< sync retries per Application; -1 = forever
  std::string pointer = "/gitops";
};

/// Something the bundle relies on and must not create: a node label or pool the
/// cluster's admins own, an operator installed by other means, a host driver. Declared in the
/// profile's `preconditions`, or implied by its settings (plan/closure.h); listed in the bundle's
/// .hkimgen-bundle and README.md with the command that verifies it.
struct Precondition {
  std::string kind;   ///< a closure kind ("node-label", "cni-plugin", ...), "operator" or "host-driver"
  std::string what;   ///< the label key, plugin type, operator key (gpu_operator), driver ...
  std::string why;
  std::string check;  ///< the oc/kubectl command that verifies it
  std::string pointer;
};

/// A whole cluster profile, defaults applied.
struct Profile {
  std::string source_path;  ///< the profile file, as given
  std::string cluster_name;
  Platform platform = Platform::kOpenShift;
  std::vector<std::string> namespaces;
  NodeShape node_shape;
  Network network;
  NcclSettings nccl;
  Security security;
  Iommu iommu;
  Workload workload;
  Wrapper wrapper;
  HealthCheck health_check;
  FabricHealth fabric_health;  ///< model/health.h
  GitOps gitops;
  std::optional<Operators> operators;  ///< absent: the bundle installs no operator
  Scheduling scheduling;               ///< model/scheduling.h; no kueue: placement as before
  ImageMirror images;                  ///< image_mirror.h; applied while the model is read
  std::vector<Precondition> preconditions;  ///< declared ones only, in profile order

  bool IsOpenShift() const { return platform == Platform::kOpenShift; }
  bool UsesRails() const { return workload.mode == WorkloadMode::kRdma && !network.rails.empty(); }
  /// The node agents the bundle renders (OKE: VF DaemonSet, CNI copiers) run privileged: the
  /// hosts' SELinux enforces (container_t is denied host sysfs, sockets and paths whatever the
  /// capabilities) or operators.vf_config.privileged asks.
  bool NodeAgentsPrivileged() const {
    return node_shape.selinux == SelinuxMode::kEnforcing ||
           (operators && operators->vf_config && operators->vf_config->privileged);
  }
};

/// Parses a byte size ("32Gi", "8G", "1048576", or a JSON integer) into bytes; nullopt when it
/// is malformed or overflows.
std::optional<int64_t> ParseByteSize(const std::string& text);

/// Builds the typed profile from a schema-valid document, applying the schema's defaults, and runs
/// the cross-field checks the schema cannot express (rule ids "model.*"). Reports to `sink` with
/// source locations; returns nullopt when it reported an error.
std::optional<Profile> BuildProfile(const LoadedProfile& loaded, DiagnosticSink& sink);

/// As BuildProfile, but still returns the profile when only the cross-field checks reported
/// errors (they stay in `sink`), so that lint can report its own findings in the same run and
/// a profile with several faults gets every one reported (lint/lint.h).
std::optional<Profile> BuildProfileForLint(const LoadedProfile& loaded, DiagnosticSink& sink);

}  // namespace hkim
