#pragma once

// Closure: after planning, every need of every planned object (requirements.h) must
// be met by an object of the bundle that syncs before it (plan/sync_order.h: inside one Argo CD
// Application an earlier sync wave, the same wave for all but CRDs; from another Application
// only when the parent syncs that Application in an earlier wave), by the platform
// (preconditions.h, each fact with its source), or by a precondition, declared in the profile or
// implied by its settings (an operator installed by other means: `preinstalled`, `shared`, or no
// `operators` section; an existing MachineConfigPool). Every taint the workload tolerates must be
// tolerated by every node agent of the bundle. Anything else is an error `closure.<kind>` at the
// profile value that made the need, naming the Application of both sides, with a fix.

#include <string>
#include <vector>

#include "load/load.h"
#include "model/model.h"
#include "plan/plan.h"
#include "plan/preconditions.h"
#include "support/diagnostics.h"
#include "support/rule_info.h"

namespace hkim {

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
/// the operator (its objects in any wave: the two bundles are two parent Applications, which
/// Argo CD syncs side by side, so no wave of one orders the other; the sharer's implied
/// precondition for the operator says to sync the owner first; its platform and
/// preconditions), and every taint the
/// sharer's workload tolerates against the owner's node agents of that operator. Errors are
/// `closure.<kind>` at the sharer's profile value, naming the owner's file. `skip_resources`
/// leaves resource needs to lint.shared-device-ids when that already reported them. Returns
/// the number of errors.
int CheckSharedClosure(const ClosureSide& sharer, const ClosureSide& owner, const std::string& key,
                       bool skip_resources, DiagnosticSink& sink);

/// The rule ids CheckClosure reports, for `hkimgen lint --list-rules` (rule_ids.cc).
const std::vector<RuleInfo>& ClosureRules();

}  // namespace hkim
