// Plan stage, OpenShift operators: OLM installs (Namespace, OperatorGroup, Subscription) of the
// SR-IOV Network Operator, NFD and the certified GPU Operator, their CRs, one
// SriovNetworkNodePolicy per rail and, where network.rdma_netns is exclusive, the
// SriovNetworkPoolConfig that switches the nodes to it. What each provides comes from the operator
// catalogue (plan/operator_capabilities.h). Names, namespaces and labels are the ones the OCP 4.22 and
// NVIDIA install docs use (BRINGUP-FACTS §1); every object here would strip or uninstall
// something if Argo CD removed it, so all carry Prune=false,Delete=false.

#include "model/operator_versions.h"
#include "plan/operators/operators.h"

#include "plan/operator_capabilities.h"

namespace hkim {
namespace {

using nlohmann::json;

constexpr const char* kOperatorTemplates = "operators-openshift/";

json KeyValues(const std::map<std::string, std::string>& map) {
  json out = json::array();
  for (const auto& [key, value] : map) out.push_back(json{{"key", key}, {"value", value}});
  return out;
}

/// Records what operator `op`'s install (its CRDs) and its configured CR provide, from its
/// definition, so that a preinstalled or shared operator is taken to provide the same.
void ProvideInstall(PlannedObject& subscription, const OperatorCommon& op) {
  for (const Capability& c : OperatorCrdCapabilities(FactsOf(op)))
    Provides(subscription, c.kind, c.name);
}
void ProvideAgents(const Profile& p, PlannedObject& cr, const OperatorCommon& op) {
  for (const Capability& c : OperatorAgentCapabilities(p, FactsOf(op)))
    Provides(cr, c.kind, c.name);
  cr.operator_key = op.key;
}

/// A Subscription's startingCSV, in its typed record and its template's context alike.
void SetStartingCsv(PlannedObject& sub, const std::string& csv) {
  sub.subscription->starting_csv = csv;
  sub.context["has_starting_csv"] = !csv.empty();
  sub.context["starting_csv"] = csv;
}

/// Namespace, OperatorGroup and Subscription of one managed OLM operator.
PlannedObject& PlanOlmInstall(const Profile& profile, BundlePlan& plan, const OperatorCommon& op,
                    const std::string& group_name, const std::string& subscription_name,
                    const std::map<std::string, std::string>& labels,
                    const std::map<std::string, std::string>& annotations,
                    const std::string& source_note) {
  const std::string& ns = op.namespace_name;
  PlannedObject& n = AddPlannedObject(plan, profile, "operators/namespace.yaml.mustache", "v1",
                                      "Namespace", ns, "", kWaveOperators, false, true);
  n.context["labels"] = KeyValues(labels);
  n.context["annotations"] = KeyValues(annotations);
  n.source_pointer = op.pointer;
  n.operator_key = op.key;
  PlannedObject& group = AddPlannedObject(
      plan, profile, std::string(kOperatorTemplates) + "operatorgroup.yaml.mustache",
      "operators.coreos.com/v1", "OperatorGroup", group_name, ns, kWaveOperators, false, true);
  group.source_pointer = op.pointer;
  group.operator_key = op.key;
  PlannedObject& sub = AddPlannedObject(
      plan, profile, std::string(kOperatorTemplates) + "subscription.yaml.mustache",
      "operators.coreos.com/v1alpha1", "Subscription", subscription_name, ns, kWaveOperators,
      false, true);
  sub.subscription =
      PlannedSubscription{op.package, op.channel, op.source, op.source_namespace, op.starting_csv};
  sub.context["package"] = op.package;
  sub.context["channel"] = op.channel;
  sub.context["source"] = op.source;
  sub.context["source_namespace"] = op.source_namespace;
  sub.context["approval"] = ToString(op.approval);
  sub.context["manual"] = op.approval == InstallPlanApproval::kManual;
  SetStartingCsv(sub, op.starting_csv);
  sub.context["source_note"] = source_note;
  sub.source_pointer = op.pointer;
  sub.operator_key = op.key;
  return sub;
}

void PlanRdmaExclusive(const Profile& p, BundlePlan& plan, const SriovNetworkOperator& sriov);

void PlanSriov(const Profile& p, BundlePlan& plan, const SriovNetworkOperator& sriov) {
  if (sriov.managed()) {
    PlannedObject& sub = PlanOlmInstall(
        p, plan, sriov, "sriov-network-operators", "sriov-network-operator-subscription", {},
        {{"workload.openshift.io/allowed", "management"}},
        "SR-IOV Network Operator: OCP 4.22 'Installing the SR-IOV Network Operator' "
        "(channel stable; 4.3-4.12 docs used the OCP version as channel)");
    ProvideInstall(sub, sriov);
    PlannedObject& config = AddPlannedObject(
        plan, p, std::string(kOperatorTemplates) + "sriovoperatorconfig.yaml.mustache",
        "sriovnetwork.openshift.io/v1", "SriovOperatorConfig", "default", sriov.namespace_name,
        kWaveOperatorConfig, true, true);
    config.context["disable_drain"] = sriov.disable_drain;
    config.source_pointer = sriov.pointer;
    // From 4.16 the config daemon, which installs the SR-IOV, InfiniBand SR-IOV and rdma CNIs,
    // starts only once this CR exists (BRINGUP-FACTS §1a); its DaemonSets tolerate every taint.
    ProvideAgents(p, config, sriov);
    ToleratesEverything(config);
  }
  if (!p.UsesRails()) return;
  if (!sriov.node_policies) {
    PlanRdmaExclusive(p, plan, sriov);
    return;
  }
  const std::string device_id = p.node_shape.topology.nic_pci_device.rfind("0x", 0) == 0
                                    ? p.node_shape.topology.nic_pci_device.substr(2)
                                    : p.node_shape.topology.nic_pci_device;
  const json selector = KeyValues(PolicyNodeSelector(p, sriov));
  for (const Rail& rail : p.network.rails) {
    if (rail.interface_name.empty()) continue;  // lint.nad-resource-producer reports it
    PlannedObject& policy = AddPlannedObject(
        plan, p, std::string(kOperatorTemplates) + "sriovnetworknodepolicy.yaml.mustache",
        "sriovnetwork.openshift.io/v1", "SriovNetworkNodePolicy", p.cluster_name + "-" + rail.name,
        sriov.namespace_name, kWaveNodePolicies, true, true);
    policy.context["rail"] = rail.name;
    policy.context["pf_name"] = rail.interface_name;
    policy.context["resource_name"] = PolicyResourceName(rail);
    policy.context["node_selector"] = selector;
    policy.context["priority"] = sriov.priority;
    policy.context["num_vfs"] = sriov.num_vfs_per_pf;
    policy.context["mtu"] = rail.mtu_bytes;
    policy.context["vendor"] = "15b3";
    policy.context["has_device_id"] = !device_id.empty();
    policy.context["device_id"] = device_id;
    policy.context["infiniband"] = p.network.fabric == Fabric::kInfiniBand;
    policy.source_pointer = rail.pointer;
    Provides(policy, CapabilityKind::kResource, rail.resource_name);
    NeedNodeLabels(policy, PolicyNodeSelector(p, sriov), [&](const std::string& key) {
      if (!sriov.node_selector.empty()) return sriov.pointer + "/node_selector/" + PointerKey(key);
      if (p.node_shape.node_selector.count(key)) return NodeSelectorPointer(key);
      return p.iommu.pointer + "/machine_config_role";
    }, "its nodeSelector");
  }
  PlanRdmaExclusive(p, plan, sriov);
}

/// network.rdma_netns: exclusive: the SriovNetworkPoolConfig that switches the nodes of the
/// policies' selector to exclusive RDMA netns mode, which the rdma CNI the rails' NADs chain
/// requires (network.cc NadConfig). The operator drains and reboots each node to apply it, and
/// every pod of another NAD without the rdma CNI on those nodes loses its RDMA device.
void PlanRdmaExclusive(const Profile& p, BundlePlan& plan, const SriovNetworkOperator& sriov) {
  if (p.network.rdma_netns != RdmaNetns::kExclusive) return;
  const json selector = KeyValues(PolicyNodeSelector(p, sriov));
  PlannedObject& pool = AddPlannedObject(
      plan, p, std::string(kOperatorTemplates) + "sriovnetworkpoolconfig.yaml.mustache",
      "sriovnetwork.openshift.io/v1", "SriovNetworkPoolConfig", p.cluster_name + "-rdma-exclusive",
      sriov.namespace_name, kWaveNodePolicies, true, true);
  pool.context["node_selector"] = selector;
  pool.context["rdma_mode"] = "exclusive";
  pool.source_pointer = p.network.rdma_netns_set ? p.network.pointer + "/rdma_netns" : sriov.pointer;
  Provides(pool, CapabilityKind::kRdmaNetns, "exclusive");
}

void PlanNfd(const Profile& p, BundlePlan& plan, const NfdOperator& nfd) {
  if (!nfd.managed()) return;
  PlannedObject& sub =
      PlanOlmInstall(p, plan, nfd, "openshift-nfd", nfd.package,
                     {{"name", "openshift-nfd"}, {"openshift.io/cluster-monitoring", "true"}}, {},
                     "NFD Operator: OCP 4.22 'Node Feature Discovery Operator' (channel stable; "
                     "4.8/4.9 docs used the OCP version as channel)");
  ProvideInstall(sub, nfd);
  PlannedObject& instance =
      AddPlannedObject(plan, p, std::string(kOperatorTemplates) + "nodefeaturediscovery.yaml.mustache",
                       "nfd.openshift.io/v1", "NodeFeatureDiscovery", "nfd-instance",
                       nfd.namespace_name, kWaveOperatorConfig, true, true);
  instance.context["operand_image"] = nfd.operand_image;
  instance.source_pointer = nfd.pointer;
  NeedImage(instance, nfd.operand_image, nfd.pointer, "the NFD operand its operator deploys",
            "spec.operand.image");
  ProvideAgents(p, instance, nfd);
  // PCI classes 02/0200/0207 (network) and 03 (display) labelled by vendor: NVIDIA Network
  // Operator OCP guide (getting-started-openshift), so GPU and ConnectX nodes get
  // feature.node.kubernetes.io/pci-10de.present / pci-15b3.present.
  instance.context["worker_config"] =
      "sources:\n"
      "  pci:\n"
      "    deviceClassWhitelist: [\"02\", \"03\", \"0200\", \"0207\"]\n"
      "    deviceLabelFields: [vendor]\n";
}

void PlanGpuOperator(const Profile& p, BundlePlan& plan, const GpuOperator& gpu) {
  if (!gpu.managed()) return;
  PlannedObject& sub = PlanOlmInstall(
      p, plan, gpu, "nvidia-gpu-operator-group", "gpu-operator-certified", {}, {},
      "GPU Operator (certified): NVIDIA cloud-native-docs openshift/install-gpu-ocp.rst; "
      "channel v<YY.M> is each bundle's default (bundle/metadata/annotations.yaml)");
  ProvideInstall(sub, gpu);
  // The version pins the CSV: startingCSV is the catalog's, with the approval the
  // profile states (Manual: nothing upgrades past it unasked). An explicit starting_csv wins.
  if (gpu.starting_csv.empty()) {
    const auto release = FindGpuOperatorRelease(gpu.version);
    SetStartingCsv(sub, release ? release->csv : gpu.package + "." + gpu.version);
  }
  PlannedObject& policy = AddPlannedObject(
      plan, p, std::string(kOperatorTemplates) + "clusterpolicy.yaml.mustache", "nvidia.com/v1",
      "ClusterPolicy", "cluster-policy", "", kWaveOperatorConfig, true, true);
  const GpuDirectSettings rdma = ResolveGpuDirect(gpu, p.nccl.gpudirect);
  policy.context["openshift"] = true;
  policy.context["driver_enabled"] = gpu.driver_enabled;
  policy.context["has_kernel_module_type"] = rdma.has_kernel_module_type;
  policy.context["kernel_module_type"] = rdma.kernel_module_type;
  policy.context["rdma_enabled"] = rdma.rdma_enabled;
  policy.context["use_host_mofed"] = rdma.use_host_mofed;
  policy.context["rdma_note"] = rdma.note;
  ProvideGpuOperator(p, gpu, policy);
}

}  // namespace

void PlanOpenShiftOperators(const Profile& profile, BundlePlan& plan) {
  if (!profile.operators) return;
  const Operators& ops = *profile.operators;
  if (ops.sriov_network_operator) PlanSriov(profile, plan, *ops.sriov_network_operator);
  if (ops.nfd) PlanNfd(profile, plan, *ops.nfd);
  if (ops.gpu_operator) PlanGpuOperator(profile, plan, *ops.gpu_operator);
}

}  // namespace hkim
