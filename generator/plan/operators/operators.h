#pragma once

// Plan stages of the operator bring-up: install objects, their configuration CRs and the node
// policies, per platform. They add objects to a BundlePlan through AddPlannedObject (plan/plan.h) and
// only when the profile has an `operators` section (model/operators.h); preinstalled operators
// get no install objects.

#include "model/model.h"
#include "plan/plan.h"
#include "model/sriov_policy.h"

namespace hkim {

/// The node label the OKE VF DaemonSet sets ("true") while a node waits for its reboot into
/// exclusive RDMA mode, and removes once it runs it; the bundle README, doctor's MARK column and
/// `kubectl get nodes -l` show it.
inline constexpr char kRdmaModePendingLabel[] = "hkimgen.io/rdma-mode-pending";

/// OpenShift: for each managed operator (SR-IOV Network Operator, NFD, GPU Operator) its
/// Namespace, OperatorGroup and Subscription (wave kWaveOperators), its CR (SriovOperatorConfig
/// `default`, NodeFeatureDiscovery, ClusterPolicy; kWaveOperatorConfig), and one
/// SriovNetworkNodePolicy per rail (kWaveNodePolicies, the MachineConfig's wave and pool).
void PlanOpenShiftOperators(const Profile& profile, BundlePlan& plan);

/// OKE/Kubernetes: an Argo CD Application per managed chart (gpu-operator, network-operator,
/// volcano; kWaveOperators), the NicClusterPolicy with the pinned release's component images
/// (kWaveOperatorConfig) and the VF configuration DaemonSet (kWaveNodePolicies). The
/// NicClusterPolicy is planned whenever the rails use the device plugin, operators or not.
void PlanOkeOperators(const Profile& profile, BundlePlan& plan);

/// What the GPU Operator's object (the ClusterPolicy on OpenShift, the chart's Application on
/// OKE) provides to the requirements model: nvidia.com/gpu, GPU feature discovery's
/// nvidia.com/gpu.* labels, GPUDirect RDMA where it deploys the driver, and a node agent that
/// tolerates the nvidia.com/gpu taint (its daemonsets' default toleration).
void ProvideGpuOperator(const Profile& profile, const GpuOperator& gpu, PlannedObject& object);

}  // namespace hkim
