#pragma once

// Plan stage, sync order: where Argo CD syncs each object and whether one object is
// there before another. Argo CD orders sync waves only inside one Application; between the
// bundle's Applications (the layers, the OKE charts) the only order is the parent's (app of
// apps) sync waves of the Application objects, and that order holds only because the bundle
// declares its precondition that Argo CD has a health check for argoproj.io/Application (without
// it a child counts as healthy as soon as it exists; docs/sync-and-disruption.md).

#include <string>

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// Where an object syncs: the Application that applies it, its wave there, and the wave at which
/// the parent Application syncs that Application.
struct SyncPlacement {
  std::string application;
  int wave = 0;
  int application_wave = 0;
  /// What an OKE chart's Application installs (its CRDs, its operator): it is there only once
  /// that Application is synced and healthy, whatever the wave of the object inside it.
  bool through_application = false;
};

/// Where `o` of `plan` syncs: a layer object in `<cluster>-<layer>` (that Application's wave
/// from plan.layer_files, so call after PlanLayers); a chart Application of apps/ in its own
/// Application, which the parent syncs at the chart's wave.
SyncPlacement PlacementOf(const Profile& profile, const BundlePlan& plan, const PlannedObject& o);

/// Whether what `provider` brings is there when `consumer` syncs. Inside one Application: an
/// earlier wave, or the same wave when `same_wave_suffices` (every need but a CRD, which must be
/// established before its objects are applied). Across Applications: the provider's Application
/// syncs in an earlier wave of the parent (with the Application health check); same-wave
/// siblings sync side by side, in no order.
bool SyncsInTime(const SyncPlacement& provider, const SyncPlacement& consumer, bool same_wave_suffices);

/// For messages: "wave 1 of Application oke-h100-nodes (wave 2 of oke-h100)"; for a chart,
/// "Application oke-h100-kueue (wave 0 of oke-h100)".
std::string DescribePlacement(const Profile& profile, const SyncPlacement& at);

}  // namespace hkim
