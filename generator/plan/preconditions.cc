// Preconditions and what the bundle may take as given (preconditions.h): the platform's facts,
// what an operator installed outside the bundle provides, the preconditions a profile's settings
// imply and the registries its images come from. Each fact with where it comes from.

#include "plan/preconditions.h"

#include <map>
#include <set>

#include "model/image_mirror.h"

namespace hkim {
namespace {

using K = CapabilityKind;

// containernetworking/plugins (plugins/main, plugins/ipam, plugins/meta): what the NicClusterPolicy
// `secondaryNetwork.cniPlugins` image installs (BRINGUP-FACTS §7, "bridge, tuning, sbr, ...") and
// what OpenShift's Multus DaemonSet copies onto every node.
constexpr const char* kStandardCniPlugins[] = {
    "bridge", "host-device", "ipvlan", "loopback", "macvlan", "ptp", "vlan", "dummy", "tap",
    "dhcp", "host-local", "static", "bandwidth", "firewall", "portmap", "sbr", "tuning", "vrf"};

const char* const kOperatorKeys[] = {"sriov_network_operator", "nfd", "gpu_operator",
                                     "network_operator", "volcano"};

}  // namespace

const OperatorCommon* OperatorByKey(const Operators& ops, const std::string& key) {
  if (key == "sriov_network_operator" && ops.sriov_network_operator) return &*ops.sriov_network_operator;
  if (key == "nfd" && ops.nfd) return &*ops.nfd;
  if (key == "gpu_operator" && ops.gpu_operator) return &*ops.gpu_operator;
  if (key == "network_operator" && ops.network_operator) return &*ops.network_operator;
  if (key == "volcano" && ops.volcano) return &*ops.volcano;
  return nullptr;
}

namespace {

/// The profile's operators, or the platform's defaults when it has no `operators` section
/// (then none is installed by the bundle: each is an implied precondition).
Operators OperatorsOf(const Profile& p) {
  return p.operators ? *p.operators
                     : ReadOperators(nlohmann::json::object(), p.IsOpenShift(), p.cluster_name);
}

std::string OperatorCheck(const Profile& p, const OperatorCommon& op) {
  return p.IsOpenShift() ? "oc get csv -n " + op.namespace_name
                         : "kubectl get pods -n " + op.namespace_name;
}

void Add(std::vector<Capability>& out, K kind, const std::string& name) {
  out.push_back(Capability{kind, name});
}

}  // namespace

std::string PreconditionCheck(const Profile& p, CapabilityKind kind, const std::string& name) {
  const std::string cli = p.IsOpenShift() ? "oc" : "kubectl";
  const std::string on_node =
      cli + " debug node/NODE" + (p.IsOpenShift() ? "" : " -it --image=docker.io/library/busybox") +
      " -- chroot /host ";
  switch (kind) {
    case K::kCrd: return cli + " api-resources --api-group=" + name.substr(0, name.find('/'));
    case K::kCniPlugin: return on_node + "ls /opt/cni/bin/" + name;
    case K::kRdmaNetns: return on_node + "rdma system show";
    case K::kResource: return cli + " describe nodes | grep " + name;
    case K::kNodeLabel: return cli + " get nodes -l " + name;
    case K::kMachineConfigPool: return "oc get machineconfigpool " + name;
    case K::kToleration: return cli + " get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints";
    case K::kGpuDirect:
      return on_node + (name == "dmabuf" ? "cat /proc/driver/nvidia/version" : "lsmod | grep nvidia_peermem");
    case K::kImage: return on_node + "crictl pull " + name;
  }
  return cli;
}

std::vector<Capability> OperatorScope(const Profile& p, const std::string& key) {
  std::vector<Capability> out;
  const Operators ops = OperatorsOf(p);
  if (key == "sriov_network_operator") {
    // The operator's config daemon installs the SR-IOV CNI and its InfiniBand variant.
    Add(out, K::kCrd, "sriovnetwork.openshift.io/*");
    Add(out, K::kCniPlugin, "sriov");
    Add(out, K::kCniPlugin, "ib-sriov");
    // Without the bundle's policies (no operators section, or node_policies off) the cluster's
    // own SriovNetworkNodePolicies advertise the rails' resources.
    if (!p.operators || !ops.sriov_network_operator || !ops.sriov_network_operator->node_policies)
      for (const Rail& rail : p.network.rails) Add(out, K::kResource, rail.resource_name);
  } else if (key == "nfd") {
    Add(out, K::kCrd, "nfd.openshift.io/*");
    Add(out, K::kCrd, "nfd.k8s-sigs.io/*");
    Add(out, K::kNodeLabel, "feature.node.kubernetes.io/*");
  } else if (key == "gpu_operator") {
    const GpuOperator gpu = ops.gpu_operator.value_or(GpuOperator{});
    Add(out, K::kCrd, "nvidia.com/*");
    Add(out, K::kResource, "nvidia.com/gpu");
    Add(out, K::kNodeLabel, "nvidia.com/gpu.*");  // GPU feature discovery
    // The chart deploys NFD by default (nfd.enabled); on OpenShift the NFD operator does.
    if (!p.IsOpenShift()) Add(out, K::kNodeLabel, "feature.node.kubernetes.io/*");
    // driver.rdma and kernelModuleType only act where the operator deploys the driver
    // (BRINGUP-FACTS §3); with a host driver GPUDirect is the host's (host-driver precondition).
    const GpuDirectSettings rdma = ResolveGpuDirect(gpu, p.nccl.gpudirect);
    if (gpu.driver_enabled && rdma.mode != GpuOperatorRdma::kOff)
      Add(out, K::kGpuDirect, ToString(rdma.mode));
  } else if (key == "network_operator") {
    Add(out, K::kCrd, "mellanox.com/*");
    Add(out, K::kCrd, "nv-ipam.nvidia.com/*");
    const bool secondary = !ops.network_operator || ops.network_operator->secondary_network;
    if (secondary) {
      Add(out, K::kCrd, "k8s.cni.cncf.io/*");  // Multus
      for (const char* plugin : kStandardCniPlugins) Add(out, K::kCniPlugin, plugin);
    }
    Add(out, K::kCniPlugin, "nv-ipam");
    if (p.network.sriov_device_plugin)
      Add(out, K::kResource, p.network.sriov_device_plugin->ExtendedResourceName());
  } else if (key == "volcano") {
    for (const char* group : {"batch", "bus", "flow", "nodeinfo", "scheduling", "topology"})
      Add(out, K::kCrd, std::string(group) + ".volcano.sh/*");
  }
  return out;
}

std::vector<Capability> PlatformProvides(const Profile& p) {
  std::vector<Capability> out;
  // Kubernetes' own API groups (every object kind the bundle emits from them is built in).
  for (const char* group : {"", "apps", "batch", "rbac.authorization.k8s.io", "scheduling.k8s.io",
                            "policy", "networking.k8s.io"})
    Add(out, K::kCrd, std::string(group) + "/*");
  // Argo CD syncs the bundle, so its Application kind exists where the apps/ layer goes.
  Add(out, K::kCrd, "argoproj.io/*");
  // Node resources and labels the kubelet and the cloud provider set (Kubernetes "Well-Known
  // Labels, Annotations and Taints").
  for (const char* resource : {"cpu", "memory", "ephemeral-storage", "hugepages-*"})
    Add(out, K::kResource, resource);
  for (const char* label : {"kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os",
                            "node.kubernetes.io/instance-type", "topology.kubernetes.io/*"})
    Add(out, K::kNodeLabel, label);
  if (p.IsOpenShift()) {
    // OpenShift's own: SCCs, the Machine Config Operator with pools worker and master, OLM,
    // and Multus with the containernetworking plugins and whereabouts (OCP "Understanding
    // multiple networks"; the Barcelona NADs, sriov + whereabouts, ran on it: FACTS.md
    // Barcelona §2).
    for (const char* group : {"security.openshift.io", "machineconfiguration.openshift.io",
                              "operators.coreos.com", "config.openshift.io", "k8s.cni.cncf.io"})
      Add(out, K::kCrd, std::string(group) + "/*");
    for (const char* role : {"worker", "master"}) {
      Add(out, K::kMachineConfigPool, role);
      Add(out, K::kNodeLabel, std::string("node-role.kubernetes.io/") + role);
    }
    for (const char* plugin : kStandardCniPlugins) Add(out, K::kCniPlugin, plugin);
    Add(out, K::kCniPlugin, "whereabouts");
    Add(out, K::kCniPlugin, "route-override");
  }
  return out;
}

std::vector<Precondition> BundlePreconditions(const Profile& p) {
  std::vector<Precondition> out = p.preconditions;
  auto add = [&](Precondition pre) {
    for (const Precondition& have : out)
      if (have.kind == pre.kind && have.what == pre.what) return;
    out.push_back(std::move(pre));
  };
  const Operators ops = OperatorsOf(p);
  for (const char* key : kOperatorKeys) {
    const OperatorCommon* op = OperatorByKey(ops, key);
    if (!op) continue;
    std::string why;
    if (!p.operators) {
      why = "the profile has no operators section, so the bundle installs no operator";
    } else if (op->install == OperatorInstall::kPreinstalled) {
      why = std::string("operators.") + key + ".install: preinstalled (installed by other means)";
    } else if (op->install == OperatorInstall::kShared) {
      why = std::string("operators.") + key +
            ".install: shared: the bundle of the profile of this cluster that manages it installs it "
            "(hkimgen validate given every profile of the cluster checks that it provides what "
            "this bundle needs)";
    } else {
      continue;
    }
    add(Precondition{"operator", key, why, OperatorCheck(p, *op),
                     p.operators ? op->pointer + "/install" : "/cluster/platform"});
  }
  const std::string& role = p.iommu.machine_config_role;
  if (p.IsOpenShift() && role != "worker" && role != "master") {
    if (p.iommu.create_pool) {
      add(Precondition{"node-label", "node-role.kubernetes.io/" + role,
                       "iommu.machine_config_pool: create: the bundle's MachineConfigPool takes the "
                       "nodes labelled node-role.kubernetes.io/" + role + "; the bundle labels no node",
                       "oc get nodes -l node-role.kubernetes.io/" + role,
                       p.iommu.pointer + "/machine_config_pool"});
    } else {
      add(Precondition{"machine-config-pool", role,
                       "iommu.machine_config_pool: existing: the cluster's admins own the pool",
                       "oc get machineconfigpool " + role, p.iommu.pointer + "/machine_config_pool"});
    }
  }
  return out;
}

void AddImagePreconditions(const Profile& p, BundlePlan& plan) {
  struct Source {
    std::string first_image, pointer;
    std::set<std::string> images;
  };
  std::map<std::string, Source> sources;  // registry (or the mirror) -> the images from it
  for (const PlannedObject& o : plan.objects) {
    for (const Need& need : o.needs) {
      const std::string& image = need.what.name;
      if (need.what.kind != K::kImage) continue;
      bool declared = false;
      for (const Precondition& pre : plan.preconditions)
        declared |= pre.kind == "image" && CapabilityMatches(K::kImage, pre.what, image);
      if (declared) continue;
      std::string from;
      if (p.images.enabled()) {
        // Only the mirror: an image outside it is closure.image (a disconnected cluster).
        if (image.rfind(p.images.mirror + "/", 0) != 0) continue;
        from = p.images.mirror;
      } else {
        const std::optional<ImageReference> ref = ParseImageReference(image);
        if (!ref) continue;  // the model refuses what does not parse
        from = ref->registry;
      }
      Source& source = sources[from];
      if (source.images.empty()) {
        source.first_image = image;
        source.pointer = need.pointer.empty() ? o.source_pointer : need.pointer;
      }
      source.images.insert(image);
    }
  }
  for (const auto& [from, source] : sources) {
    const std::string more =
        source.images.size() > 1 ? " and " + std::to_string(source.images.size() - 1) + " more" : "";
    const std::string why =
        p.images.enabled()
            ? "images.mirror: every image of the bundle is pulled from the mirror, which must hold "
              "them all (" + source.first_image + more + "; hkimgen images PROFILE -o imageset, "
              "then oc-mirror)"
            : "the bundle's images from " + from + " (" + source.first_image + more +
                  "): the nodes must reach it and be allowed to pull; behind a firewall, mirror "
                  "them and set images.mirror (hkimgen images PROFILE lists them all)";
    plan.preconditions.push_back(Precondition{"image", from + "/*", why,
                                              PreconditionCheck(p, K::kImage, source.first_image),
                                              source.pointer.empty() ? "/images" : source.pointer});
  }
}

}  // namespace hkim
