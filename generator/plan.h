#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model.h"

namespace hkim {

/// One Kubernetes object the bundle will contain, before rendering.
struct PlannedObject {
  std::string template_name;  ///< path under templates/, e.g. "openshift/scc.yaml.mustache"
  std::string api_version;    ///< e.g. "security.openshift.io/v1"
  std::string kind;           ///< e.g. "SecurityContextConstraints"
  std::string name;
  std::string namespace_name;  ///< empty for cluster-scoped objects
  int sync_wave = 0;           ///< Argo CD sync wave (dependency order)
  std::string file_name;       ///< file in `-o DIR`, e.g. "20-scc-nccl-rdma.yaml"
  nlohmann::json context;      ///< the data the template is rendered with
};

/// Every object of one bundle, in output order (by sync wave, then kind, then namespace, then
/// name), plus the bundle-level files that are not API objects of the workload (kustomization.yaml
/// and the Argo CD Application that points at the bundle).
struct BundlePlan {
  std::string bundle_name;  ///< profile's cluster name; names the Argo CD Application
  std::vector<PlannedObject> objects;
  PlannedObject kustomization;  ///< rendered from a template too; lists objects' file names
  PlannedObject application;    ///< Argo CD Application; not listed in kustomization (no self-sync)
};

/// Adds one object to `plan`: its file name (<wave*10>-<kind>-[<namespace>-]<name>.yaml) and the
/// metadata every template prints (name, namespace, sync wave, part-of, SkipDryRunOnMissingResource
/// when `skip_dry_run`). Used by the per-family plan stages (plan_health.cc).
PlannedObject& AddPlannedObject(BundlePlan& plan, const Profile& profile,
                                const std::string& template_name, const std::string& api_version,
                                const std::string& kind, const std::string& name,
                                const std::string& namespace_name, int wave, bool skip_dry_run);

/// Decides which objects a profile needs and fills their template contexts. Pure function of
/// the profile: no I/O, no clock, so output is deterministic.
BundlePlan PlanBundle(const Profile& profile);

}  // namespace hkim
