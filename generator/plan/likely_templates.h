#pragma once

// A hint for the render's set-up thread (pipeline/prepare.h): the templates nearly every bundle
// renders, so that it can parse them while the profile is validated and planned, before the plan
// names what this bundle renders (which then takes over). Only speed depends on it: a template
// named here and not planned is parsed for nothing, one planned and not named here is parsed
// when the plan names it. tests/generator/plan/likely_templates_test.cc holds it to the shipped
// profiles' plans.

#include <string>
#include <vector>

namespace hkim {

/// The templates of the workload (StatefulSet, headless Service, ServiceAccount, NADs, NCCL
/// environment), of the fabric health check and its fence, and of the bundle's own files
/// (kustomization, Applications, README), in the order a bundle renders them.
const std::vector<std::string>& LikelyTemplates();

}  // namespace hkim
