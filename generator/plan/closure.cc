// Closure check (closure.h): the bundle's needs against its own objects, the platform and the
// preconditions. The platform's facts and what an operator installed elsewhere provides are data
// here, each with where it comes from.

#include "plan/closure.h"

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

const OperatorCommon* FindOperator(const Operators& ops, const std::string& key) {
  if (key == "sriov_network_operator" && ops.sriov_network_operator) return &*ops.sriov_network_operator;
  if (key == "nfd" && ops.nfd) return &*ops.nfd;
  if (key == "gpu_operator" && ops.gpu_operator) return &*ops.gpu_operator;
  if (key == "network_operator" && ops.network_operator) return &*ops.network_operator;
  if (key == "volcano" && ops.volcano) return &*ops.volcano;
  return nullptr;
}

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

struct Provider {
  Capability what;
  int wave;
  const PlannedObject* object;
};

std::string Describe(const PlannedObject& o) {
  return o.kind + " " + (o.namespace_name.empty() ? "" : o.namespace_name + "/") + o.name +
         " (wave " + std::to_string(o.sync_wave) + ")";
}

/// What to write in `preconditions` to declare a need met by the cluster.
std::string DeclareHint(K kind, const std::string& name, const std::string& check) {
  // GPUDirect comes from the host's driver when the bundle does not deploy it.
  if (kind == K::kGpuDirect)
    return "preconditions: [{kind: host-driver, what: " +
           (name == "any" ? std::string("nvidia-peermem (or dmabuf)") : name) +
           ", why: <the host's driver provides it>, check: " + check + "}]";
  return "preconditions: [{kind: " + std::string(ToString(kind)) + ", what: " + name +
         ", why: <who provides it>, check: " + check + "}]";
}

