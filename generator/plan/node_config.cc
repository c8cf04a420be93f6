// Plan stage, node configuration: the OpenShift MachineConfigs (IOMMU pass-through kernel
// arguments, CRI-O memlock ulimits) that change how nodes boot, and the MachineConfigPool of a
// custom role (iommu.machine_config_pool: create).

#include "plan/builder.h"

#include <algorithm>

#include "model/machine_config.h"

namespace hkim::plan {

using nlohmann::json;

namespace {

// 99-<role>-<cluster>-<purpose>: the bundle's own object, never a hand-made
// 99-<role>-<purpose> that a sync would take over. Removing it would reboot
// the pool back, so it carries Prune=false,Delete=false (the Add calls below).
std::string MachineConfigName(const Profile& p, const std::string& purpose) {
  return "99-" + p.iommu.machine_config_role + "-" + p.cluster_name + "-" + purpose;
}

void NeedPool(PlannedObject& mc, const Profile& p) {
  mc.source_pointer = p.iommu.pointer;
  Needs(mc, CapabilityKind::kMachineConfigPool, p.iommu.machine_config_role,
        p.iommu.pointer + "/machine_config_role", "the pool of its role");
}

// The arguments the IOMMU MachineConfig adds, as its template lists them.
json IommuKernelArguments(const Profile& p) {
  json out = json::array();
  for (const std::string& argument : IommuArgumentsToAdd(p)) {
    out.push_back(json{{"value", argument}});
  }
  return out;
}

}  // namespace

void PlanNodeConfig(PlanBuilder& b) {
  const Profile& p = b.profile();
  if (!p.IsOpenShift()) return;
  const std::string& role = p.iommu.machine_config_role;
  const json iommu_arguments = IommuKernelArguments(p);
  const bool renders_iommu = !iommu_arguments.empty();
  const bool renders_machine_config = RendersMachineConfig(p);
  if (renders_machine_config && role != "worker" && role != "master" && p.iommu.create_pool) {
    // A custom role needs its pool, or its MachineConfigs apply to no node. One wave before the
    // MachineConfigs and node policies that select its nodes.
    PlannedObject& pool = b.Add("openshift/machineconfigpool.yaml.mustache",
                                "machineconfiguration.openshift.io/v1", "MachineConfigPool",
                                p.cluster_name + "-" + role, "", kWaveOperatorConfig, false,
                                /*keep_on_removal=*/true);
    pool.context["role"] = role;
    pool.context["node_role_label"] = "node-role.kubernetes.io/" + role;
    Provides(pool, CapabilityKind::kMachineConfigPool, role);
    Needs(pool, CapabilityKind::kNodeLabel, "node-role.kubernetes.io/" + role,
          p.iommu.pointer + "/machine_config_role", "its nodeSelector");
  }
  if (renders_iommu) {
    PlannedObject& mc =
        b.Add("openshift/machineconfig-iommu.yaml.mustache", "machineconfiguration.openshift.io/v1",
              "MachineConfig", MachineConfigName(p, "iommu-passthrough"), "",
              kWaveNodePolicies, false, true);
    mc.context["role"] = role;
    NeedPool(mc, p);
    mc.context["kernel_arguments"] = iommu_arguments;
  }
  if (b.Rdma() && p.security.memlock_strategy == MemlockStrategy::kCrioUlimits) {
    PlannedObject& mc = b.Add("openshift/machineconfig-crio-memlock.yaml.mustache",
                              "machineconfiguration.openshift.io/v1", "MachineConfig",
                              MachineConfigName(p, "crio-memlock"), "", kWaveNodePolicies, false,
                              true);
    mc.context["role"] = role;
    NeedPool(mc, p);
  }
}

}  // namespace hkim::plan
