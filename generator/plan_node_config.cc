// Plan stage, node configuration: the OpenShift MachineConfigs (IOMMU pass-through kernel
// arguments, CRI-O memlock ulimits) that change how nodes boot.

#include "plan_builder.h"

namespace hkim::plan {

using nlohmann::json;

void PlanNodeConfig(PlanBuilder& b) {
  const Profile& p = b.profile();
  if (!p.IsOpenShift()) return;
  const std::string& role = p.iommu.machine_config_role;
  if (p.iommu.policy == IommuPolicy::kPassthrough) {
    PlannedObject& mc =
        b.Add("openshift/machineconfig-iommu.yaml.mustache", "machineconfiguration.openshift.io/v1",
              "MachineConfig", "99-" + role + "-iommu-passthrough", "", kWaveNodePolicies,
              false);
    mc.context["role"] = role;
    mc.context["kernel_arguments"] = json::array(
        {json{{"value",
               p.node_shape.cpu_vendor == CpuVendor::kAmd ? "amd_iommu=on" : "intel_iommu=on"}},
         json{{"value", "iommu=pt"}}});
  }
  if (b.Rdma() && p.security.memlock_strategy == MemlockStrategy::kCrioUlimits) {
    PlannedObject& mc = b.Add("openshift/machineconfig-crio-memlock.yaml.mustache",
                              "machineconfiguration.openshift.io/v1", "MachineConfig",
                              "99-" + role + "-crio-memlock", "", kWaveNodePolicies, false);
    mc.context["role"] = role;
  }
}

}  // namespace hkim::plan
