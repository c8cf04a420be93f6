// The operator catalogue (operator_catalog.h): each operator's facts with where they come from.

#include "model/operator_catalog.h"

namespace hkim {
namespace {

std::vector<OperatorFacts> MakeCatalog() {
  std::vector<OperatorFacts> rows;
  // k8snetworkplumbingwg/sriov-network-operator: the operator reads only the SriovOperatorConfig
  // named `default` in its namespace (controllers/sriovoperatorconfig_controller.go); its config
  // daemon installs the SR-IOV CNI, its InfiniBand variant and (RDMA_CNI_IMAGE) the rdma CNI.
  rows.push_back({"sriov_network_operator", "the SR-IOV Network Operator", true, false,
                  {"sriovnetwork.openshift.io"},
                  {{"SriovOperatorConfig", "sriovnetwork.openshift.io/v1", "default",
                    "the operator reads only the SriovOperatorConfig named default"}},
                  "VFs, the SR-IOV and RDMA CNI",
                  // Red Hat's operators and their operands (OCP docs: registry.redhat.io/openshift4/...).
                  {"registry.redhat.io"}});
  // openshift/cluster-nfd-operator: one NodeFeatureDiscovery runs one nfd-master; a second one
  // runs another master that labels the same nodes.
  rows.push_back({"nfd", "Node Feature Discovery", true, false,
                  {"nfd.openshift.io", "nfd.k8s-sigs.io"},
                  {{"NodeFeatureDiscovery", "nfd.openshift.io/v1", "",
                    "a second NodeFeatureDiscovery runs a second nfd-master over the same nodes"}},
                  "the feature.node.kubernetes.io labels",
                  {"registry.redhat.io"}});
  // NVIDIA/gpu-operator controllers/clusterpolicy_controller.go: the operator acts on the first
  // ClusterPolicy and marks every other one ignored (BARCELONA-LIVE.md).
  rows.push_back({"gpu_operator", "the GPU Operator", true, true, {"nvidia.com"},
                  {{"ClusterPolicy", "nvidia.com/v1", "",
                    "the GPU Operator acts on one ClusterPolicy and ignores any other"}},
                  "the GPU device plugin, GPU labels, the driver where it deploys one",
                  // The certified bundle on registry.connect.redhat.com; the operator and every
                  // operand (driver, toolkit, device plugin, DCGM...) on nvcr.io.
                  {"nvcr.io", "registry.connect.redhat.com"}});
  // Mellanox/network-operator: the NicClusterPolicy controller reconciles only the one named
  // nic-cluster-policy (api/v1alpha1 NicClusterPolicyCRDName).
  rows.push_back({"network_operator", "the NVIDIA Network Operator", false, true,
                  {"mellanox.com", "nv-ipam.nvidia.com"},
                  {{"NicClusterPolicy", "mellanox.com/v1alpha1", "nic-cluster-policy",
                    "the Network Operator reconciles only the NicClusterPolicy named "
                    "nic-cluster-policy"}},
                  "the RDMA device plugin, Multus, CNI plugins, nv-ipam",
                  {}});
  // The OKE bundle's VF DaemonSet (plan/operators/oke.cc PlanVfConfig) with its SR-IOV and RDMA
  // CNI DaemonSets; preinstalled: the nodes' image does the same (operators.vf_config in the
  // schema). What its agents provide is plan/operator_capabilities.cc's.
  rows.push_back({"vf_config", "the VF DaemonSet (vf_config)", false, true, {}, {},
                  "the rails' VFs, the SR-IOV and RDMA CNI, the RDMA exclusive netns mode, "
                  "nvidia_peermem with the host's GPU driver",
                  {}});
  rows.push_back({"volcano", "Volcano", false, true,
                  {"batch.volcano.sh", "bus.volcano.sh", "flow.volcano.sh", "nodeinfo.volcano.sh",
                   "scheduling.volcano.sh", "topology.volcano.sh"},
                  {},
                  "the Volcano scheduler",
                  {}});
  // kubernetes-sigs/kueue config/components/crd: every Kueue kind is in kueue.x-k8s.io.
  // OpenShift: preinstalled only (the Red Hat build of Kueue; model/scheduling.cc).
  OperatorFacts kueue{"kueue", "Kueue", true, true, {"kueue.x-k8s.io"}, {},
                      "job queueing and topology-aware scheduling", {}};
  kueue.managed_on_openshift = false;
  rows.push_back(std::move(kueue));
  return rows;
}

}  // namespace

const std::vector<OperatorFacts>& OperatorCatalog() {
  static const std::vector<OperatorFacts> catalog = MakeCatalog();
  return catalog;
}

const OperatorFacts* FindOperatorFacts(const std::string& key) {
  for (const OperatorFacts& facts : OperatorCatalog())
    if (facts.key == key) return &facts;
  return nullptr;
}

const OperatorFacts* OperatorOfSingletonKind(const std::string& kind) {
  for (const OperatorFacts& facts : OperatorCatalog())
    for (const SingletonCr& cr : facts.singletons)
      if (cr.kind == kind) return &facts;
  return nullptr;
}

const OperatorCommon* OperatorByKey(const Operators& ops, const std::string& key) {
  if (key == "sriov_network_operator" && ops.sriov_network_operator) return &*ops.sriov_network_operator;
  if (key == "nfd" && ops.nfd) return &*ops.nfd;
  if (key == "gpu_operator" && ops.gpu_operator) return &*ops.gpu_operator;
  if (key == "network_operator" && ops.network_operator) return &*ops.network_operator;
  if (key == "vf_config" && ops.vf_config) return &*ops.vf_config;
  if (key == "volcano" && ops.volcano) return &*ops.volcano;
  if (key == "kueue" && ops.kueue) return &*ops.kueue;
  return nullptr;
}

Operators OperatorsOf(const Profile& p) {
  if (p.operators) return *p.operators;
  Operators ops = ReadOperators(nlohmann::json::object(), p.IsOpenShift(), p.cluster_name);
  // Without an operators section the bundle installs none; scheduling.kueue still needs Kueue.
  if (p.scheduling.kueue) ops.kueue = ReadOperators(nlohmann::json{{"kueue", nlohmann::json::object()}},
                                                    p.IsOpenShift(), p.cluster_name).kueue;
  return ops;
}

}  // namespace hkim
