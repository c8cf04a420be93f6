#include "model/sriov_policy.h"

namespace hkim {

std::string PolicyResourceName(const Rail& rail) {
  const std::string prefix = "openshift.io/";
  return rail.resource_name.rfind(prefix, 0) == 0 ? rail.resource_name.substr(prefix.size())
                                                  : rail.resource_name;
}

std::map<std::string, std::string> PolicyNodeSelector(const Profile& profile,
                                                      const SriovNetworkOperator& sriov) {
  if (!sriov.node_selector.empty()) return sriov.node_selector;
  std::map<std::string, std::string> selector = profile.node_shape.node_selector;
  selector["node-role.kubernetes.io/" + profile.iommu.machine_config_role] = "";
  return selector;
}

bool NadsChainRdma(const Profile& profile) {
  return profile.network.rdma_netns != RdmaNetns::kShared;
}

}  // namespace hkim
