#pragma once

#include <nlohmann/json.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "plan/installs.h"
#include "plan/requirements.h"
#include "support/object_id.h"

namespace hkim {

/// Argo CD sync waves, in dependency order: operators, then their CRs, then node policies, then
/// cluster access and address pools, then namespaced identities and networks, configuration, the
/// Service and the workload (docs/bundle.md).
enum SyncWave : int {
  kWaveOperators = 0,        ///< Namespace/OperatorGroup/Subscription; chart Applications
  kWaveOperatorConfig = 1,   ///< SriovOperatorConfig, NodeFeatureDiscovery, ClusterPolicy, NicClusterPolicy
  kWaveNodePolicies = 2,     ///< MachineConfig, SriovNetworkNodePolicy, VF DaemonSet
  kWaveClusterAccess = 3,    ///< SCC, IPPool, the workload Namespaces
  kWaveNamespaceAccess = 4,  ///< ServiceAccount, Role(Binding), NADs
  kWaveConfig = 5,
  kWaveService = 6,
  kWaveWorkload = 7,
};

/// The Argo CD Applications (and bundle sub-directories) objects are split into: platform =
/// cluster-scoped objects and objects in operator namespaces (platform team); nodes = the objects
/// whose change drains, reboots or re-images nodes or rolls a driver (plan/disruption.h's table
/// decides; they sync only when someone presses sync, unless gitops.self_sync says otherwise);
/// health = the periodic fabric check's namespaces (platform team: its service accounts may mark
/// nodes; plan/health.h); workload = objects in the profile's `namespaces` (ML team).
constexpr const char* kPlatformLayer = "platform";
constexpr const char* kNodesLayer = "nodes";
constexpr const char* kHealthLayer = "health";
constexpr const char* kWorkloadLayer = "workload";

/// One Kubernetes object the bundle will contain, before rendering.
struct PlannedObject {
  std::string template_name;  ///< path under templates/, e.g. "openshift/scc.yaml.mustache"
  std::string api_version;    ///< e.g. "security.openshift.io/v1"
  std::string kind;           ///< e.g. "SecurityContextConstraints"
  std::string name;
  std::string namespace_name;  ///< empty for cluster-scoped objects
  int sync_wave = 0;           ///< Argo CD sync wave (dependency order)
  std::string layer;           ///< kPlatformLayer, kNodesLayer, kHealthLayer, kWorkloadLayer or kAppsLayer
  std::string file_name;       ///< file in `-o DIR`, e.g. "platform/30-scc-nccl-rdma.yaml"
  nlohmann::json context;      ///< the data the template is rendered with
  // The requirements model (requirements.h): kept when the context is released after rendering.
  std::vector<Need> needs;
  std::vector<Capability> provides;
  bool node_agent = false;                  ///< runs pods on the GPU nodes the workload needs
  /// The profile's operators key ("network_operator") when the object is part of that operator's
  /// install, whose node agents serve every profile of the cluster that shares the operator.
  std::string operator_key;
  std::vector<ToleratedTaint> tolerates;    ///< a node agent's tolerations
  std::string source_pointer;               ///< the profile value that made it (for messages)
  /// What the object installs whose images are chosen elsewhere: a Subscription's package, an
  /// Application's chart (kept when the context is released; `hkimgen images` lists them).
  std::optional<PlannedSubscription> subscription;
  std::optional<PlannedChart> chart;

  /// Its identity in the cluster (support/object_id.h).
  ObjectId id() const { return ObjectId::FromApiVersion(api_version, kind, namespace_name, name); }
};

/// Every object of one bundle, in output order (by sync wave, then kind, then namespace, then
/// name), plus the bundle-level files that are not API objects of the workload (kustomization.yaml
/// and the Argo CD Application that points at the bundle).
struct BundlePlan {
  std::string bundle_name;  ///< profile's cluster name; names the Argo CD Application
  std::vector<PlannedObject> objects;
  PlannedObject kustomization;  ///< rendered from a template too; lists objects' file names
  PlannedObject application;    ///< Argo CD Application; not listed in kustomization (no self-sync)
  /// Per layer: <layer>/kustomization.yaml and the layer's Argo CD Application apps/<layer>.yaml
  /// (the parent `application` syncs apps/); plan/layers.cc.
  std::vector<PlannedObject> layer_files;
  /// OpenShift: bootstrap/ ClusterRole + ClusterRoleBinding for the Argo CD application
  /// controller, applied once by hand before the first sync; listed in no kustomization
  /// (plan/argocd_bootstrap.cc).
  std::vector<PlannedObject> bootstrap;
  /// What the bundle relies on and does not install: the profile's declared `preconditions`
  /// and the ones its settings imply (closure.h, BundlePreconditions); in the marker and README.
  std::vector<Precondition> preconditions;
  /// README.md at the bundle root, for people (plan/readme.cc); in no kustomization.
  PlannedObject readme;
};

/// Adds one object to `plan`: its layer (from its namespace), file name
/// (<layer>/<wave*10>-<kind>-[<namespace>-]<name>.yaml) and the metadata every template prints
/// (name, namespace, sync wave, part-of, Argo CD sync options: SkipDryRunOnMissingResource when
/// `skip_dry_run`, Prune=false,Delete=false when `keep_on_removal`). Used by the per-family plan stages (plan/health.cc,
/// plan_operators_*.cc).
PlannedObject& AddPlannedObject(BundlePlan& plan, const Profile& profile,
                                const std::string& template_name, const std::string& api_version,
                                const std::string& kind, const std::string& name,
                                const std::string& namespace_name, int wave, bool skip_dry_run,
                                bool keep_on_removal = false);

/// The profile's node-shape tolerations (what the workload tolerates) as the context of the
/// common/tolerations partial and of the NicClusterPolicy's `tolerations`: {has_tolerations,
/// tolerations: [{operator, has_key, key, has_value, value, has_effect, effect}]}. The node agents
/// the workload depends on (device plugin, Multus, nv-ipam, VF and CNI DaemonSets) get the same
/// list, so that a taint on the GPU pool keeps none of them off the nodes the workload runs on.
nlohmann::json TolerationsContext(const std::vector<Toleration>& tolerations);

/// Decides which objects a profile needs and fills their template contexts. Pure function of
/// the profile: no I/O, no clock, so output is deterministic.
/// `namespace_planned` (when set) is called after each namespace's objects are planned; they do
/// not change afterwards (render/render.h's RenderAhead renders them then, for peak memory).
BundlePlan PlanBundle(const Profile& profile,
                      const std::function<void(BundlePlan&)>& namespace_planned = {});

}  // namespace hkim
