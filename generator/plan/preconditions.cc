// Preconditions and what the bundle may take as given (preconditions.h): the platform's facts,
// what an operator installed outside the bundle provides, the preconditions a profile's settings
// imply and the registries its images come from. Each fact with where it comes from.

#include "plan/preconditions.h"

#include <map>
#include <set>

#include "model/image_mirror.h"
#include "model/placement.h"
#include "plan/health_consumers.h"

namespace hkim {
namespace {

using K = CapabilityKind;

std::string OperatorCheck(const Profile& p, const OperatorCommon& op) {
  return p.IsOpenShift() ? "oc get csv -n " + op.namespace_name
                         : "kubectl get pods -n " + op.namespace_name;
}

void AddDeclared(std::vector<Capability>& out, K kind, const std::string& name) {
  out.push_back(Capability{kind, name});
}

}  // namespace

bool IsOciA100Shape(const std::string& shape) {
  // The A100 bare-metal shapes of the guide: BM.GPU.A100-v2.8 (80 GB) and BM.GPU4.8 (40 GB).
  return shape.rfind("BM.GPU.A100", 0) == 0 || shape == "BM.GPU4.8";
}

std::string NodeDebugImage(const Profile& p) {
  // `oc debug node` runs the cluster's own tools image (part of the OpenShift release, which a
  // disconnected cluster mirrors with it); kubectl needs one with a shell and chroot.
  if (p.IsOpenShift()) return "";
  const std::string busybox = kNodeDebugImage;
  // A disconnected cluster reaches only the mirror: hkimgen images lists it.
  if (p.images.enabled()) return MirroredImage(p.images.mirror, busybox).value_or(busybox);
  return busybox;
}

std::string CheckImage(const std::string& check) {
  const std::string flag = "--image=";
  const size_t at = check.find(flag);
  if (at == std::string::npos) return "";
  const size_t begin = at + flag.size();
  return check.substr(begin, check.find(' ', begin) - begin);
}

std::string PreconditionCheck(const Profile& p, CapabilityKind kind, const std::string& name) {
  const std::string cli = p.IsOpenShift() ? "oc" : "kubectl";
  const std::string image = NodeDebugImage(p);
  const std::string on_node =
      cli + " debug node/NODE" + (image.empty() ? "" : " -it --image=" + image) +
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
  const OperatorFacts* facts = FindOperatorFacts(key);
  if (facts == nullptr) return {};
  std::vector<Capability> out = OperatorCrdCapabilities(*facts);
  for (Capability& c : OperatorAgentCapabilities(p, *facts)) out.push_back(std::move(c));
  return out;
}

std::vector<Capability> PlatformProvides(const Profile& p) {
  std::vector<Capability> out;
  // Kubernetes' own API groups (every object kind the bundle emits from them is built in;
  // admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy is GA since Kubernetes 1.30,
  // OpenShift 4.17).
  for (const char* group : {"", "apps", "batch", "rbac.authorization.k8s.io", "scheduling.k8s.io",
                            "policy", "networking.k8s.io", "admissionregistration.k8s.io"})
    AddDeclared(out, K::kCrd, std::string(group) + "/*");
  // Argo CD syncs the bundle, so its Application kind exists where the apps/ layer goes.
  AddDeclared(out, K::kCrd, "argoproj.io/*");
  // Node resources and labels the kubelet and the cloud provider set (Kubernetes "Well-Known
  // Labels, Annotations and Taints").
  for (const char* resource : {"cpu", "memory", "ephemeral-storage", "hugepages-*"})
    AddDeclared(out, K::kResource, resource);
  for (const char* label : {"kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os",
                            "node.kubernetes.io/instance-type", "topology.kubernetes.io/*"})
    AddDeclared(out, K::kNodeLabel, label);
  if (p.IsOpenShift()) {
    // OpenShift's own: SCCs, the Machine Config Operator with pools worker and master, OLM,
    // and Multus with the containernetworking plugins and whereabouts (OCP "Understanding
    // multiple networks"; the Barcelona NADs, sriov + whereabouts, ran on it: FACTS.md
    // Barcelona §2).
    for (const char* group : {"security.openshift.io", "machineconfiguration.openshift.io",
                              "operators.coreos.com", "config.openshift.io", "k8s.cni.cncf.io"})
      AddDeclared(out, K::kCrd, std::string(group) + "/*");
    for (const char* role : {"worker", "master"}) {
      AddDeclared(out, K::kMachineConfigPool, role);
      AddDeclared(out, K::kNodeLabel, std::string("node-role.kubernetes.io/") + role);
    }
    for (const std::string& plugin : StandardCniPlugins()) AddDeclared(out, K::kCniPlugin, plugin);
    AddDeclared(out, K::kCniPlugin, "whereabouts");
    AddDeclared(out, K::kCniPlugin, "route-override");
  }
  return out;
}

namespace {

/// OpenShift without the bundle's SriovNetworkNodePolicies (no operators section, or
/// node_policies: false): the cluster's own policies advertise the rails' resources.
template <typename AddFn>
void AddNodePolicyPreconditions(const Profile& p, const Operators& ops, AddFn add) {
  if (!p.IsOpenShift() || !p.UsesRails()) return;
  const bool renders_policies =
      p.operators && ops.sriov_network_operator && ops.sriov_network_operator->node_policies;
  if (renders_policies) return;
  const std::string pointer =
      p.operators && ops.sriov_network_operator
          ? ops.sriov_network_operator->pointer + "/node_policies"
          : "/cluster/platform";
  const std::string ns = ops.sriov_network_operator
                             ? ops.sriov_network_operator->namespace_name
                             : std::string("openshift-sriov-network-operator");
  for (const Rail& rail : p.network.rails) {
    add(Precondition{"resource", rail.resource_name,
                     "operators.sriov_network_operator.node_policies: false: the cluster's own "
                     "SriovNetworkNodePolicies advertise the rails' resources; the bundle renders none",
                     "oc get sriovnetworknodepolicies -n " + ns +
                         " -o custom-columns=NAME:.metadata.name,RESOURCE:.spec.resourceName,PF:.spec.nicSelector.pfNames",
                     pointer});
  }
}

/// The workload's first start needs as many picked nodes with their GPUs and the rails' VFs idle
/// as it has pods (one per node): other teams' pods on the pool hold them. `validate --cluster`
/// counts them where the export holds Pods (cluster.capacity).
Precondition FreeCapacityPrecondition(const Profile& p) {
  const int nodes = (p.workload.replicas + kPodsPerNode - 1) / kPodsPerNode;
  std::string selector, resources = "nvidia.com/gpu";
  for (const auto& [key, value] : p.node_shape.node_selector)
    selector += (selector.empty() ? "" : ",") + key + "=" + value;
  if (p.UsesRails()) {
    std::set<std::string> names;
    for (const Rail& rail : p.network.rails) names.insert(rail.resource_name);
    for (const std::string& name : names) resources += "|" + name;
  }
  const std::string cli = p.IsOpenShift() ? "oc" : "kubectl";
  return Precondition{
      "free-capacity", std::to_string(nodes) + " idle GPU node(s)",
      "the workload's " + std::to_string(p.workload.replicas) +
          " pod(s) start one per node, each where a node the selector picks has " +
          std::to_string(p.workload.gpus_per_pod) + " nvidia.com/gpu" +
          (p.UsesRails() ? " and the rails' VFs" : std::string()) +
          " not requested by other pods: pods of other teams on the pool keep them Pending",
      cli + " describe nodes" + (selector.empty() ? "" : " -l " + selector) +
          " | grep -E '^Name:|" + resources + "'  # expect: requests below allocatable",
      p.workload.pointer + "/replicas"};
}

}  // namespace

std::vector<Precondition> BundlePreconditions(const Profile& p) {
  std::vector<Precondition> out = p.preconditions;
  auto add = [&](Precondition pre) {
    for (const Precondition& have : out)
      if (have.kind == pre.kind && have.what == pre.what) return;
    out.push_back(std::move(pre));
  };
  // The parent Application orders its child Applications (charts, platform, nodes, workload) by
  // sync wave, and a wave waits for the one before only where Argo CD has a health check for
  // argoproj.io/Application, which it dropped from its defaults in 1.8: without it the workload
  // syncs beside the platform and leans on retries.
  const std::string argocd = p.gitops.argocd_namespace;
  add(Precondition{
      "argocd-health", "argoproj.io/Application",
      "the parent Application's sync waves order the child Applications only with Argo CD's "
      "health check for argoproj.io/Application (resource.customizations.health."
      "argoproj.io_Application in argocd-cm; on OpenShift GitOps the ArgoCD CR's "
      "spec.resourceHealthChecks); the Lua to set is in docs/sync-and-disruption.md, "
      "\"Application health\"",
      p.IsOpenShift()
          ? "oc get argocd -n " + argocd + " -o jsonpath='{.items[*].spec.resourceHealthChecks[?(@.kind==\"Application\")].kind}'"
          : "kubectl get configmap argocd-cm -n " + argocd +
                " -o jsonpath='{.data.resource\\.customizations\\.health\\.argoproj\\.io_Application}'",
      "/gitops"});
  // A single render's parent Application (application.yaml) is applied by hand into the Argo CD
  // instance of gitops.argocd_namespace, on the cluster that instance runs on; a fleet's
  // ApplicationSet creates it on the central Argo CD instead (docs/fleets.md).
  const std::string cli = p.IsOpenShift() ? "oc" : "kubectl";
  if (p.gitops.fleet_applicationset.empty()) {
    add(Precondition{
        "argocd-instance", argocd,
        "application.yaml is applied by hand (" + cli + " apply -f application.yaml) into "
        "namespace " + argocd + " of the cluster whose Argo CD syncs the bundle: an Argo CD "
        "instance must run there" +
            (p.IsOpenShift() ? " (OpenShift GitOps: its ArgoCD CR in " + argocd + ")" : ""),
        p.IsOpenShift()
            ? "oc get argocd -n " + argocd
            : "kubectl get pods -n " + argocd + " -l app.kubernetes.io/name=argocd-application-controller",
        "/gitops"});
    // The children sync to another cluster than the instance's own: Argo CD must know it.
    const std::string& server = p.gitops.destination_server;
    if (!p.gitops.destination_name.empty() || server != kInClusterServer) {
      const std::string target = p.gitops.destination_name.empty() ? server : p.gitops.destination_name;
      add(Precondition{
          "argocd-cluster", target,
          "the child Applications sync to " + target + ", which the Argo CD instance in " + argocd +
              " must have registered as a cluster (argocd cluster add CONTEXT" +
              (p.gitops.destination_name.empty() ? "" : " --name " + target) +
              "), or every child Application fails with the cluster not found; the alternative is "
              "a fleet render (hkimgen render PROFILES -d DIR), whose ApplicationSet on the "
              "central Argo CD creates the parent for each registered cluster",
          cli + " get secrets -n " + argocd +
              " -l argocd.argoproj.io/secret-type=cluster -o go-template='{{range .items}}"
              "{{.data.server | base64decode}} {{.data.name | base64decode}}{{\"\\n\"}}{{end}}'",
          p.gitops.destination_name.empty() ? "/gitops/destination_server"
                                            : "/gitops/destination_name"});
    }
  }
  const Operators ops = OperatorsOf(p);
  for (const OperatorFacts& facts : OperatorCatalog()) {
    const std::string& key = facts.key;
    const OperatorCommon* op = OperatorByKey(ops, key);
    if (!op) continue;
    std::string why;
    if (!p.operators) {
      why = "the profile has no operators section, so the bundle installs no operator";
    } else if (op->install == OperatorInstall::kPreinstalled) {
      why = "operators." + key + ".install: preinstalled (installed by other means)";
    } else if (op->install == OperatorInstall::kShared) {
      // Two bundles are two parent Applications (a fleet's ApplicationSet syncs them side by
      // side): nothing orders the owner's install before this bundle's objects that need it, so
      // the order is the operator's to check before the first sync, not the closure's.
      why = "operators." + key +
            ".install: shared: the bundle of the profile of this cluster that manages it installs it "
            "(hkimgen validate given every profile of the cluster checks that it provides what "
            "this bundle needs); nothing orders the two bundles' syncs (Argo CD orders waves only "
            "inside one Application, and between Applications only by their parent's waves), so "
            "sync that bundle first and wait until it is healthy, or this bundle's objects that "
            "need the operator fail until it runs and lean on Argo CD's retries";
    } else {
      // OKE: the bundle installs the chart, so the same operator must not run already as an OKE
      // add-on or another Helm release: two controllers would fight over its CRDs and nodes.
      if (!p.IsOpenShift() && !op->chart.empty())
        add(Precondition{"not-installed", op->chart,
                         "operators." + key + ".install: managed: the bundle installs the chart " +
                             op->chart + "; the same operator already installed as an OKE "
                             "cluster add-on or as another Helm release would fight it",
                         "helm list -A --filter '" + op->chart +
                             "'; oci ce cluster list-addons --cluster-id OCID  # expect: no "
                             "release, no NVIDIA add-on",
                         op->pointer + "/install"});
      continue;
    }
    add(Precondition{"operator", key, why, OperatorCheck(p, *op),
                     p.operators ? op->pointer + "/install" : "/cluster/platform"});
  }
  AddNodePolicyPreconditions(p, ops, add);
  add(FreeCapacityPrecondition(p));
  if (p.UsesRails() && p.network.rdma_netns == RdmaNetns::kAlreadyExclusive) {
    add(Precondition{"rdma-netns", "exclusive",
                     "network.rdma_netns: already-exclusive: the GPU nodes' RDMA subsystem runs in "
                     "exclusive netns mode already; the bundle does not switch it",
                     PreconditionCheck(p, K::kRdmaNetns, "exclusive"),
                     p.network.pointer + "/rdma_netns"});
  }
  // On OpenShift a MachineConfig lifts CRI-O's memlock (crio-ulimits); elsewhere the node image's
  // CRI-O configuration is outside what a bundle can write, so the node pool must bring it.
  if (!p.IsOpenShift() && p.security.memlock_strategy == MemlockStrategy::kCrioUlimits) {
    add(Precondition{"node-setting", "crio-memlock",
                     "security.memlock_strategy: crio-ulimits: CRI-O on the GPU nodes starts "
                     "containers with memlock unlimited (default_ulimits = [\"memlock=-1:-1\"] in "
                     "a drop-in under /etc/crio/crio.conf.d/, e.g. written by the node pool's "
                     "cloud-init); without it the limit stays CRI-O's 8 MiB and hkim-wrapper "
                     "stops the job with the fix",
                     "kubectl debug node/NODE -it --image=" + NodeDebugImage(p) +
                         " -- chroot /host grep -rh default_ulimits /etc/crio/",
                     p.security.pointer + "/memlock_strategy"});
  }
  for (size_t i = 0; i < p.iommu.already_set.size(); ++i) {
    const std::string& argument = p.iommu.already_set[i];
    add(Precondition{"kernel-arg", argument,
                     "iommu.already_set: the pool's nodes boot with " + argument +
                         " already (a MachineConfig the cluster's admins own); the bundle renders "
                         "no MachineConfig for it",
                     std::string(p.IsOpenShift() ? "oc" : "kubectl") +
                         " debug node/NODE -- chroot /host cat /proc/cmdline",
                     p.iommu.pointer + "/already_set/" + std::to_string(i)});
  }
  // OCI creates SR-IOV VFs on its A100 bare-metal shapes only in some regions (seed 004, the
  // oci-hpc-oke guide: "For A100s, Phoenix (PHX) and Osaka (KIX) regions are supported. For
  // other regions, please contact your sales representative"; H100: every region with H100s).
  if (p.platform == Platform::kOke && p.UsesRails() && IsOciA100Shape(p.node_shape.name)) {
    add(Precondition{"oci-region", "sriov-vfs/" + p.node_shape.name,
                     "OCI creates SR-IOV VFs on A100 shapes (" + p.node_shape.name +
                         ") only in some regions: Phoenix (PHX, us-phoenix-1) and Osaka (KIX, "
                         "ap-osaka-1); elsewhere ask OCI (your sales representative) to enable "
                         "them, or the nodes get no VFs and the pods stay Pending",
                     "kubectl get nodes -l node.kubernetes.io/instance-type=" + p.node_shape.name +
                         " -L topology.kubernetes.io/region",
                     p.node_shape.pointer + "/name"});
  }
  // scheduling.kueue on OKE: OCI labels the nodes of a cluster network with their RDMA fabric
  // position (oci-hpc-oke's Topology uses the same labels); the bundle labels no node. Other
  // platforms' rack labels are the admins': the profile declares them (closure.node-label).
  if (p.scheduling.kueue && p.platform == Platform::kOke) {
    const KueueScheduling& k = *p.scheduling.kueue;
    for (size_t i = 0; i < k.levels.size(); ++i) {
      if (k.levels[i].rfind("oci.oraclecloud.com/rdma.", 0) != 0) continue;
      add(Precondition{"node-label", k.levels[i],
                       "scheduling.kueue.levels: OCI sets " + k.levels[i] +
                           " on the GPU nodes of a cluster network (their RDMA fabric position); "
                           "the bundle labels no node",
                       "kubectl get nodes -L " + k.levels[i],
                       k.levels_set ? k.pointer + "/levels/" + std::to_string(i) : k.pointer});
    }
  }
  for (Precondition& pre : ConsumerPreconditions(p)) add(std::move(pre));
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
      add(Precondition{"node-label", "node-role.kubernetes.io/" + role,
                       "iommu.machine_config_pool: existing: the cluster's admins label the pool's "
                       "nodes node-role.kubernetes.io/" + role + "; the bundle labels no node",
                       "oc get nodes -l node-role.kubernetes.io/" + role,
                       p.iommu.pointer + "/machine_config_pool"});
    }
  }
  return out;
}

void DropUnusedPoolPreconditions(const Profile& p, BundlePlan& plan) {
  const std::string& role = p.iommu.machine_config_role;
  const std::string label = "node-role.kubernetes.io/" + role;
  for (const PlannedObject& o : plan.objects) {
    if (o.kind == "MachineConfigPool") return;
    for (const Need& need : o.needs) {
      if (need.what.kind == K::kMachineConfigPool && need.what.name == role) return;
      if (need.what.kind == K::kNodeLabel && need.what.name == label) return;
    }
  }
  const std::string pointer = p.iommu.pointer + "/machine_config_pool";
  std::erase_if(plan.preconditions, [&](const Precondition& pre) {
    return pre.pointer == pointer && (pre.kind == "machine-config-pool" || pre.kind == "node-label");
  });
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
