#pragma once

// discover, beside stage 3: what of the platform a cluster runs already, so that the
// drafted profile adopts it instead of installing a second one: operators (their CSVs or CRs,
// with versions), the SR-IOV node policies that advertise the rails' resources, the RDMA netns
// mode, and kernel arguments the GPU nodes' MachineConfig pool boots with. Each fact keeps the
// object it came from, for the draft's comments.

#include <map>
#include <string>
#include <vector>

#include "discover/export_load.h"
#include "discover/infer.h"

namespace hkim::discover {

/// Reads the export for `profile`'s GPU node group (OpenShift kinds only where the platform is
/// OpenShift).
Adoption InferAdoption(const ExportSet& exports, const DiscoveredProfile& profile);

}  // namespace hkim::discover
