#pragma once

// How a rail and the profile's node shape read as an SriovNetworkNodePolicy: the plan renders
// the policies with these, and lint checks that the workload lands where they select.

#include <map>
#include <string>

#include "model/model.h"

namespace hkim {

/// The SR-IOV resource name of a rail as a SriovNetworkNodePolicy spells it: the rail's
/// resource without the `openshift.io/` prefix the operator adds.
std::string PolicyResourceName(const Rail& rail);

/// Node selector of the SriovNetworkNodePolicies: the profile's own, else the node shape's plus
/// node-role.kubernetes.io/<MachineConfig role> (the MachineConfig's pool). Sorted.
std::map<std::string, std::string> PolicyNodeSelector(const Profile& profile,
                                                      const SriovNetworkOperator& sriov);

/// Whether the rails' NADs chain the rdma CNI: where the nodes' RDMA subsystem is (or is made)
/// exclusive (network.rdma_netns). In the kernel's default shared mode the VF's RDMA device is
/// visible in the pod without it, as on Barcelona, and the rdma CNI would refuse to run.
bool NadsChainRdma(const Profile& profile);

}  // namespace hkim
