#pragma once

// How a message names a planned object: "Kind namespace/name" (closure, fleet).

#include <string>

#include "plan/plan.h"

namespace hkim {

/// "DaemonSet nvidia-network-operator/mofed", "MachineConfig 99-worker-iommu".
std::string DescribeObject(const PlannedObject& o);

}  // namespace hkim
