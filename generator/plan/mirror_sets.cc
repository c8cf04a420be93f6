// Plan stage, images.mirror on OpenShift: one ImageDigestMirrorSet and one ImageTagMirrorSet
// for the registries the bundle's OLM operators pull their own images from
// (model/image_mirror.h's OperatorImageRegistries); the references the bundle itself holds are
// rewritten by the model instead. Cluster-scoped, named after the cluster so that profiles of
// other clusters never take them over.

#include "plan/mirror_sets.h"

#include <nlohmann/json.hpp>

namespace hkim {

void PlanImageMirrorSets(const Profile& profile, BundlePlan& plan) {
  if (!profile.IsOpenShift() || !profile.images.enabled() || !profile.operators) return;
  const std::vector<std::string> registries = OperatorImageRegistries(*profile.operators);
  if (registries.empty()) return;
  nlohmann::json mirrors = nlohmann::json::array();
  for (const std::string& registry : registries) {
    mirrors.push_back({{"source", registry}, {"mirror", profile.images.mirror}});
  }
  const std::string name = profile.cluster_name + "-operator-mirrors";
  for (const auto& [kind, file] :
       {std::pair<const char*, const char*>{"ImageDigestMirrorSet", "imagedigestmirrorset"},
        std::pair<const char*, const char*>{"ImageTagMirrorSet", "imagetagmirrorset"}}) {
    PlannedObject& set = AddPlannedObject(
        plan, profile, std::string("mirror/") + file + ".yaml.mustache", "config.openshift.io/v1",
        kind, name, "", kWaveOperators, false, /*keep_on_removal=*/true);
    set.context["mirrors"] = mirrors;
  }
}

}  // namespace hkim
