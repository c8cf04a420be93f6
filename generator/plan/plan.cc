// Plan stage: Profile -> BundlePlan. Composes the per-family plan stages (plan_<family>.cc,
// declared in plan/builder.h), then sorts the objects into output order. A new family of objects
// gets its own stage file and one line here.

#include "plan/plan.h"

#include <algorithm>
#include <tuple>

#include "plan/argocd_bootstrap.h"
#include "plan/builder.h"
#include "plan/closure.h"
#include "plan/health_consumers.h"
#include "plan/layers.h"
#include "plan/mirror_sets.h"
#include "plan/operators/operators.h"
#include "plan/readme.h"

namespace hkim {

nlohmann::json TolerationsContext(const std::vector<Toleration>& tolerations) {
  nlohmann::json list = nlohmann::json::array();
  for (const Toleration& t : tolerations) {
    nlohmann::json item = {{"operator", t.operator_name}};
    item["has_key"] = !t.key.empty();
    item["key"] = t.key;
    item["has_value"] = !t.value.empty();
    item["value"] = t.value;
    item["has_effect"] = !t.effect.empty();
    item["effect"] = t.effect;
    list.push_back(item);
  }
  return {{"has_tolerations", !list.empty()}, {"tolerations", list}};
}

BundlePlan PlanBundle(const Profile& profile,
                      const std::function<void(BundlePlan&)>& namespace_planned) {
  plan::PlanBuilder b(profile);
  b.plan().bundle_name = profile.cluster_name;
  // Operators first (waves 0-2): install objects, their CRs, node policies.
  if (profile.IsOpenShift())
    PlanOpenShiftOperators(profile, b.plan());
  else
    PlanOkeOperators(profile, b.plan());
  PlanImageMirrorSets(profile, b.plan());
  plan::PlanNodeConfig(b);
  plan::PlanClusterSecurity(b);
  plan::PlanNamespaces(b);
  plan::PlanClusterNetwork(b);
  plan::PlanScheduling(b);
  for (const std::string& ns : profile.namespaces) {
    plan::PlanNamespaceSecurity(b, ns);
    plan::PlanNamespaceNetwork(b, ns);
    plan::PlanNamespaceScheduling(b, ns);
    plan::PlanWorkload(b, ns);  // and the fabric-health objects that share its pod spec
    if (namespace_planned) namespace_planned(b.plan());
  }
  PlanFabricHealthCluster(profile, plan::kHealthWaves, b.plan());
  PlanFabricConsumers(profile, kWaveClusterAccess, b.plan());

  std::vector<PlannedObject>& objects = b.plan().objects;
  std::stable_sort(objects.begin(), objects.end(), [](const PlannedObject& a, const PlannedObject& c) {
    return std::tie(a.sync_wave, a.kind, a.namespace_name, a.name) <
           std::tie(c.sync_wave, c.kind, c.namespace_name, c.name);
  });
  PlanLayers(profile, b.plan());
  PlanArgoCdBootstrap(profile, b.plan());
  b.plan().preconditions = BundlePreconditions(profile);
  DropUnusedPoolPreconditions(profile, b.plan());
  AddImagePreconditions(profile, b.plan());
  PlanReadme(profile, b.plan());
  return std::move(b.plan());  // not a copy: a large profile's plan (contexts) is tens of MB
}

}  // namespace hkim
