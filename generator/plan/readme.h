#pragma once

// Plan stage, the bundle's README.md (readme.cc).

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// Fills `plan.readme` from the finished plan (objects, bootstrap, preconditions): call last.
void PlanReadme(const Profile& profile, BundlePlan& plan);

}  // namespace hkim
