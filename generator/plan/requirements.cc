// The requirements model's vocabulary and the recording helpers the plan stages call.

#include "plan/requirements.h"

#include "model/model.h"
#include "plan/plan.h"
#include "support/json_pointer.h"

namespace hkim {
namespace {

// One row per capability kind: its spelling (the schema's), its closure rule id, what a
// closure.<kind> finding is about, and what an unmet need of the kind does to the cluster.
constexpr CapabilityKindInfo kKinds[] = {
    {CapabilityKind::kCrd, "crd", "closure.crd",
     "an object whose CRD neither the bundle (an earlier wave), the platform nor a precondition provides",
     "Argo CD cannot sync it (no matches for kind)"},
    {CapabilityKind::kCniPlugin, "cni-plugin", "closure.cni-plugin",
     "a CNI plugin or IPAM type a NAD chains that nothing installs or declares",
     "pods that attach the network stay in ContainerCreating (failed to find plugin)"},
    {CapabilityKind::kRdmaNetns, "rdma-netns", "closure.rdma-netns",
     "a NAD chains the RDMA CNI but nothing sets the RDMA subsystem to exclusive netns mode",
     "the RDMA CNI refuses to move the RDMA device into the pod (it needs exclusive mode)"},
    {CapabilityKind::kResource, "resource", "closure.resource",
     "an extended resource pods request that nothing advertises or declares",
     "pods that request it stay Pending"},
    {CapabilityKind::kNodeLabel, "node-label", "closure.node-label",
     "a node label a selector needs that nothing sets or declares", "it selects no node"},
    {CapabilityKind::kMachineConfigPool, "machine-config-pool", "closure.machine-config-pool",
     "MachineConfigs of a role whose pool neither the bundle nor a precondition provides",
     "its MachineConfigs apply to no node"},
    {CapabilityKind::kToleration, "toleration", "closure.toleration",
     "a taint the workload tolerates that a node agent of the bundle does not tolerate", ""},
    {CapabilityKind::kGpuDirect, "gpudirect", "closure.gpudirect",
     "GPUDirect RDMA that neither the bundle's GPU Operator nor a host-driver precondition provides",
     "NCCL stages every transfer through host memory (or fails where GPUDirect is required)"},
    {CapabilityKind::kImage, "image", "closure.image",
     "an image outside images.mirror that no precondition lets the nodes pull",
     "a disconnected cluster cannot pull it: the pod stays in ImagePullBackOff"},
};

}  // namespace

const std::vector<CapabilityKindInfo>& CapabilityKinds() {
  static const std::vector<CapabilityKindInfo> kinds(std::begin(kKinds), std::end(kKinds));
  return kinds;
}

const CapabilityKindInfo& InfoOf(CapabilityKind kind) {
  for (const CapabilityKindInfo& k : kKinds)
    if (k.kind == kind) return k;
  return kKinds[0];  // every enumerator has a row above
}

const char* ToString(CapabilityKind kind) { return InfoOf(kind).name; }

bool ParseCapabilityKind(const std::string& text, CapabilityKind& kind) {
  for (const CapabilityKindInfo& k : kKinds) {
    if (text == k.name) {
      kind = k.kind;
      return true;
    }
  }
  return false;
}

bool CapabilityMatches(CapabilityKind kind, const std::string& provided, const std::string& name) {
  if (kind == CapabilityKind::kGpuDirect && name == "any") {
    return provided == "dmabuf" || provided == "nvidia-peermem" || provided == "any";
  }
  if (!provided.empty() && provided.back() == '*') {
    return name.compare(0, provided.size() - 1, provided, 0, provided.size() - 1) == 0;
  }
  return provided == name;
}

std::string CrdName(const std::string& api_version, const std::string& kind) {
  const size_t slash = api_version.find('/');
  return (slash == std::string::npos ? "" : api_version.substr(0, slash)) + "/" + kind;
}

void Needs(PlannedObject& object, CapabilityKind kind, const std::string& name,
          const std::string& pointer, const std::string& why) {
  object.needs.push_back(hkim::Need{Capability{kind, name}, pointer, why});
}

void Provides(PlannedObject& object, CapabilityKind kind, const std::string& name) {
  object.provides.push_back(Capability{kind, name});
}

void ProvideTolerations(PlannedObject& object, const std::vector<ToleratedTaint>& tolerations) {
  object.node_agent = true;
  object.tolerates.insert(object.tolerates.end(), tolerations.begin(), tolerations.end());
}

void ProvideTolerations(PlannedObject& object, const std::vector<Toleration>& tolerations) {
  std::vector<ToleratedTaint> taints;
  for (const Toleration& t : tolerations)
    taints.push_back(ToleratedTaint{t.key, t.operator_name == "Exists", t.value, t.effect});
  ProvideTolerations(object, taints);
}

void ToleratesEverything(PlannedObject& object) {
  ProvideTolerations(object, std::vector<ToleratedTaint>{ToleratedTaint{}});
}

void NeedImage(PlannedObject& object, const std::string& reference, const std::string& pointer,
               const std::string& why, const std::string& field) {
  object.needs.push_back(
      hkim::Need{Capability{CapabilityKind::kImage, reference}, pointer, why, field});
}

std::string PointerKey(const std::string& key) { return EscapeJsonPointerToken(key); }

std::string NodeSelectorPointer(const std::string& key) {
  return "/node_shape/node_selector/" + PointerKey(key);
}

}  // namespace hkim
