// What the catalogue's operators provide (operator_capabilities.h).

#include "plan/operator_capabilities.h"

namespace hkim {
namespace {

using K = CapabilityKind;

void Add(std::vector<Capability>& out, K kind, const std::string& name) {
  out.push_back(Capability{kind, name});
}

}  // namespace

std::vector<Capability> OperatorCrdCapabilities(const OperatorFacts& facts) {
  std::vector<Capability> out;
  for (const std::string& group : facts.crd_groups) Add(out, K::kCrd, group + "/*");
  return out;
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

std::vector<Capability> OperatorAgentCapabilities(const Profile& p, const std::string& key) {
  std::vector<Capability> out;
  const Operators ops = OperatorsOf(p);
  if (key == "sriov_network_operator") {
    for (const char* plugin : {"sriov", "ib-sriov", "rdma"}) Add(out, K::kCniPlugin, plugin);
  } else if (key == "nfd") {
    Add(out, K::kNodeLabel, "feature.node.kubernetes.io/*");
  } else if (key == "gpu_operator") {
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
  } else if (key == "network_operator") {
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
  } else if (key == "vf_config") {
    // What PlanVfConfig's DaemonSets provide (plan/operators/oke.cc): the CNI plugins the rails'
    // NAD chains, the rdma CNI's exclusive netns mode, and the host's nvidia_peermem.
    for (const char* plugin : {"sriov", "rdma"}) Add(out, K::kCniPlugin, plugin);
    Add(out, K::kRdmaNetns, "exclusive");
    if (LoadsHostPeermem(p)) Add(out, K::kGpuDirect, "nvidia-peermem");
  }
  return out;
}

}  // namespace hkim
