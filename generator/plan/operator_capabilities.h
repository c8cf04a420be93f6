#pragma once

// What each operator of the catalogue (model/operator_catalog.h) provides to the requirements
// model, read from its definition: the planners record these on the objects they render, and
// the closure check takes a `preinstalled` or `shared` operator to provide the same.

#include <vector>

#include "model/model.h"
#include "model/operator_catalog.h"
#include "plan/requirements.h"

namespace hkim {

/// What the operator's install object (Subscription, chart Application) provides: its CRDs.
std::vector<Capability> OperatorCrdCapabilities(const OperatorFacts& facts);

/// What the operator's configured CR (SriovOperatorConfig, NodeFeatureDiscovery, ClusterPolicy
/// or the GPU chart, NicClusterPolicy) or node agents give the nodes, for this profile's
/// settings: CNI plugins, device-plugin resources, node labels, GPUDirect.
std::vector<Capability> OperatorAgentCapabilities(const Profile& profile, const OperatorFacts& facts);

}  // namespace hkim
