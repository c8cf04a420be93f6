// The operator catalogue (operator_catalog.h): each operator's definition, with where its facts
// come from. The typed readers of the profile's sections are model/operators.cc's.

#include "model/operator_catalog.h"

#include "model/operator_versions.h"

namespace hkim {
namespace {

using K = CapabilityKind;

void Add(std::vector<Capability>& out, K kind, const std::string& name) {
  out.push_back(Capability{kind, name});
}

template <typename R>
std::vector<std::string> Versions(const std::vector<R>& releases) {
  std::vector<std::string> out;
  for (const R& r : releases) out.push_back(r.version);
  return out;
}

const char* Bool(bool value) { return value ? "true" : "false"; }

// k8snetworkplumbingwg/sriov-network-operator: the operator reads only the SriovOperatorConfig
// named `default` in its namespace (controllers/sriovoperatorconfig_controller.go); its config
// daemon installs the SR-IOV CNI, its InfiniBand variant and (RDMA_CNI_IMAGE) the rdma CNI.
// OLM install: OCP 4.22 install docs (BRINGUP-FACTS.md).
OperatorFacts SriovNetworkOperatorDefinition() {
  OperatorFacts d;
  d.key = "sriov_network_operator";
  d.title = "the SR-IOV Network Operator";
  d.openshift = true;
  d.default_on_openshift = true;
  d.olm = {"openshift-sriov-network-operator", "sriov-network-operator", "stable",
           "redhat-operators", "", ""};
  d.crd_groups = {"sriovnetwork.openshift.io"};
  d.singletons = {{"SriovOperatorConfig", "sriovnetwork.openshift.io/v1", "default",
                   "the operator reads only the SriovOperatorConfig named default"}};
  d.agents = "VFs, the SR-IOV and RDMA CNI";
  // Red Hat's operators and their operands (OCP docs: registry.redhat.io/openshift4/...).
  d.olm_registries = {"registry.redhat.io"};
  d.in = [](const Operators& o) -> const OperatorCommon* {
    return o.sriov_network_operator ? &*o.sriov_network_operator : nullptr;
  };
  d.in_mutable = [](Operators& o) -> OperatorCommon* {
    return o.sriov_network_operator ? &*o.sriov_network_operator : nullptr;
  };
  d.read = ReadSriovNetworkOperator;
  d.agent_capabilities = [](const Profile&) {
    std::vector<Capability> out;
    for (const char* plugin : {"sriov", "ib-sriov", "rdma"}) Add(out, K::kCniPlugin, plugin);
    return out;
  };
  return d;
}

// openshift/cluster-nfd-operator: one NodeFeatureDiscovery runs one nfd-master; a second one
// runs another master that labels the same nodes. OLM install: OCP 4.22 install docs.
OperatorFacts NfdDefinition() {
  OperatorFacts d;
  d.key = "nfd";
  d.title = "Node Feature Discovery";
  d.openshift = true;
  d.default_on_openshift = true;
  d.olm = {"openshift-nfd", "nfd", "stable", "redhat-operators", "", ""};
  d.crd_groups = {"nfd.openshift.io", "nfd.k8s-sigs.io"};
  d.singletons = {{"NodeFeatureDiscovery", "nfd.openshift.io/v1", "",
                   "a second NodeFeatureDiscovery runs a second nfd-master over the same nodes"}};
  d.agents = "the feature.node.kubernetes.io labels";
  d.olm_registries = {"registry.redhat.io"};
  d.in = [](const Operators& o) -> const OperatorCommon* { return o.nfd ? &*o.nfd : nullptr; };
  d.in_mutable = [](Operators& o) -> OperatorCommon* { return o.nfd ? &*o.nfd : nullptr; };
  d.read = ReadNfd;
  d.agent_capabilities = [](const Profile&) {
    std::vector<Capability> out;
    Add(out, K::kNodeLabel, "feature.node.kubernetes.io/*");
    return out;
  };
  return d;
}

// NVIDIA/gpu-operator controllers/clusterpolicy_controller.go: the operator acts on the first
// ClusterPolicy and marks every other one ignored (BARCELONA-LIVE.md). OLM: package
// gpu-operator-certified in certified-operators, channel v<YY.M> (bundle/metadata/
// annotations.yaml: each bundle's default; model/operators.cc derives it from the version).
// Helm (seed 004, oci-hpc-oke README @001cbb9): nvidia/gpu-operator from NGC.
OperatorFacts GpuOperatorDefinition() {
  OperatorFacts d;
  d.key = "gpu_operator";
  d.title = "the GPU Operator";
  d.openshift = true;
  d.kubernetes = true;
  d.default_on_openshift = true;
  d.default_on_kubernetes = true;
  d.olm = {"nvidia-gpu-operator", "gpu-operator-certified", "stable", "certified-operators", "", ""};
  d.chart = {"gpu-operator", "", "", "", "gpu-operator", "https://helm.ngc.nvidia.com/nvidia"};
  d.crd_groups = {"nvidia.com"};
  d.singletons = {{"ClusterPolicy", "nvidia.com/v1", "",
                   "the GPU Operator acts on one ClusterPolicy and ignores any other"}};
  d.agents = "the GPU device plugin, GPU labels, the driver where it deploys one";
  // The certified bundle on registry.connect.redhat.com; the operator and every operand
  // (driver, toolkit, device plugin, DCGM...) on nvcr.io.
  d.olm_registries = {"nvcr.io", "registry.connect.redhat.com"};
  d.gpudirect_provider = true;
  d.release = {"gpu_operator", "GPU Operator", true,
               "its CSV name is guessed (gpu-operator-certified.<version>) and the OpenShift "
               "versions it supports are unknown",
               "`hkimgen images` and -o imageset leave out the chart's own images (operator, "
               "device plugin, toolkit, DCGM exporter, ...), so a mirror misses them",
               [](const std::string& v) { return FindGpuOperatorRelease(v).has_value(); },
               [] { return Versions(GpuOperatorReleases()); }, KnownGpuOperatorVersions};
  d.in = [](const Operators& o) -> const OperatorCommon* {
    return o.gpu_operator ? &*o.gpu_operator : nullptr;
  };
  d.in_mutable = [](Operators& o) -> OperatorCommon* {
    return o.gpu_operator ? &*o.gpu_operator : nullptr;
  };
  d.read = ReadGpuOperator;
  d.agent_capabilities = [](const Profile& p) {
    std::vector<Capability> out;
    const Operators ops = OperatorsOf(p);
    const GpuOperator gpu = ops.gpu_operator.value_or(GpuOperator{});
    Add(out, K::kResource, "nvidia.com/gpu");
    Add(out, K::kNodeLabel, "nvidia.com/gpu.*");  // GPU feature discovery
    // The chart deploys NFD by default (nfd.enabled); on OpenShift the NFD operator does.
    if (!p.IsOpenShift()) Add(out, K::kNodeLabel, "feature.node.kubernetes.io/*");
    // driver.rdma and kernelModuleType act only where the operator deploys the driver
    // (BRINGUP-FACTS §3); with a host driver GPUDirect is the host's.
    const GpuDirectSettings rdma = ResolveGpuDirect(gpu, p.nccl.gpudirect);
    if (gpu.driver_enabled && rdma.mode != GpuOperatorRdma::kOff)
      Add(out, K::kGpuDirect, ToString(rdma.mode));
    return out;
  };
  d.shared_settings = [](const Profile& p) {
    const GpuOperator& gpu = *p.operators->gpu_operator;
    return std::vector<SharedSetting>{
        {"version", gpu.version},
        {"driver.enabled", Bool(gpu.driver_enabled)},
        {"use_host_mofed", Bool(gpu.use_host_mofed)},
        {"GPUDirect RDMA", ToString(ResolveGpuDirect(gpu, p.nccl.gpudirect).mode)}};
  };
  return d;
}

// Mellanox/network-operator: the NicClusterPolicy controller reconciles only the one named
// nic-cluster-policy (api/v1alpha1 NicClusterPolicyCRDName). Helm: nvidia/network-operator
// from NGC (seed 004).
OperatorFacts NetworkOperatorDefinition() {
  OperatorFacts d;
  d.key = "network_operator";
  d.title = "the NVIDIA Network Operator";
  d.kubernetes = true;
  d.default_on_kubernetes = true;
  d.chart = {"network-operator", "", "", "", "network-operator",
             "https://helm.ngc.nvidia.com/nvidia"};
  d.crd_groups = {"mellanox.com", "nv-ipam.nvidia.com"};
  d.singletons = {{"NicClusterPolicy", "mellanox.com/v1alpha1", "nic-cluster-policy",
                   "the Network Operator reconciles only the NicClusterPolicy named "
                   "nic-cluster-policy"}};
  d.agents = "the RDMA device plugin, Multus, CNI plugins, nv-ipam";
  d.sharing_note =
      "the owner's NicClusterPolicy then serves every profile, so its "
      "network.sriov_device_plugin.device_ids must list every profile's NIC device IDs";
  d.release = {"network_operator", "Network Operator", false, "",
               "the NicClusterPolicy's component images and the CNI DaemonSets follow the newest "
               "catalog release instead, and `hkimgen images` leaves out the chart's operator "
               "image",
               [](const std::string& v) { return FindNetworkOperatorRelease(v).has_value(); },
               [] { return Versions(NetworkOperatorReleases()); }, KnownNetworkOperatorVersions};
  d.in = [](const Operators& o) -> const OperatorCommon* {
    return o.network_operator ? &*o.network_operator : nullptr;
  };
  d.in_mutable = [](Operators& o) -> OperatorCommon* {
    return o.network_operator ? &*o.network_operator : nullptr;
  };
  d.read = ReadNetworkOperator;
  d.agent_capabilities = [](const Profile& p) {
    std::vector<Capability> out;
    const Operators ops = OperatorsOf(p);
    const bool secondary = !ops.network_operator || ops.network_operator->secondary_network;
    if (secondary) {
      Add(out, K::kCrd, "k8s.cni.cncf.io/*");  // Multus brings the NAD CRD
      for (const std::string& plugin : StandardCniPlugins()) Add(out, K::kCniPlugin, plugin);
    }
    bool uses_nv_ipam = false;
    for (const Rail& rail : p.network.rails) uses_nv_ipam |= rail.ipam.type == IpamType::kNvIpam;
    if (uses_nv_ipam) Add(out, K::kCniPlugin, "nv-ipam");
    if (p.network.sriov_device_plugin)
      Add(out, K::kResource, p.network.sriov_device_plugin->ExtendedResourceName());
    return out;
  };
  d.shared_settings = [](const Profile& p) {
    const NetworkOperator& net = *p.operators->network_operator;
    return std::vector<SharedSetting>{{"version", net.version},
                                      {"secondary_network", Bool(net.secondary_network)}};
  };
  return d;
}

// The OKE bundle's VF DaemonSet (plan/operators/oke.cc PlanVfConfig) with its SR-IOV and RDMA
// CNI DaemonSets; preinstalled: the nodes' image does the same (operators.vf_config in the
// schema). No OLM package or chart: the bundle renders its DaemonSets itself.
OperatorFacts VfConfigDefinition() {
  OperatorFacts d;
  d.key = "vf_config";
  d.title = "the VF DaemonSet (vf_config)";
  d.kubernetes = true;
  d.default_on_kubernetes = true;
  d.agents =
      "the rails' VFs, the SR-IOV and RDMA CNI, the RDMA exclusive netns mode, "
      "nvidia_peermem with the host's GPU driver";
  d.in = [](const Operators& o) -> const OperatorCommon* {
    return o.vf_config ? &*o.vf_config : nullptr;
  };
  d.in_mutable = [](Operators& o) -> OperatorCommon* {
    return o.vf_config ? &*o.vf_config : nullptr;
  };
  d.read = ReadVfConfig;
  // What PlanVfConfig's DaemonSets provide: the CNI plugins the rails' NAD chains, the rdma
  // CNI's exclusive netns mode, and the host's nvidia_peermem.
  d.agent_capabilities = [](const Profile& p) {
    std::vector<Capability> out;
    for (const char* plugin : {"sriov", "rdma"}) Add(out, K::kCniPlugin, plugin);
    Add(out, K::kRdmaNetns, "exclusive");
    if (LoadsHostPeermem(p)) Add(out, K::kGpuDirect, "nvidia-peermem");
    return out;
  };
  return d;
}

// volcano-sh/volcano: its chart from volcano-sh/helm-charts; the CRD groups of
// installer/helm/chart/volcano/crd.
OperatorFacts VolcanoDefinition() {
  OperatorFacts d;
  d.key = "volcano";
  d.title = "Volcano";
  d.kubernetes = true;
  d.chart = {"volcano-system", "", "", "", "volcano", "https://volcano-sh.github.io/helm-charts"};
  d.crd_groups = {"batch.volcano.sh",      "bus.volcano.sh",        "flow.volcano.sh",
                  "nodeinfo.volcano.sh",   "scheduling.volcano.sh", "topology.volcano.sh"};
  d.agents = "the Volcano scheduler";
  d.release = {"volcano", "Volcano", false, "",
               "the chart revision may not exist in the Volcano chart index, and `hkimgen images` "
               "and -o imageset list none of its images, so a mirror misses them",
               [](const std::string& v) { return FindVolcanoRelease(v).has_value(); },
               [] { return Versions(VolcanoReleases()); }, KnownVolcanoVersions};
  d.in = [](const Operators& o) -> const OperatorCommon* {
    return o.volcano ? &*o.volcano : nullptr;
  };
  d.in_mutable = [](Operators& o) -> OperatorCommon* { return o.volcano ? &*o.volcano : nullptr; };
  d.read = ReadVolcano;
  return d;
}

// kubernetes-sigs/kueue config/components/crd: every Kueue kind is in kueue.x-k8s.io. Helm: the
// released charts ("Install with Helm"; oci-hpc-oke installs the same chart). OpenShift: the Red
// Hat build of Kueue (openshift/kueue-operator bundle: package kueue-operator, channel stable,
// suggested namespace openshift-kueue-operator), preinstalled only (model/scheduling.cc).
OperatorFacts KueueDefinition() {
  OperatorFacts d;
  d.key = "kueue";
  d.title = "Kueue";
  d.openshift = true;
  d.kubernetes = true;
  d.olm = {"openshift-kueue-operator", "kueue-operator", "stable", "redhat-operators", "", ""};
  d.chart = {"kueue-system", "", "", "", "kueue", "oci://registry.k8s.io/kueue/charts"};
  d.crd_groups = {"kueue.x-k8s.io"};
  d.agents = "job queueing and topology-aware scheduling";
  d.managed_on_openshift = false;
  // Kueue decides the API version the bundle sends (kueue.x-k8s.io/v1beta1 or v1beta2) and,
  // where the bundle installs it, the chart.
  const char* loses =
      "the kueue.x-k8s.io API version it serves is guessed from its number, and `hkimgen images` "
      "names a controller image no release was published with";
  d.release = {"kueue", "Kueue", true, loses, loses,
               [](const std::string& v) { return FindKueueRelease(v).has_value(); },
               [] { return Versions(KueueReleases()); }, KnownKueueVersions};
  d.in = [](const Operators& o) -> const OperatorCommon* { return o.kueue ? &*o.kueue : nullptr; };
  d.in_mutable = [](Operators& o) -> OperatorCommon* { return o.kueue ? &*o.kueue : nullptr; };
  d.read = ReadKueue;
  return d;
}

std::vector<OperatorFacts> MakeCatalog() {
  // The order the profile's schema lists them: every loop over the catalogue reports in it.
  return {SriovNetworkOperatorDefinition(), NfdDefinition(),     GpuOperatorDefinition(),
          NetworkOperatorDefinition(),      VfConfigDefinition(), VolcanoDefinition(),
          KueueDefinition()};
}

}  // namespace

const OperatorFacts& SriovNetworkOperatorFacts() { return OperatorCatalog()[0]; }
const OperatorFacts& NfdFacts() { return OperatorCatalog()[1]; }
const OperatorFacts& GpuOperatorFacts() { return OperatorCatalog()[2]; }
const OperatorFacts& NetworkOperatorFacts() { return OperatorCatalog()[3]; }
const OperatorFacts& VfConfigFacts() { return OperatorCatalog()[4]; }
const OperatorFacts& VolcanoFacts() { return OperatorCatalog()[5]; }
const OperatorFacts& KueueFacts() { return OperatorCatalog()[6]; }

const InstallSource& OperatorFacts::InstallOn(bool on_openshift) const {
  if (on_openshift) return olm.package.empty() ? chart : olm;
  return chart.chart.empty() ? olm : chart;
}

const std::vector<OperatorFacts>& OperatorCatalog() {
  static const std::vector<OperatorFacts> catalog = MakeCatalog();
  return catalog;
}

const OperatorFacts* FindOperatorFacts(const std::string& key) {
  for (const OperatorFacts& facts : OperatorCatalog())
    if (facts.key == key) return &facts;
  return nullptr;
}

const OperatorFacts& FactsOf(const OperatorCommon& op) {
  const OperatorFacts* facts = FindOperatorFacts(op.key);
  // Every typed operator is read from its row (ReadOperators), which sets its key.
  return facts ? *facts : OperatorCatalog().front();
}

const OperatorFacts* OperatorOfSingletonKind(const std::string& kind) {
  for (const OperatorFacts& facts : OperatorCatalog())
    for (const SingletonCr& cr : facts.singletons)
      if (cr.kind == kind) return &facts;
  return nullptr;
}

const OperatorCommon* OperatorByKey(const Operators& ops, const std::string& key) {
  const OperatorFacts* facts = FindOperatorFacts(key);
  return facts ? facts->in(ops) : nullptr;
}

Operators OperatorsOf(const Profile& p) {
  if (p.operators) return *p.operators;
  Operators ops = ReadOperators(nlohmann::json::object(), p.IsOpenShift(), p.cluster_name);
  // Without an operators section the bundle installs none; scheduling.kueue still needs Kueue.
  if (p.scheduling.kueue) {
    const OperatorFacts& kueue = KueueFacts();
    kueue.read(kueue, nlohmann::json::object(), p.IsOpenShift(), p.cluster_name, ops);
  }
  return ops;
}

const std::vector<std::string>& StandardCniPlugins() {
  // containernetworking/plugins: plugins/main, plugins/ipam, plugins/meta (BRINGUP-FACTS §7).
  static const std::vector<std::string> plugins = {
      "bridge", "host-device", "ipvlan", "loopback", "macvlan", "ptp", "vlan", "dummy", "tap",
      "dhcp", "host-local", "static", "bandwidth", "firewall", "portmap", "sbr", "tuning", "vrf"};
  return plugins;
}

bool LoadsHostPeermem(const Profile& p) {
  if (!p.operators || !p.operators->gpu_operator) return false;
  const GpuOperator& gpu = *p.operators->gpu_operator;
  // Whoever installed the GPU Operator (this bundle, another profile, the cluster's admins), a
  // host driver leaves nvidia_peermem to the node: the profile's driver settings say which.
  if (gpu.driver_enabled) return false;
  return ResolveGpuDirect(gpu, p.nccl.gpudirect).mode == GpuOperatorRdma::kNvidiaPeermem;
}

}  // namespace hkim
