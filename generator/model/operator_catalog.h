#pragma once

// The operator catalogue: one definition per operator a profile's `operators` section can name,
// holding every fact a stage needs about it — how it installs on each platform (OLM package,
// channel and namespace, or Helm chart and repository), how the profile's section reads into
// the typed model, the CRD groups its install brings, the cluster-wide CRs it acts on (one of
// each), what its node agents do and provide to the requirements model, its release line in
// catalog/releases.json and what a version outside it loses, the settings a sharing profile
// must agree on with the owner, and how messages name it. Planners, the closure check, lint,
// images, the cluster check, the fleet and discover read these rows (or the typed operator's
// `key`, which names its row); none compares an operator's key
// (tests/generator/model/operator_definition_test.cc scans the sources for one). Adding an
// operator: docs/GENERATOR.md, "Adding an operator".

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/capability.h"
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

/// Where an install of the operator comes from when the profile names no other: the OLM
/// Subscription's package, channel and catalog source (OpenShift), or the Helm chart and its
/// repository (OKE/Kubernetes), and the namespace it runs in. An empty `package` (or `chart`)
/// means the operator has no such install.
struct InstallSource {
  std::string namespace_name;
  std::string package;
  std::string channel;
  std::string source;
  std::string chart;
  std::string repo_url;
};

/// A setting that a profile sharing the operator must describe as its owner does (the owner's
/// runs on every node): its name in messages and its value.
using SharedSetting = std::pair<std::string, std::string>;

/// The operator's release line in catalog/releases.json, and what lint says of a version outside
/// it. `section` is empty for an operator without releases (vf_config) or whose releases follow
/// the OpenShift minor (the catalog's openshift_operators rows, keyed by the operator's key).
struct ReleaseLine {
  std::string section;  ///< catalog/releases.json's section ("gpu_operator")
  std::string name;     ///< for messages: "GPU Operator"
  /// Whether lint checks the version on OpenShift too (the release decides what renders there).
  bool checked_on_openshift = true;
  /// What a version outside the catalog loses, per platform.
  std::string loses_openshift;
  std::string loses_kubernetes;
  bool (*listed)(const std::string& version) = nullptr;  ///< whether the catalog has it
  std::vector<std::string> (*versions)() = nullptr;      ///< the catalog's versions, oldest first
  std::string (*versions_text)() = nullptr;              ///< the same, for a fix
};

/// One operator of the catalogue: its definition.
struct OperatorFacts {
  std::string key;    ///< operators.<key>: "sriov_network_operator"
  std::string title;  ///< for messages: "the SR-IOV Network Operator"
  bool openshift = false;   ///< installable on OpenShift (OLM)
  bool kubernetes = false;  ///< installable on OKE/Kubernetes (Helm chart)
  /// Whether a profile of the platform gets it (managed, with its defaults) without listing it;
  /// otherwise it is opt-in.
  bool default_on_openshift = false;
  bool default_on_kubernetes = false;
  InstallSource olm;    ///< its OLM install (OpenShift), empty package where none
  InstallSource chart;  ///< its Helm install (OKE/Kubernetes), empty chart where none
  std::vector<std::string> crd_groups;  ///< API groups its CRDs define
  std::vector<SingletonCr> singletons;
  std::string agents;  ///< what its node agents give a node, one phrase
  /// Where an OLM install of it pulls from (its bundle, operator and operands): what a
  /// disconnected cluster's mirror must hold.
  std::vector<std::string> olm_registries;
  /// Whether the bundle can install it on OpenShift (`install: managed`); false where the
  /// profile may only leave it to the cluster (Kueue: model/scheduling.cc).
  bool managed_on_openshift = true;
  /// Whether its node agents may set GPUDirect RDMA up (the driver's nvidia-peermem or the open
  /// module's DMA-BUF): the bundle README names it among the providers where the cluster runs it.
  bool gpudirect_provider = false;
  ReleaseLine release;
  /// What the profiles of a cluster that share it must also see to, for the fix of a fight over
  /// it ("" where nothing).
  std::string sharing_note;

  /// The profile's operator of this row in `operators`, or null when the profile has none.
  const OperatorCommon* (*in)(const Operators& operators) = nullptr;
  OperatorCommon* (*in_mutable)(Operators& operators) = nullptr;
  /// Reads the profile's `section` for it (schema-valid; `empty` where the platform's default
  /// applies) into `out` (model/operators.cc).
  void (*read)(const OperatorFacts& self, const nlohmann::json& section, bool openshift,
               const std::string& cluster_name, Operators& out) = nullptr;
  /// What its node agents give the nodes under this profile's settings: CNI plugins,
  /// device-plugin resources, node labels, GPUDirect (the requirements model's names).
  std::vector<Capability> (*agent_capabilities)(const Profile& profile) = nullptr;
  /// The settings a profile that shares it must agree on with the owner's; null: none.
  std::vector<SharedSetting> (*shared_settings)(const Profile& profile) = nullptr;

  /// "/operators/<key>": where the profile sets it.
  std::string Pointer() const { return "/operators/" + key; }
  /// "/operators/<key>/install": where a finding about who installs it points.
  std::string InstallPointer() const { return Pointer() + "/install"; }
  /// Whether the platform can install it.
  bool On(bool on_openshift) const { return on_openshift ? openshift : kubernetes; }
  /// Its install source on the platform: OLM on OpenShift where it has a package, else its chart.
  const InstallSource& InstallOn(bool on_openshift) const;
};

/// Every operator, in the order the profile's schema lists them.
const std::vector<OperatorFacts>& OperatorCatalog();

/// Each operator's row by name, for the code that is about that one operator (its planner, its
/// own lint rules); code about every operator loops over OperatorCatalog().
const OperatorFacts& SriovNetworkOperatorFacts();
const OperatorFacts& NfdFacts();
const OperatorFacts& GpuOperatorFacts();
const OperatorFacts& NetworkOperatorFacts();
const OperatorFacts& VfConfigFacts();
const OperatorFacts& VolcanoFacts();
const OperatorFacts& KueueFacts();

/// The row of operators.<key>, or null.
const OperatorFacts* FindOperatorFacts(const std::string& key);

/// The operator whose singleton CR is of `kind` ("ClusterPolicy" -> gpu_operator), or null.
const OperatorFacts* OperatorOfSingletonKind(const std::string& kind);

/// The row of a typed operator (its `key`); the profile's operators are read from these rows,
/// so every one has its row.
const OperatorFacts& FactsOf(const OperatorCommon& op);

/// The profile's operator under `key` (gpu_operator, ...), or null.
const OperatorCommon* OperatorByKey(const Operators& operators, const std::string& key);

/// Whether the VF DaemonSet (operators.vf_config) loads the host's nvidia_peermem: GPUDirect
/// resolves to nvidia-peermem while the GPU driver is the host's (driver.enabled false), where
/// the GPU Operator's driver.rdma values do nothing (peermem runs in the driver DaemonSet it
/// deploys).
bool LoadsHostPeermem(const Profile& profile);

/// The containernetworking plugins (plugins/main, ipam, meta) that OpenShift's Multus and the
/// NicClusterPolicy's `secondaryNetwork.cniPlugins` copy onto every node.
const std::vector<std::string>& StandardCniPlugins();

/// The profile's operators, or the platform's defaults when it has no `operators` section
/// (then the bundle installs none: each is an implied precondition).
Operators OperatorsOf(const Profile& profile);

}  // namespace hkim
