#pragma once

// The images every pod of the workload's pod spec (templates/common/pod-spec.mustache) pulls, as
// needs of the object that runs such pods: the StatefulSet and the health CronJob both use that
// pod spec, so each pulls what the other does (the plan's image
// needs are what the rendered bundle pulls, object by object; tests/generator/images).

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// Needs (CapabilityKind::kImage) of `object` for the workload image (containers[0]) and the
/// hkim-wrapper image (initContainers[0]), at the profile values that name them; the fields are
/// those of a pod template under spec.template (spec.jobTemplate.spec.template for a CronJob).
void NeedPodSpecImages(const Profile& profile, PlannedObject& object);

}  // namespace hkim
