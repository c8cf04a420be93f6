#include "model/machine_config.h"

#include <algorithm>

namespace hkim {

std::vector<std::string> IommuArgumentsToAdd(const Profile& p) {
  std::vector<std::string> out;
  if (p.iommu.policy != IommuPolicy::kPassthrough) return out;
  std::vector<std::string> wanted;
  if (p.node_shape.cpu_vendor != CpuVendor::kAmd) wanted.push_back("intel_iommu=on");
  wanted.push_back("iommu=pt");
  const auto& have = p.iommu.already_set;
  for (const std::string& argument : wanted) {
    if (std::find(have.begin(), have.end(), argument) == have.end()) out.push_back(argument);
  }
  return out;
}

bool RendersMachineConfig(const Profile& p) {
  if (!p.IsOpenShift()) return false;
  const bool rdma = p.workload.mode == WorkloadMode::kRdma;
  return !IommuArgumentsToAdd(p).empty() ||
         (rdma && p.security.memlock_strategy == MemlockStrategy::kCrioUlimits);
}

}  // namespace hkim