std::string CheckCommand(const Profile& p, K kind, const std::string& name) {
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

/// How the bundle itself could meet the need (first half of a fix).
std::string ProviderHint(const Profile& p, K kind, const std::string& name) {
  switch (kind) {
    case K::kCrd:
      return "let the bundle install the operator that defines " + name + " (operators.<name>.install: managed)";
    case K::kCniPlugin:
      if (name == "sriov" || name == "rdma")
        return std::string("install the ") + (name == "sriov" ? "SR-IOV" : "RDMA") + " CNI from the bundle (" +
               (p.IsOpenShift() ? "operators.sriov_network_operator" : "the network operator's SR-IOV Network Operator or a CNI DaemonSet") + ")";
      if (name == "nv-ipam") return "deploy nv-ipam from the NicClusterPolicy (network.nv_ipam)";
      return "keep operators.network_operator.secondary_network on (the NicClusterPolicy's cniPlugins)";
    case K::kRdmaNetns:
      return "put the GPU nodes' RDMA subsystem in exclusive network-namespace mode from the bundle "
             "(OKE: the VF DaemonSet; OpenShift: a SriovNetworkPoolConfig with rdmaMode: exclusive)";
    case K::kResource:
      if (name == "nvidia.com/gpu") return "let the bundle install the GPU Operator (operators.gpu_operator.install: managed)";
      return "give the resource a producer in the bundle (a SriovNetworkNodePolicy, or network.sriov_device_plugin with this resource)";
    case K::kNodeLabel:
      if (name.rfind("nvidia.com/gpu.", 0) == 0) return "let the bundle install the GPU Operator (its GPU feature discovery sets " + name + ")";
      if (name.rfind("feature.node.kubernetes.io/", 0) == 0) return "let the bundle install NFD (operators.nfd.install: managed)";
      return "select the nodes by a label the platform sets (node.kubernetes.io/instance-type), or label them (" +
             std::string(p.IsOpenShift() ? "oc" : "kubectl") + " label node NODE " + name + "=)";
    case K::kMachineConfigPool:
      return "let the bundle create the pool (iommu.machine_config_pool: create)";
    case K::kToleration:
      return "let the node agent tolerate the taint too";
    case K::kGpuDirect:
      return "let the GPU Operator deploy the driver with GPUDirect RDMA (operators.gpu_operator.driver.enabled: true), or "
             "set nccl.gpudirect to what the host's driver gives";
    case K::kImage:
      return p.images.enabled() ? "name the image so that images.mirror (" + p.images.mirror + ") rewrites it (a fully qualified reference)"
                                : "pull it from a registry the nodes reach";
  }
  return "";
}

const char* Consequence(K kind) {
  switch (kind) {
    case K::kCrd: return "Argo CD cannot sync it (no matches for kind)";
    case K::kCniPlugin: return "pods that attach the network stay in ContainerCreating (failed to find plugin)";
    case K::kRdmaNetns: return "the RDMA CNI refuses to move the RDMA device into the pod (it needs exclusive mode)";
    case K::kResource: return "pods that request it stay Pending";
    case K::kNodeLabel: return "it selects no node";
    case K::kMachineConfigPool: return "its MachineConfigs apply to no node";
    case K::kToleration: return "";
    case K::kGpuDirect: return "NCCL stages every transfer through host memory (or fails where GPUDirect is required)";
    case K::kImage: return "a disconnected cluster cannot pull it: the pod stays in ImagePullBackOff";
  }
  return "";
}

bool PreconditionCovers(const Profile& p, const Precondition& pre, const Capability& need) {
  if (pre.kind == ToString(need.kind)) return CapabilityMatches(need.kind, pre.what, need.name);
  if (pre.kind == "host-driver") return need.kind == K::kGpuDirect && CapabilityMatches(need.kind, pre.what, need.name);
  if (pre.kind == "operator") {
    for (const Capability& c : OperatorScope(p, pre.what))
      if (c.kind == need.kind && CapabilityMatches(c.kind, c.name, need.name)) return true;
  }
  return false;
}

struct ClosureRule {
  K kind;
  const char* id;
  const char* summary;
};

const ClosureRule kRules[] = {
    {K::kCrd, "closure.crd", "an object whose CRD neither the bundle (an earlier wave), the platform nor a precondition provides"},
    {K::kCniPlugin, "closure.cni-plugin", "a CNI plugin or IPAM type a NAD chains that nothing installs or declares"},
    {K::kRdmaNetns, "closure.rdma-netns", "a NAD chains the RDMA CNI but nothing sets the RDMA subsystem to exclusive netns mode"},
    {K::kResource, "closure.resource", "an extended resource pods request that nothing advertises or declares"},
    {K::kNodeLabel, "closure.node-label", "a node label a selector needs that nothing sets or declares"},
    {K::kMachineConfigPool, "closure.machine-config-pool", "MachineConfigs of a role whose pool neither the bundle nor a precondition provides"},
    {K::kToleration, "closure.toleration", "a taint the workload tolerates that a node agent of the bundle does not tolerate"},
    {K::kGpuDirect, "closure.gpudirect", "GPUDirect RDMA that neither the bundle's GPU Operator nor a host-driver precondition provides"},
    {K::kImage, "closure.image", "an image outside images.mirror that no precondition lets the nodes pull"},
};

const char* RuleId(K kind) {
  for (const ClosureRule& rule : kRules)
    if (rule.kind == kind) return rule.id;
  return "internal.closure-kind";  // every kind has a rule above
}

void Report(const LoadedProfile& loaded, K kind, const std::string& pointer, std::string message,
            std::string fix, DiagnosticSink& sink) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.location = loaded.locations.Find(pointer);
  if (d.location.file.empty()) d.location.file = loaded.path;
  d.data_path = pointer;
  d.rule = RuleId(kind);
  d.message = std::move(message);
  d.fix = std::move(fix);
  sink.Report(std::move(d));
}

/// An agent toleration covers a taint the workload tolerates when it names the same key (or
/// every key) and value; effects are compared only where both name one.
bool Covers(const ToleratedTaint& agent, const Toleration& workload) {
  if (agent.key.empty()) return agent.exists;
  if (agent.key != workload.key) return false;
  if (!agent.exists && (workload.operator_name == "Exists" || agent.value != workload.value)) return false;
  return agent.effect.empty() || workload.effect.empty() || agent.effect == workload.effect;
}

}  // namespace

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
    const OperatorCommon* op = FindOperator(ops, key);
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

namespace {

/// What meets the needs of one bundle: its own objects (by wave), the platform and its
/// preconditions.
class NeedMatcher {
 public:
  NeedMatcher(const Profile& p, const BundlePlan& plan) : p_(p), plan_(plan), platform_(PlatformProvides(p)) {
    for (const PlannedObject& o : plan.objects)
      for (const Capability& c : o.provides) providers_.push_back(Provider{c, o.sync_wave, &o});
  }

  /// How `need` of `o` is met.
  struct Match {
    bool by_bundle_or_platform = false;
    const Provider* late = nullptr;  ///< a provider in a later wave, when none was in time
    std::vector<const Precondition*> preconditions;
  };

  Match Find(const PlannedObject& o, const Capability& what) const {
    Match m;
    for (const Capability& c : platform_)
      m.by_bundle_or_platform |= c.kind == what.kind && CapabilityMatches(c.kind, c.name, what.name);
    for (const Provider& provider : providers_) {
      if (m.by_bundle_or_platform) break;
      if (provider.what.kind != what.kind || !CapabilityMatches(what.kind, provider.what.name, what.name)) continue;
      // A CRD must be there a wave before its objects; other needs may come with them.
      const bool in_time = what.kind == K::kCrd ? provider.wave < o.sync_wave : provider.wave <= o.sync_wave;
      if (in_time) m.by_bundle_or_platform = true;
      else m.late = &provider;
    }
    for (const Precondition& pre : plan_.preconditions)
      if (PreconditionCovers(p_, pre, what)) m.preconditions.push_back(&pre);
    return m;
  }

