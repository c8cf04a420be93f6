#pragma once

// Cross-profile stage: several profiles that sync into one Kubernetes cluster (e.g. an
// H100 and an A100 node pool of one OKE cluster). Each profile is checked alone by
// lint; this stage plans every profile of a set and reports what only the set shows:
//   lint.shared-cluster-object  two profiles of one cluster emit the same object (same API
//                               group, kind, namespace and name) or install the same operator
//                               chart: their Argo CD Applications overwrite each other on every
//                               sync, and deleting one prunes what the other needs;
//   lint.shared-device-ids      the one NicClusterPolicy of the cluster (rendered by the profile
//                               that owns the platform) does not advertise the NICs of another
//                               profile that requests the same resource: its pods stay Pending;
//   lint.shared-subnet-overlap  (warning) two profiles' nv-ipam pools overlap: nv-ipam allocates
//                               each pool on its own, so two VFs can get one address;
//   lint.shared-operator-settings  (warning) a profile with `install: shared` describes the
//                               operator (version, driver, GPUDirect) otherwise than its owner.
//   closure.<kind>              (plan/closure.h, CheckSharedClosure) a need the profile leaves
//                               to an operator it shares that the owner's bundle does not
//                               provide, or a taint its workload tolerates that the owner's
//                               node agents of that operator do not;
//   lint.shared-destination-platform  two profiles of different platform families on one
//                               Argo CD destination: never one cluster, so one names the wrong
//                               destination (checked before the others). Profiles checked
//                               together outside a fleet that both name Argo CD's own cluster
//                               are taken as two clusters with an Argo CD each: a note.
// "One cluster" = the same Argo CD destination (gitops.destination_name when set, else
// gitops.destination_server) and the same platform family (an OpenShift and an OKE profile are
// never one cluster). Used by `hkimgen validate` and `hkimgen lint` when given several
// profiles, and by the fleet render (fleet/fleet.cc), which then writes nothing.

#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "model/model.h"
#include "plan/plan.h"
#include "support/rule_info.h"

namespace hkim {

/// One checked profile of a set: its merged document (for locations) and its typed model.
struct ClusterMember {
  const LoadedProfile* loaded = nullptr;
  const Profile* profile = nullptr;
  /// The bundle planned for it already (validate's closure check), or null: planned here.
  const BundlePlan* plan = nullptr;
};

/// The cluster a profile syncs into, as this stage compares them: platform family + Argo CD
/// destination. Two profiles with equal keys are taken to be one cluster.
std::string ClusterKey(const Profile& profile);

/// Who syncs the profiles checked together: a fleet render puts all of them under one central
/// Argo CD; profiles validated together may each belong to a cluster with an Argo CD of its own,
/// where each names its own cluster https://kubernetes.default.svc.
enum class ArgoCdOfSet { kOneCentral, kPerhapsOnePerCluster };

/// Plans every member that shares its cluster with another (PlanBundle) and reports, at the
/// later profile of each conflicting pair (naming the earlier one's file:line:col), every object
/// two profiles of one cluster both emit, grouped by the profile value that produced the name,
/// and the NicClusterPolicy device IDs the owning profile lacks. Members of other clusters are
/// never compared (nor planned). Returns, per member, whether an error was reported against it
/// (for per-profile "valid" results).
std::vector<bool> CheckClusterSharing(const std::vector<ClusterMember>& members,
                                      ArgoCdOfSet argocd, DiagnosticSink& sink);

/// The rule ids this stage reports, for `hkimgen lint --list-rules` (commands/rule_ids.cc).
const std::vector<RuleInfo>& ClusterSharingRules();

}  // namespace hkim
