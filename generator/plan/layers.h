#pragma once

// Plan stage, bundle layout: the objects' two layers as directories (platform/, workload/), a
// kustomization per layer and one at the root, one Argo CD Application per layer (apps/), and
// the parent Application (application.yaml) an admin applies by hand, which syncs apps/.

#include <string_view>

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// Fills `plan.kustomization` (root: the layer directories), `plan.application` (the parent
/// Application) and `plan.layer_files` (per layer: its kustomization.yaml and its Application)
/// from the objects already planned. Call after every object is added and sorted.
void PlanLayers(const Profile& profile, BundlePlan& plan);

/// The URL of the cluster Argo CD itself runs in: where the parent Application (and a fleet's
/// ApplicationSet) put their Applications, which must live in Argo CD's own namespace.
inline constexpr char kArgoCdOwnCluster[] = "https://kubernetes.default.svc";

/// The folder the parent Application syncs into Argo CD's namespace on Argo CD's own cluster:
/// the layer Applications, and every other Application of the bundle (the OKE operator charts),
/// which must be created where Argo CD runs even when the layers deploy to a remote cluster.
inline constexpr char kAppsLayer[] = "apps";

/// Which gitops.self_sync value an Application needs to sync itself: kNamespaces for the
/// workload layer, kPlatform for the platform layer and charts that touch no node, kNodes for
/// what can drain, reboot or roll a driver (plan/disruption.h).
enum class SyncScope { kNamespaces, kPlatform, kNodes };

/// The scope of the layer `layer` (kPlatformLayer, kNodesLayer, kWorkloadLayer).
SyncScope ScopeOfLayer(const std::string& layer);
/// The scope of an Application of its own (an OKE chart) made from `template_name`.
SyncScope ScopeOf(std::string_view kind, std::string_view template_name);
/// Whether an Application of `scope` syncs itself under the profile's gitops.self_sync.
bool SyncsItself(const Profile& p, SyncScope scope);
/// Whether the parent Application (application.yaml) syncs itself: only when everything does
/// (gitops.self_sync: everything), so that a changed sync policy of a child is pressed too.
bool ParentSyncsItself(const Profile& p);
/// Sets `self_sync` (whether `syncPolicy.automated` is written) and `prune` in an Application
/// template's context.
void SyncPolicyContext(const Profile& p, SyncScope scope, nlohmann::json& context);

/// Sets the keys every template that writes an Application `destination:` reads for the
/// profile's target cluster: `has_destination_name` and `destination_name` (gitops.destination_name,
/// when set) else `server` (gitops.destination_server).
void DestinationContext(const Profile& profile, nlohmann::json& context);

}  // namespace hkim