  /// Whether this bundle provides `what` for another bundle of its cluster, in any wave: a CRD
  /// from any object, anything else (it acts on nodes) only from the objects of operator
  /// `operator_key`, whose agents serve every pool; the rest run on this profile's pool alone.
  bool ProvidesToTheCluster(const Capability& what, const std::string& operator_key) const {
    for (const Capability& c : platform_)
      if (c.kind == what.kind && CapabilityMatches(c.kind, c.name, what.name)) return true;
    for (const Provider& provider : providers_) {
      if (what.kind != K::kCrd && provider.object->operator_key != operator_key) continue;
      if (provider.what.kind == what.kind && CapabilityMatches(what.kind, provider.what.name, what.name)) return true;
    }
    for (const Precondition& pre : plan_.preconditions)
      if (PreconditionCovers(p_, pre, what)) return true;
    return false;
  }

 private:
  const Profile& p_;
  const BundlePlan& plan_;
  std::vector<Capability> platform_;
  std::vector<Provider> providers_;
};

std::string NeedPointer(const PlannedObject& o, const Need& need) {
  if (!need.pointer.empty()) return need.pointer;
  return o.source_pointer.empty() ? "/cluster/platform" : o.source_pointer;
}

bool DeclaredToleration(const BundlePlan& plan, const Toleration& t) {
  for (const Precondition& pre : plan.preconditions)
    if (pre.kind == "toleration" && CapabilityMatches(K::kToleration, pre.what, t.key)) return true;
  return false;
}

bool AgentTolerates(const PlannedObject& agent, const Toleration& t) {
  for (const ToleratedTaint& tolerated : agent.tolerates)
    if (Covers(tolerated, t)) return true;
  return false;
}

/// What the node agents of operator `key` give a node, for messages.
std::string AgentProvides(const std::string& key) {
  if (key == "gpu_operator") return "the GPU device plugin, GPU labels, the driver where it deploys one";
  if (key == "network_operator") return "the RDMA device plugin, Multus, CNI plugins, nv-ipam";
  if (key == "sriov_network_operator") return "VFs, the SR-IOV and RDMA CNI";
  return "its node agents' work";
}

/// The operator key of a `shared` operator whose implied precondition is among `pres`, or "".
std::string SharedOperatorOf(const Profile& p, const std::vector<const Precondition*>& pres) {
  if (!p.operators) return "";
  for (const Precondition* pre : pres) {
    if (pre->kind != "operator") return "";  // a declared precondition meets it as well
  }
  for (const Precondition* pre : pres) {
    const OperatorCommon* op = FindOperator(*p.operators, pre->what);
    if (op && op->install == OperatorInstall::kShared) return pre->what;
  }
  return "";
}

}  // namespace

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
                                              CheckCommand(p, K::kImage, source.first_image),
                                              source.pointer.empty() ? "/images" : source.pointer});
  }
}

