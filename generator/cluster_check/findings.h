#pragma once

// Internal to cluster_check: findings about many nodes folded into one diagnostic (a 2,000-node
// cluster whose every node lacks one PF gets one error naming the first nodes and the count).

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cluster_check/cluster_check.h"

namespace hkim::cluster_check {

class Findings {
 public:
  Findings(const LoadedProfile& merged, DiagnosticSink& sink) : merged_(merged), sink_(sink) {}

  /// One finding about `object` ("Node/a (export.json:12:5)"); the same rule, pointer and
  /// message about other objects fold into it. `detail` is kept from the first object only.
  void Add(Severity severity, const std::string& rule, const std::string& pointer,
           const std::string& object, const std::string& message, const std::string& fix,
           const std::string& detail = "");

  /// A check the export cannot answer because it holds no object of `kind`: collected, and
  /// reported as one cluster.not-exported note naming every kind and check skipped.
  void NotExported(const std::string& kind, const std::string& what);

  /// Reports everything, in the order first added; then the one note of what was skipped.
  void Flush();

 private:
  struct Entry {
    Severity severity;
    std::string rule, pointer, message, fix, detail;
    std::vector<std::string> objects;
  };
  const LoadedProfile& merged_;
  DiagnosticSink& sink_;
  std::vector<Entry> entries_;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index_;
  std::map<std::string, std::vector<std::string>> skipped_;  ///< kind -> checks
};

/// "Node/a (export.json:12:5)": how a message names an object of the export.
std::string Named(const std::string& kind, const std::string& name, const SourceLocation& at);
/// Named() of an exported object, with its namespace and where it starts in the export.
std::string Where(const ClusterExport& cluster, const discover::ExportObject& object);
/// The exported objects of one kind, in export order.
std::vector<const discover::ExportObject*> OfKind(const ClusterExport& cluster,
                                                   const std::string& kind);
/// A JSON string's value, "" for anything else (an export is untrusted).
std::string Str(const nlohmann::json& value);

/// Checks of preconditions.cc: the pool and labels, preinstalled operators, the OpenShift
/// version, and objects the bundle would take over or address ranges it would overlap.
void CheckPreconditions(const Profile& profile, const BundlePlan& plan, const ClusterExport& cluster,
                        const std::vector<const discover::NodeFacts*>& picked, Findings& findings);
/// oke_preconditions.cc: the plan's oci-region precondition against the picked nodes' region
/// label (cluster.oci-region) and its not-installed ones against Helm release Secrets and objects
/// a chart rendered that this bundle does not sync (cluster.operator-installed).
void CheckOkePreconditions(const BundlePlan& plan, const ClusterExport& cluster,
                           const std::vector<const discover::NodeFacts*>& picked,
                           Findings& findings);
/// running_preconditions.cc: the plan's running preconditions (NAMESPACE/CONTAINER) against the
/// exported Pods (cluster.precondition when none in NAMESPACE has that container).
void CheckRunningPreconditions(const BundlePlan& plan, const ClusterExport& cluster,
                               Findings& findings);
void CheckTakeover(const Profile& profile, const BundlePlan& plan, const ClusterExport& cluster,
                   Findings& findings);
/// platform_networks.cc: each rail's range against the nodes' addresses and pod CIDRs and, on
/// OpenShift, the Network config's cluster and service networks (cluster.platform-network-overlap).
void CheckPlatformNetworks(const Profile& profile, const ClusterExport& cluster,
                           Findings& findings);

/// placement.cc: with scheduling.kueue, how the picked nodes split over its level and whether
/// one domain holds every replica (cluster.topology-fit: a note when it does, else an error, a
/// warning when placement is preferred).
void CheckPlacement(const Profile& profile, const ClusterExport& cluster,
                    const std::vector<const discover::NodeFacts*>& picked, Findings& findings);

/// capacity.cc: with the plan's free-capacity precondition, the picked nodes the pods may run on
/// whose GPUs and rails' VFs the exported Pods of other namespaces leave idle, against the
/// replicas (cluster.capacity, a warning at workload.replicas); without Pods in the export, a
/// cluster.not-exported note.
void CheckFreeCapacity(const Profile& profile, const BundlePlan& plan, const ClusterExport& cluster,
                       const std::vector<const discover::NodeFacts*>& picked, Findings& findings);

/// The Argo CD Applications that sync `plan` (the parent, its layers' and any it renders).
std::set<std::string> BundleApplications(const BundlePlan& plan);

/// Whether the export holds `planned` (its identity) synced by one of `apps`: the bundle's own,
/// after a sync.
bool OwnObjectSynced(const ClusterExport& cluster, const std::set<std::string>& apps,
                     const PlannedObject& planned);

/// The Argo CD Application that syncs an exported object ("" for none): its tracking label or
/// annotation.
std::string TrackedBy(const nlohmann::json& object);

/// Pods of other namespaces than the profile's (and than the operators') that use GPUs or RDMA
/// (an extended resource of nvidia.com or a rail, or a secondary network), by node.
struct OtherTenants {
  std::map<std::string, std::set<std::string>> by_node;  ///< node -> namespaces
};
OtherTenants FindOtherTenants(const Profile& profile, const ClusterExport& cluster);

/// node_changes.cc: MachineConfigs that re-render a pool or repeat kernel arguments it boots
/// with, iommu.already_set against the cluster's MachineConfigs, picked nodes other teams use,
/// and node_shape.cpu_vendor against the nodes' CPUs.
void CheckNodeChanges(const Profile& profile, const BundlePlan& plan, const ClusterExport& cluster,
                      const std::vector<const discover::NodeFacts*>& picked,
                      const OtherTenants& tenants, Findings& findings);

/// collisions.cc: what a sync of `plan` would collide with on a cluster that runs things
/// already (brownfield): a second OperatorGroup, another Subscription of a package, an
/// operator installed already, a second singleton CR, node policies over the same PFs, a switch
/// of the RDMA mode under other NADs, MachineConfigs that reboot a pool or repeat its kernel
/// arguments, nodes other teams use, the CPU vendor; and one note naming the checks the export
/// could not answer.
void CheckCollisions(const Profile& profile, const BundlePlan& plan, const ClusterExport& cluster,
                     const std::vector<const discover::NodeFacts*>& picked,
                     const OtherTenants& tenants, Findings& findings);

}  // namespace hkim::cluster_check
