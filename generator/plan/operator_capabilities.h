#pragma once

// What each operator of the catalogue (model/operator_catalog.h) provides to the requirements
// model: the planners record these on the objects they render, and the closure check takes a
// `preinstalled` or `shared` operator to provide the same.

#include <string>
#include <vector>

#include "model/model.h"
#include "model/operator_catalog.h"
#include "plan/requirements.h"

namespace hkim {

/// What the operator's install object (Subscription, chart Application) provides: its CRDs.
std::vector<Capability> OperatorCrdCapabilities(const OperatorFacts& facts);

/// What the operator's configured CR (SriovOperatorConfig, NodeFeatureDiscovery, ClusterPolicy
/// or the GPU chart, NicClusterPolicy) gives the nodes, for this profile's settings: CNI
/// plugins, device-plugin resources, node labels, GPUDirect.
std::vector<Capability> OperatorAgentCapabilities(const Profile& profile, const std::string& key);

/// Whether the VF DaemonSet (operators.vf_config) loads the host's nvidia_peermem: GPUDirect
/// resolves to nvidia-peermem while the GPU driver is the host's (driver.enabled false), where
/// the GPU Operator's driver.rdma values do nothing (peermem runs in the driver DaemonSet it
/// deploys).
bool LoadsHostPeermem(const Profile& profile);

/// The containernetworking plugins (plugins/main, ipam, meta) that OpenShift's Multus and the
/// NicClusterPolicy's `secondaryNetwork.cniPlugins` copy onto every node.
const std::vector<std::string>& StandardCniPlugins();

}  // namespace hkim
