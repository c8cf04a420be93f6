#pragma once

// Plan stage: the OpenShift mirror sets images.mirror needs (mirror_sets.cc).

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// ImageDigestMirrorSet + ImageTagMirrorSet `<cluster>-operator-mirrors` (wave 0, before the
/// Subscriptions' installs pull) when the profile sets images.mirror on OpenShift and installs
/// OLM operators; nothing otherwise.
void PlanImageMirrorSets(const Profile& profile, BundlePlan& plan);

}  // namespace hkim
