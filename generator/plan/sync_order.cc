// Plan stage, sync order (plan/sync_order.h).

#include "plan/sync_order.h"

#include "plan/layers.h"

namespace hkim {

SyncPlacement PlacementOf(const Profile& p, const BundlePlan& plan, const PlannedObject& o) {
  SyncPlacement at;
  if (o.layer == kAppsLayer) {
    // A chart's Application object: the parent applies it; what it provides comes from its sync.
    at.application = o.name;
    at.application_wave = o.sync_wave;
    at.through_application = true;
    return at;
  }
  at.application = p.cluster_name + "-" + o.layer;
  at.wave = o.sync_wave;
  for (const PlannedObject& f : plan.layer_files)
    if (f.kind == "Application" && f.name == at.application) at.application_wave = f.sync_wave;
  return at;
}

bool SyncsInTime(const SyncPlacement& provider, const SyncPlacement& consumer, bool same_wave_suffices) {
  if (provider.application == consumer.application) {
    // A chart orders its own contents (Helm and Argo CD apply CRDs first).
    if (provider.through_application) return true;
    return same_wave_suffices ? provider.wave <= consumer.wave : provider.wave < consumer.wave;
  }
  return provider.application_wave < consumer.application_wave;
}

std::string DescribePlacement(const Profile& p, const SyncPlacement& at) {
  const std::string parent = " (wave " + std::to_string(at.application_wave) + " of " + p.cluster_name + ")";
  if (at.through_application) return "Application " + at.application + parent;
  return "wave " + std::to_string(at.wave) + " of Application " + at.application + parent;
}

}  // namespace hkim
