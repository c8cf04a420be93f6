// The requirements model's vocabulary and the recording helpers the plan stages call.

#include "plan/requirements.h"

#include "model/model.h"
#include "plan/plan.h"
#include "support/json_pointer.h"

namespace hkim {
namespace {

struct KindName {
  CapabilityKind kind;
  const char* name;
};

constexpr KindName kKindNames[] = {
    {CapabilityKind::kCrd, "crd"},
    {CapabilityKind::kCniPlugin, "cni-plugin"},
    {CapabilityKind::kRdmaNetns, "rdma-netns"},
    {CapabilityKind::kResource, "resource"},
    {CapabilityKind::kNodeLabel, "node-label"},
    {CapabilityKind::kMachineConfigPool, "machine-config-pool"},
    {CapabilityKind::kToleration, "toleration"},
    {CapabilityKind::kGpuDirect, "gpudirect"},
    {CapabilityKind::kImage, "image"},
};

}  // namespace

const char* ToString(CapabilityKind kind) {
  for (const KindName& k : kKindNames)
    if (k.kind == kind) return k.name;
  return "?";
}

bool ParseCapabilityKind(const std::string& text, CapabilityKind& kind) {
  for (const KindName& k : kKindNames) {
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
               const std::string& why) {
  Needs(object, CapabilityKind::kImage, reference, pointer, why);
}

std::string PointerKey(const std::string& key) { return EscapeJsonPointerToken(key); }

std::string NodeSelectorPointer(const std::string& key) {
  return "/node_shape/node_selector/" + PointerKey(key);
}

}  // namespace hkim
