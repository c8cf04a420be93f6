#pragma once

// The cluster a profile describes, the day after its bundle synced: the fixture builder of the
// cluster-check tests. It renders the profile, applies the bundle as Argo CD would (each object
// with the tracking annotation of the Application that syncs it; the objects a chart Application
// creates; the CSVs OLM creates for the bundle's Subscriptions), adds what the profile says the
// cluster runs already (preinstalled operators, an existing pool, kernel arguments set), and the
// nodes the profile picks, labelled, tainted and with VFs as the bundle's policies make them. The
// result is a `kubectl get -A -o json` List, as `validate --cluster` reads it. Tests then change
// one thing (a drift) and check that `validate --cluster` names it.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/profile_check.h"

namespace hkim::cluster_check_test {

/// What the simulated cluster holds besides the bundle.
struct SimulationOptions {
  /// GPU nodes the profile picks; 0: as many as the workload's pods and the health check's
  /// rotation need.
  int nodes = 0;
};

/// The export of the cluster `checked` (a profile with its plan) describes after its bundle
/// synced. Fails the running test (and returns an empty List) where the bundle does not render.
nlohmann::json SimulateSyncedCluster(const CheckedProfile& checked,
                                     const SimulationOptions& options = {});

/// The Argo CD tracking annotation's Application of an exported object ("" for none).
std::string TrackingApplication(const nlohmann::json& object);

}  // namespace hkim::cluster_check_test