int CheckClosure(const Profile& p, const LoadedProfile& loaded, const BundlePlan& plan,
                 DiagnosticSink& sink) {
  const int before = sink.ErrorCount();
  const NeedMatcher matcher(p, plan);
  // One finding per need (kind, name, pointer): four NADs chaining one plugin from one rail
  // list are one fault each, but the same rail in two namespaces is one.
  std::set<std::string> reported;
  for (const PlannedObject& o : plan.objects) {
    for (const Need& need : o.needs) {
      const Capability& what = need.what;
      const NeedMatcher::Match match = matcher.Find(o, what);
      if (match.by_bundle_or_platform || !match.preconditions.empty()) continue;
      const std::string pointer = NeedPointer(o, need);
      if (!reported.insert(std::string(ToString(what.kind)) + "|" + what.name + "|" + pointer).second) continue;
      const Provider* late = match.late;
      const std::string check = CheckCommand(p, what.kind, what.name);
      std::string message = Describe(o) + " needs " + ToString(what.kind) + " " + what.name +
                            (need.why.empty() ? "" : " (" + need.why + ")") + ", but ";
      message += late ? "its provider " + Describe(*late->object) + " comes in a later wave"
                      : "nothing in this bundle provides it, the platform does not, and no precondition declares it";
      message += std::string(": ") + Consequence(what.kind);
      std::string fix = late ? "move the provider to an earlier wave" : ProviderHint(p, what.kind, what.name);
      fix += "; or, if the cluster already has it, declare it: " + DeclareHint(what.kind, what.name, check);
      Report(loaded, what.kind, pointer, std::move(message), std::move(fix), sink);
    }
  }
  // Taints the workload tolerates: its GPU nodes may carry them, so every node agent it depends
  // on (device plugin, CNI, VF creation) must tolerate them too, or it never runs there.
  for (const Toleration& t : p.node_shape.tolerations) {
    if (t.key.empty() || DeclaredToleration(plan, t)) continue;
    for (const PlannedObject& o : plan.objects) {
      if (!o.node_agent || AgentTolerates(o, t)) continue;
      Report(loaded, K::kToleration, t.pointer,
             "the workload tolerates taint " + t.key + ", so its GPU nodes may carry it, but node agent " +
                 Describe(o) + " does not tolerate it: it never runs on those nodes, and what it provides "
                 "(devices, CNI, VFs) never appears there",
             "let " + o.kind + " " + o.name + " tolerate " + t.key +
                 " (hkimgen propagates node_shape.tolerations to the node agents it renders), or, if "
                 "the nodes never carry this taint, declare it: " +
                 DeclareHint(K::kToleration, t.key, CheckCommand(p, K::kToleration, t.key)),
             sink);
    }
  }
  return sink.ErrorCount() - before;
}

int CheckSharedClosure(const ClosureSide& sharer, const ClosureSide& owner, const std::string& key,
                       bool skip_resources, DiagnosticSink& sink) {
  const int before = sink.ErrorCount();
  const Profile& p = *sharer.profile;
  const NeedMatcher mine(p, *sharer.plan);
  const NeedMatcher theirs(*owner.profile, *owner.plan);
  const std::string owner_at = owner.loaded->path;
  std::set<std::string> reported;
  for (const PlannedObject& o : sharer.plan->objects) {
    for (const Need& need : o.needs) {
      const Capability& what = need.what;
      if (skip_resources && what.kind == K::kResource) continue;
      const NeedMatcher::Match match = mine.Find(o, what);
      if (match.by_bundle_or_platform || SharedOperatorOf(p, match.preconditions) != key) continue;
      if (theirs.ProvidesToTheCluster(what, key)) continue;
      const std::string pointer = NeedPointer(o, need);
      if (!reported.insert(std::string(ToString(what.kind)) + "|" + what.name + "|" + pointer).second) continue;
      Report(*sharer.loaded, what.kind, pointer,
             Describe(o) + " needs " + ToString(what.kind) + " " + what.name +
                 (need.why.empty() ? "" : " (" + need.why + ")") + ", which this profile leaves to the " +
                 key + " it shares (operators." + key + ".install: shared), but the bundle of " + owner_at +
                 ", the profile of this cluster that installs it, does not provide it: " + Consequence(what.kind),
             "in " + owner_at + ": " + ProviderHint(*owner.profile, what.kind, what.name) +
                 "; or install it from this profile (operators." + key + ".install: managed here, shared there)",
             sink);
    }
  }
  // The shared operator's node agents (the owner's NicClusterPolicy, GPU Operator) serve this
  // profile's nodes too: a taint only this workload tolerates keeps them off its pool.
  for (const Toleration& t : p.node_shape.tolerations) {
    if (t.key.empty() || DeclaredToleration(*sharer.plan, t)) continue;
    for (const PlannedObject& agent : owner.plan->objects) {
      if (!agent.node_agent || agent.operator_key != key || AgentTolerates(agent, t)) continue;
      Report(*sharer.loaded, K::kToleration, t.pointer,
             "the workload tolerates taint " + t.key + ", so its GPU nodes may carry it, but node agent " +
                 Describe(agent) + " of " + owner_at + " (the " + key +
                 " this profile shares) does not tolerate it: it never runs on this profile's nodes, and "
                 "what it provides (" + AgentProvides(key) + ") never appears there",
             "add the toleration to node_shape.tolerations in " + owner_at +
                 " (its node agents tolerate what its workload does; its node_selector still keeps its "
                 "own pods on its own pool), or, if these nodes never carry this taint, declare it here: " +
                 DeclareHint(K::kToleration, t.key, CheckCommand(p, K::kToleration, t.key)),
             sink);
    }
  }
  return sink.ErrorCount() - before;
}

const std::vector<RuleInfo>& ClosureRules() {
  static const std::vector<RuleInfo> rules = [] {
    std::vector<RuleInfo> out;
    for (const ClosureRule& rule : kRules) out.push_back({rule.id, Severity::kError, rule.summary});
    return out;
  }();
  return rules;
}

}  // namespace hkim
