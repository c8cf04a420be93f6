#pragma once

// What a bundle may take as given, for the closure check (closure.h): the platform's
// own capabilities, what an operator installed outside the bundle provides, and the
// preconditions: declared in the profile, implied by its settings (an operator `preinstalled`
// or `shared`, an existing MachineConfigPool), and the registries its images come from. Each
// precondition carries the command that checks it (PreconditionCheck), for the marker and the
// bundle's README.

#include <string>
#include <vector>

#include "model/model.h"
#include "plan/operator_capabilities.h"
#include "plan/plan.h"

namespace hkim {

/// The profile's declared preconditions, then the ones its settings imply (each once: a
/// declared one of the same kind and name wins). Pure; the plan stores them in BundlePlan.
std::vector<Precondition> BundlePreconditions(const Profile& profile);

/// After planning: drops the implied preconditions of iommu.machine_config_pool (the pool, its
/// role label) when no planned object goes through the pool (no MachineConfig, node policy or
/// pool of that role needs it): a bundle that renders nothing for the pool assumes nothing of it.
void DropUnusedPoolPreconditions(const Profile& profile, BundlePlan& plan);

/// After planning: one implied "image" precondition per registry the plan's images come from
/// (each with one image to pull as its check), or, under images.mirror, the mirror alone, so
/// that an image outside it stays unmet (closure.image). Images a declared precondition covers
/// get none.
void AddImagePreconditions(const Profile& profile, BundlePlan& plan);

/// What an operator installed outside this bundle (`what` of an "operator" precondition: the
/// profile's key, e.g. gpu_operator) is taken to provide, from the profile's description of it.
std::vector<Capability> OperatorScope(const Profile& profile, const std::string& key);

/// What the platform itself provides (Kubernetes core kinds, OpenShift's Multus, ...).
std::vector<Capability> PlatformProvides(const Profile& profile);

/// The command that checks a capability on the cluster (oc on OpenShift, kubectl elsewhere;
/// on a node through `debug node/NODE -- chroot /host` for CNI plugins, RDMA mode, GPUDirect
/// and image pulls).
std::string PreconditionCheck(const Profile& profile, CapabilityKind kind, const std::string& name);

/// An OCI A100 bare-metal shape (BM.GPU.A100-v2.8, BM.GPU4.8), whose SR-IOV VFs OCI creates
/// only in some regions.
bool IsOciA100Shape(const std::string& shape);

/// The image `kubectl debug node` runs for those checks: kNodeDebugImage, under images.mirror the
/// mirror's copy of it (a disconnected cluster reaches nothing else); "" on OpenShift, whose
/// `oc debug` takes the cluster's own tools image.
std::string NodeDebugImage(const Profile& profile);

/// The image a check command runs (its --image=), "" when none: `hkimgen images` lists it.
std::string CheckImage(const std::string& check);

}  // namespace hkim
