// Plan stage, node configuration: the OpenShift MachineConfigs (IOMMU pass-through kernel
// arguments, CRI-O memlock ulimits) that change how nodes boot, and the MachineConfigPool of a
// custom role (iommu.machine_config_pool: create).

#include "plan/builder.h"

#include <algorithm>

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

/// The IOMMU pass-through kernel arguments the pool lacks: iommu=pt, and on Intel hosts
/// intel_iommu=on (off by default there). The kernel enables the AMD IOMMU by default and
/// documents no `on` value for amd_iommu= (Documentation/admin-guide/kernel-parameters.txt), so
/// AMD hosts get iommu=pt alone. Arguments in iommu.already_set are the cluster's already.
json IommuKernelArguments(const Profile& p) {
  std::vector<std::string> wanted;
  if (p.node_shape.cpu_vendor != CpuVendor::kAmd) wanted.push_back("intel_iommu=on");
  wanted.push_back("iommu=pt");
  json out = json::array();
  for (const std::string& argument : wanted) {
    const auto& have = p.iommu.already_set;
    if (std::find(have.begin(), have.end(), argument) == have.end())
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
  const bool renders_iommu = p.iommu.policy == IommuPolicy::kPassthrough && !iommu_arguments.empty();
  const bool renders_machine_config =
      renders_iommu ||
      (b.Rdma() && p.security.memlock_strategy == MemlockStrategy::kCrioUlimits);
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
