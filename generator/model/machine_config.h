#pragma once

// What the OpenShift MachineConfigs of a profile change on its nodes' boot, for the plan stage
// (which renders them) and lint (which says which nodes they reboot).

#include <string>
#include <vector>

#include "model/model.h"

namespace hkim {

/// The IOMMU pass-through kernel arguments the pool lacks: iommu=pt, and on Intel hosts
/// intel_iommu=on (off by default there). The kernel enables the AMD IOMMU by default and
/// documents no `on` value for amd_iommu= (Documentation/admin-guide/kernel-parameters.txt), so
/// AMD hosts get iommu=pt alone. Arguments in iommu.already_set are the cluster's already; empty
/// unless iommu.policy is passthrough.
std::vector<std::string> IommuArgumentsToAdd(const Profile& profile);

/// Whether the bundle renders a MachineConfig for iommu.machine_config_role (the IOMMU
/// arguments, or CRI-O's memlock ulimits): every node of that pool then drains and reboots.
/// False off OpenShift.
bool RendersMachineConfig(const Profile& profile);

}  // namespace hkim
