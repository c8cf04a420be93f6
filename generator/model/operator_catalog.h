#pragma once

// The operator catalogue: one row per operator a profile's `operators` section can
// name, with what every stage needs to know about it — the CRD groups its install brings, the
// cluster-wide CRs it acts on (one of each), how messages name it and what its node agents do.
// plan/operator_capabilities.h derives the requirements model's capabilities from these rows;
// the closure check, the cluster check, the fleet's sharing check and discover read the same
// rows: a fact kept twice is the bug that has not happened yet (STYLE.md).

#include <string>
#include <vector>

#include "model/model.h"

namespace hkim {

/// A cluster-wide CR of which the operator acts on one: a second one is ignored or fights it.
struct SingletonCr {
  std::string kind;
  std::string api_version;
  /// The name the operator reads ("default" for SriovOperatorConfig), "" when it takes any one.
  std::string name;
  std::string why;  ///< the source, for messages
};

/// One operator of the catalogue.
struct OperatorFacts {
  std::string key;    ///< operators.<key>: "sriov_network_operator"
  std::string title;  ///< for messages: "the SR-IOV Network Operator"
  bool openshift = false;   ///< installable on OpenShift (OLM)
  bool kubernetes = false;  ///< installable on OKE/Kubernetes (Helm chart)
  std::vector<std::string> crd_groups;  ///< API groups its CRDs define
  std::vector<SingletonCr> singletons;
  std::string agents;  ///< what its node agents give a node, one phrase
  /// Where an OLM install of it pulls from (its bundle, operator and operands): what a
  /// disconnected cluster's mirror must hold.
  std::vector<std::string> olm_registries;
  /// Whether the bundle can install it on OpenShift (`install: managed`); false where the
  /// profile may only leave it to the cluster (Kueue: model/scheduling.cc).
  bool managed_on_openshift = true;
};

/// Every operator, in the order the profile's schema lists them.
const std::vector<OperatorFacts>& OperatorCatalog();

/// The row of operators.<key>, or null.
const OperatorFacts* FindOperatorFacts(const std::string& key);

/// The operator whose singleton CR is of `kind` ("ClusterPolicy" -> gpu_operator), or null.
const OperatorFacts* OperatorOfSingletonKind(const std::string& kind);

/// The profile's operator under `key` (gpu_operator, ...), or null.
const OperatorCommon* OperatorByKey(const Operators& operators, const std::string& key);

/// The profile's operators, or the platform's defaults when it has no `operators` section
/// (then the bundle installs none: each is an implied precondition).
Operators OperatorsOf(const Profile& profile);

}  // namespace hkim
