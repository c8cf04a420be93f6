#pragma once

// Plan stage for a fleet (several profiles rendered into one folder): the Argo CD objects that
// bring every bundle of the fleet up from one Application, planned like a bundle of their own and
// written to the fleet folder's `_fleet/` (a name no cluster can take: cluster names are DNS
// labels). docs/CONTRACTS.md, "Fleet".
//
//   _fleet/appprojects/<project>.yaml  one AppProject per project the fleet's Applications use:
//       <fleet>                  the per-cluster parent Applications: only Applications, only in
//                                Argo CD's namespace on Argo CD's own cluster
//       <cluster>-platform       the cluster's platform layer: its repository, its destination and
//                                namespaces, exactly the kinds the layer holds (cluster-scoped
//                                ones listed one by one)
//       <cluster>-workload       the cluster's workload layer: the same, no cluster-scoped kind
//       <cluster>-charts         (OKE managed operators) the operator chart Applications: their
//                                chart repositories and namespaces; any kind, since a chart's
//                                contents are the chart's
//   _fleet/applicationset.yaml   list generator, one element per profile; each generated
//                                Application is the bundle's own parent application.yaml
//                                (source <fleet path>/<cluster>/apps)
//   _fleet/kustomization.yaml    lists the above
//   _fleet/application.yaml      the one Application to create by hand (not in the kustomization)

#include <string>
#include <vector>

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// The folder of the fleet's own files inside the fleet folder.
inline constexpr char kFleetFolder[] = "_fleet";

/// Fleet-wide choices (not in any profile).
struct FleetSettings {
  std::string name = "hkimgen-fleet";       ///< the ApplicationSet, its project and Application
  std::string argocd_namespace = "argocd";  ///< namespace of the central Argo CD
  /// The fleet folder's path inside the git repository; bundles are at "<repo_path>/<cluster>".
  std::string repo_path;
};

/// What a fleet changes in each profile before its bundle is planned: gitops.path becomes
/// "<repo_path>/<cluster>" (the bundle's folder in the fleet), the parent Application's project
/// the fleet's, the layers' and charts' projects "<cluster>-platform", "<cluster>-workload" and
/// "<cluster>-charts" (the AppProjects `_fleet/` writes), and gitops.argocd_namespace the central
/// Argo CD's, so that the bundle's application.yaml is exactly what the ApplicationSet generates
/// (with it the controller's service account, when the profile left it at its default).
void AdjustForFleet(const FleetSettings& settings, Profile& profile);

/// One profile of the fleet with the plan of its bundle (which objects, kinds and namespaces).
struct FleetMemberPlan {
  const Profile* profile = nullptr;
  const BundlePlan* plan = nullptr;
};

/// Plans `_fleet/` for `members` (sorted by cluster name, adjusted by AdjustForFleet). The
/// members share one repository and revision (the fleet stage checks that before planning); the
/// first member's are used. Pure function: no I/O; the members' projects are planned on `jobs`
/// threads (the plan is the same for any number).
BundlePlan PlanFleet(const std::vector<FleetMemberPlan>& members, const FleetSettings& settings,
                     unsigned jobs = 1);

}  // namespace hkim
