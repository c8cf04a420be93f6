#pragma once

// Shared by the plan stages (plan_<family>.cc): the builder that names, files and orders the
// bundle's objects, and the sync waves. plan/plan.cc composes the stages; each family of objects has
// its own stage file so that a new family adds a file instead of growing plan/plan.cc.
//
// Template context convention (see docs/CONTRACTS.md, "Templates"): every value a template
// prints with {{name}} is a JSON string (printed as one double-quoted YAML scalar) or a JSON
// number (printed plain). Booleans are only used as sections ({{#flag}}...{{/flag}}), lists as
// sections over objects. Everything that comes from the profile goes through {{...}}.

#include <string>

#include "model/model.h"
#include "plan/fabric_check.h"
#include "plan/plan.h"
#include "plan/health.h"

namespace hkim::plan {

// Sync waves: plan/plan.h (SyncWave).
constexpr HealthWaves kHealthWaves{kWaveClusterAccess, kWaveNamespaceAccess, kWaveWorkload};

/// Collects the planned objects of one profile. Every stage adds its objects through Add, which
/// derives the file name and the metadata context every template prints.
class PlanBuilder {
 public:
  explicit PlanBuilder(const Profile& profile) : profile_(profile) {}

  const Profile& profile() const { return profile_; }
  BundlePlan& plan() { return plan_; }
  /// Digests of planned objects, kept across namespaces (the fabric checksum's).
  PlannedDigests& digests() { return digests_; }

  /// Adds one object and returns it for the stage to fill its context. The reference is valid
  /// until the next Add.
  PlannedObject& Add(const std::string& template_name, const std::string& api_version,
                     const std::string& kind, const std::string& name,
                     const std::string& namespace_name, int wave, bool skip_dry_run,
                     bool keep_on_removal = false);

  /// True when the workload runs over RDMA (rails, SR-IOV, memlock), false for tcp mode.
  bool Rdma() const { return profile_.workload.mode == WorkloadMode::kRdma; }
  /// True when the bundle ships a topology file for NCCL (NCCL_TOPO_FILE, its ConfigMap and
  /// volume): only for a verified description (an OKE preset taken from OCI's files, a custom
  /// one, or a preset the profile marks verified); otherwise NCCL detects the topology itself.
  bool HasTopology() const {
    return !profile_.node_shape.topology.empty() && profile_.node_shape.topology.verified;
  }
  /// Names of the per-namespace ConfigMaps the StatefulSet mounts.
  std::string NcclConfigMapName() const { return profile_.workload.name + "-nccl-env"; }
  std::string TopologyConfigMapName() const { return profile_.workload.name + "-nccl-topology"; }

 private:
  const Profile& profile_;
  BundlePlan plan_;
  PlannedDigests digests_;
};

/// Stages, one per family of objects (plan_<family>.cc). Cluster-scoped stages run once,
/// namespace stages once per workload namespace.
void PlanNodeConfig(PlanBuilder& b);                                  // plan/node_config.cc
void PlanClusterSecurity(PlanBuilder& b);                             // plan/security.cc
void PlanNamespaceSecurity(PlanBuilder& b, const std::string& ns);    // plan/security.cc
void PlanNamespaces(PlanBuilder& b);                                  // plan/namespaces.cc
void PlanClusterNetwork(PlanBuilder& b);                              // plan/network.cc
void PlanNamespaceNetwork(PlanBuilder& b, const std::string& ns);     // plan/network.cc
void PlanWorkload(PlanBuilder& b, const std::string& ns);             // plan/workload.cc
/// scheduling.kueue: Topology, ResourceFlavor, ClusterQueue (once) and a LocalQueue per
/// namespace.
void PlanScheduling(PlanBuilder& b);                                  // plan/scheduling.cc
void PlanNamespaceScheduling(PlanBuilder& b, const std::string& ns);  // plan/scheduling.cc
/// The StatefulSet's queue label and topology annotation ({has_queue: false} without
/// scheduling.kueue): keys of its context, printed by common/statefulset.yaml.mustache only.
nlohmann::json QueueContext(const Profile& profile);                  // plan/scheduling.cc
// The bundle layout (kustomizations, Argo CD Applications) is plan/layers.h's PlanLayers; the
// operators are plan/operators/operators.h's stages.

}  // namespace hkim::plan
