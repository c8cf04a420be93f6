#pragma once

// The requirements model: what each planned object needs from the cluster and what it
// provides, in typed form, so that plan/closure.h can prove at render time that everything a
// bundle needs is installed by the bundle (in an earlier sync wave), by the platform, or declared
// as a precondition. A plan stage records these where it plans the object, one line each:
//
//   Needs(nad, CapabilityKind::kCniPlugin, "rdma", rail.pointer, "chained in the NAD's config");
//   Provides(policy, CapabilityKind::kResource, rail.resource_name);
//   ProvideTolerations(policy, tolerations);   // a node agent and the taints it tolerates
//
// Names: kCrd "group/Kind" (core group ""); kCniPlugin the CNI `type` (IPAM plugins too);
// kRdmaNetns "exclusive"; kResource the extended resource ("nvidia.com/gpu"); kNodeLabel the
// label key; kMachineConfigPool the role; kGpuDirect "dmabuf", "nvidia-peermem" or (a need
// only) "any"; kImage the image reference a container pulls (provided as "REGISTRY/*": where
// the nodes can pull from). A provided name ending in "*" provides every name with that prefix.

#include <string>
#include <vector>

#include "model/capability.h"

namespace hkim {

struct PlannedObject;
struct Toleration;

/// One capability kind: its spelling, what a closure.<spelling> finding is about and what an
/// unmet need does (requirements.cc holds the one table).
struct CapabilityKindInfo {
  CapabilityKind kind;
  const char* name;
  const char* closure_rule;  ///< "closure.<name>", written out so that the rule-id scan finds it
  const char* closure_summary;
  const char* consequence;  ///< "" where the finding says it itself (toleration)
};

/// Every kind, in enumerator order.
const std::vector<CapabilityKindInfo>& CapabilityKinds();
const CapabilityKindInfo& InfoOf(CapabilityKind kind);

/// The schema's spelling ("crd", "cni-plugin", "rdma-netns", "resource", "node-label",
/// "machine-config-pool", "toleration", "gpudirect", "image"); the rule id is "closure.<spelling>".
const char* ToString(CapabilityKind kind);
/// The kind of a spelling; false when `text` names none.
bool ParseCapabilityKind(const std::string& text, CapabilityKind& kind);

/// What an object needs; `pointer` is the profile value that made the need (its fix goes
/// there; empty = the object's source_pointer), `why` one phrase for the message.
struct Need {
  Capability what;
  std::string pointer;
  std::string why;
  /// kImage: the field of the rendered object that names the reference, as `hkimgen images`
  /// reports it ("spec.template.spec.containers[0].image"; images/images.h).
  std::string field;
};

/// A taint toleration of a node agent, as the closure compares them with the workload's.
struct ToleratedTaint {
  std::string key;  ///< empty with kExists = every taint
  bool exists = true;
  std::string value;
  std::string effect;  ///< empty = every effect
};

/// Whether `name` (a need's) is provided by `provided` (exact, or a "prefix*" wildcard), for
/// one kind; gpudirect "any" is met by either mode.
bool CapabilityMatches(CapabilityKind kind, const std::string& provided, const std::string& name);

/// The CRD name of an object's apiVersion and kind: "security.openshift.io/SecurityContextConstraints",
/// "/ConfigMap" for the core group.
std::string CrdName(const std::string& api_version, const std::string& kind);

// --- Recording, in the plan stage that plans the object -----------------------------------

void Needs(PlannedObject& object, CapabilityKind kind, const std::string& name,
          const std::string& pointer, const std::string& why);
void Provides(PlannedObject& object, CapabilityKind kind, const std::string& name);
/// Every key of a node selector as a node-label need; `pointer_of(key)` locates each.
template <typename Selector, typename PointerOf>
void NeedNodeLabels(PlannedObject& object, const Selector& selector, PointerOf pointer_of,
                    const std::string& why) {
  for (const auto& [key, value] : selector) {
    (void)value;
    Needs(object, CapabilityKind::kNodeLabel, key, pointer_of(key), why);
  }
}
/// Marks `object` as a node agent the workload depends on (it runs pods on the GPU nodes: a
/// device plugin, CNI installer, VF creator) and records the taints it tolerates: every taint
/// the workload tolerates must be tolerated by every node agent (closure.toleration).
void ProvideTolerations(PlannedObject& object, const std::vector<Toleration>& tolerations);
void ProvideTolerations(PlannedObject& object, const std::vector<ToleratedTaint>& tolerations);
/// A node agent that tolerates every taint (`tolerations: [{operator: Exists}]`).
void ToleratesEverything(PlannedObject& object);

/// An image a container of `object` pulls (`pointer`: the profile value that names it), named by
/// `field` of the rendered object (one need per field: an object that names the same image twice
/// records it twice). `hkimgen images` lists these (images/images.h).
void NeedImage(PlannedObject& object, const std::string& reference, const std::string& pointer,
               const std::string& why, const std::string& field);

/// The profile value of one node_shape.node_selector key (for node-label needs).
std::string NodeSelectorPointer(const std::string& key);

/// JSON pointer escaping of one key ("nvidia.com/gpu.product" -> "nvidia.com~1gpu.product").
std::string PointerKey(const std::string& key);

}  // namespace hkim
