#pragma once

// Closure (issue 27): after planning, every need of every planned object (requirements.h) must
// be met by an object of the bundle in an earlier sync wave (the same wave for all but CRDs), by
// the platform (data in closure.cc, each fact with its source), or by a precondition, declared in
// the profile or implied by its settings (an operator installed by other means: `preinstalled`,
// `shared`, or no `operators` section; an existing MachineConfigPool). Every taint the workload
// tolerates must be tolerated by every node agent of the bundle. Anything else is an error
// `closure.<kind>` at the profile value that made the need, with a fix.

#include <string>
#include <vector>

#include "load/load.h"
#include "model/model.h"
#include "plan/plan.h"
#include "support/diagnostics.h"
#include "support/rule_info.h"

namespace hkim {

/// The profile's declared preconditions, then the ones its settings imply (each once: a
/// declared one of the same kind and name wins). Pure; the plan stores them in BundlePlan.
std::vector<Precondition> BundlePreconditions(const Profile& profile);

/// After planning: one implied "image" precondition per registry the plan's images come from
/// (each with one image to pull as its check), or, under images.mirror, the mirror alone, so
/// that an image outside it stays unmet (closure.image). Images a declared precondition covers
/// get none.
void AddImagePreconditions(const Profile& profile, BundlePlan& plan);

/// What an operator installed outside this bundle (`what` of an "operator" precondition: the
/// profile's key, e.g. gpu_operator) is taken to provide, from the profile's description of it.
std::vector<Capability> OperatorScope(const Profile& profile, const std::string& key);

/// What the platform itself provides (Kubernetes core kinds, OpenShift's Multus, ...).
std::vector<Capability> PlatformProvides(const Profile& profile);

/// Reports every need of `plan` that nothing meets (see the top of this file) to `sink`,
/// located in `loaded`. Returns the number of errors reported.
int CheckClosure(const Profile& profile, const LoadedProfile& loaded, const BundlePlan& plan,
                 DiagnosticSink& sink);

/// One bundle of a set, for the check across profiles of one cluster.
struct ClosureSide {
  const Profile* profile = nullptr;
  const LoadedProfile* loaded = nullptr;
  const BundlePlan* plan = nullptr;
};

/// Closure across a set (fleet/cluster_sharing.h): `sharer` has operators.<key>.install: shared,
/// so alone its needs that only that operator meets are trusted (an implied precondition); here
/// each is checked against the bundle of `owner`, the profile of the same cluster that installs
/// the operator (its objects in any wave, its platform and preconditions), and every taint the
/// sharer's workload tolerates against the owner's node agents of that operator. Errors are
/// `closure.<kind>` at the sharer's profile value, naming the owner's file. `skip_resources`
/// leaves resource needs to lint.shared-device-ids when that already reported them. Returns
/// the number of errors.
int CheckSharedClosure(const ClosureSide& sharer, const ClosureSide& owner, const std::string& key,
                       bool skip_resources, DiagnosticSink& sink);

/// The rule ids CheckClosure reports, for `hkimgen lint --list-rules` (rule_ids.cc).
const std::vector<RuleInfo>& ClosureRules();

}  // namespace hkim
