#pragma once

// Plan stage, the in-pod fabric check (profile `fabric_health.gate`; docs/health.md, "The
// in-pod check"): the workload's own pods prove the fabric before the command starts. Their
// command becomes `hkim-wrapper -- hkim-health pod -- <command>`, their env carries the check's
// settings, and a readiness probe (`hkim-health ready`) makes the StatefulSet Ready only once the
// check passed and the command runs (docs/CONTRACTS.md, "Fabric health"). Nothing else is
// planned for it: no Job, no Service, no capacity beyond the StatefulSet's.
//
// The pod template also carries hkimgen.io/fabric-checksum: a hash of the planned objects the
// fabric check depends on, found through the plan (the NADs the pods attach, the IP pools those
// NADs name, the objects that provide the RDMA netns mode the NADs need and the devices they are
// backed by) plus the check's settings, so that a fabric change replaces the pods and the check
// runs again.

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"
#include "plan/plan.h"

namespace hkim::plan {

/// The pod-template annotation that hashes what the fabric check depends on.
inline constexpr const char* kFabricChecksumAnnotation = "hkimgen.io/fabric-checksum";

/// The pod-spec keys (common/pod-spec.mustache) of the in-pod check, off: no readiness probe, no
/// check env, the default termination message policy. The StatefulSet's context starts from
/// these, and so does every pod spec copied from it (the health CronJob's).
nlohmann::json InPodCheckOff();

/// With fabric_health.gate.mode warn or fail, turns the check on in the StatefulSet context
/// `sts` (made by StatefulSetContext, its `command` the plain `hkim-wrapper -- <command>`): the
/// command through `hkim-health pod --`, the check's env (`check_env`), the readiness probe and
/// FallbackToLogsOnError. With mode off, leaves `sts` as it is.
void PlanInPodFabricCheck(const Profile& profile, nlohmann::json& sts);

/// Digests of planned objects (template name, identity and template context), each taken once:
/// RenderAhead may release the contexts of cluster-scoped objects after the first namespace
/// (plan.h, PlanBundle's `namespace_planned`); every namespace depends on the same ones (the
/// rails are the profile's), so the first namespace's digests serve the later ones.
class PlannedDigests {
 public:
  /// The object's digest; throws std::logic_error when its context was released before it was
  /// taken (a dependency that no earlier namespace had: a planning-order bug).
  const std::string& Of(const PlannedObject& object);

 private:
  std::map<ObjectId, std::string> digests_;
};

/// The value of kFabricChecksumAnnotation for the StatefulSet context `sts` in namespace `ns`
/// (after PlanInPodFabricCheck): one `part:8-hex` digest per kind of dependency present, in a
/// fixed order, "nad" (the NADs of the pods' networks annotation), "ip-pool" (the nv-ipam IPPools
/// those NADs' configs name), "rdma-mode" (the objects providing the RDMA netns mode the NADs
/// need), "devices" (the objects providing the NADs' resource, the VFs), "check" (the check's
/// env). diff names the parts that changed (diff/sync_effects.cc).
std::string FabricChecksum(const BundlePlan& plan, const std::string& ns,
                           const nlohmann::json& sts, PlannedDigests& digests);

}  // namespace hkim::plan
