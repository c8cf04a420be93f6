// Operators and the objects the bundle renders for them: which node policy or device-plugin
// resource produces each rail's resource, VF counts, device ids, the GPU Operator's GPUDirect
// mode against nccl.gpudirect, and releases the platform supports. Rules only run when the
// profile has an `operators` section (model/operators.h).

#include <map>
#include <set>

#include "model/operator_catalog.h"
#include "model/operator_versions.h"
#include "model/placement.h"
#include "model/sriov_policy.h"
#include "lint/rules/rules.h"

namespace hkim {
namespace {

const SriovNetworkOperator* Sriov(const Profile& p) {
  if (!p.IsOpenShift() || !p.operators || !p.operators->sriov_network_operator) return nullptr;
  return &*p.operators->sriov_network_operator;
}

// OpenShift: one SriovNetworkNodePolicy per rail produces openshift.io/<resourceName> on the
// policy's nodes; each rail's resource needs exactly one, on the nodes the pods select.
void CheckNadResourceProducer(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  const SriovNetworkOperator* sriov = Sriov(p);
  if (!sriov || !sriov->node_policies || !p.UsesRails()) return;
  // Two resources on one PF (model.duplicate-resource covers one resource on two rails): the
  // operator applies one policy per PF, so one rail's resource stays empty.
  std::map<std::string, std::string> pf_rail;  // PF -> rail
  for (const Rail& rail : p.network.rails) {
    if (rail.interface_name.empty()) {
      r.Report(rail.pointer,
               "rail '" + rail.name + "' has no interface, so no SriovNetworkNodePolicy can " +
                   "select its PF (pfNames) and nothing produces '" + rail.resource_name +
                   "': the pods stay Pending",
               "set network.rails[].interface to the PF's netdev (e.g. eno5np0), or set "
               "operators.sriov_network_operator.node_policies: false if the policies exist");
      continue;
    }
    auto [it, fresh] = pf_rail.emplace(rail.interface_name, rail.name);
    if (!fresh) {
      r.Report(rail.pointer + "/interface",
               "rails '" + it->second + "' and '" + rail.name + "' both use PF " +
                   rail.interface_name + ": two node policies with different resources select " +
                   "one PF and only one of them takes effect, so '" + rail.resource_name +
                   "' may never be advertised",
               "give each rail its own PF, or attach one rail attachments_per_pod times");
    }
  }
  const auto policy_selector = PolicyNodeSelector(p, *sriov);
  for (const auto& [key, value] : policy_selector) {
    if (key.rfind("node-role.kubernetes.io/", 0) == 0) continue;  // pool membership
    auto pods = p.node_shape.node_selector.find(key);
    if (pods != p.node_shape.node_selector.end() && pods->second == value) continue;
    r.Report(sriov->pointer + "/node_selector/" + EscapeJsonPointerToken(key),
             "the node policies select " + key + "=" + value + " but the pods " +
                 (pods == p.node_shape.node_selector.end()
                      ? std::string("do not select on ") + key
                      : "select " + key + "=" + pods->second) +
                 ": pods can land on nodes where no policy created the rails' VFs",
             "make operators.sriov_network_operator.node_selector a subset of "
             "node_shape.node_selector (or drop it: the default is the shape's selector)");
  }
}

void CheckVfsPerPf(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  const SriovNetworkOperator* sriov = Sriov(p);
  if (!p.UsesRails() || !sriov || !sriov->node_policies) return;
  const Rail* busiest = nullptr;  // the rail one pod attaches most often
  for (const Rail& rail : p.network.rails) {
    if (!busiest || rail.attachments_per_pod > busiest->attachments_per_pod) busiest = &rail;
  }
  const int wanted = kPodsPerNode * busiest->attachments_per_pod;
  if (sriov->num_vfs_per_pf < wanted) {
    // One finding: the setting is shared by every rail's policy.
    r.Report(sriov->pointer + "/num_vfs_per_pf",
             "each rail's PF gets " + std::to_string(sriov->num_vfs_per_pf) +
                 " VF(s), but the pod of a node attaches rail '" + busiest->name + "' " +
                 std::to_string(wanted) + " time(s): the pod stays Pending",
             "set operators.sriov_network_operator.num_vfs_per_pf: " + std::to_string(wanted));
  }
  // OKE: VFs per node = vfs_per_pf x nics_per_node >= attachments, which
  // model.too-many-attachments (attachments <= nics_per_node) already guarantees.
}

// OKE/Kubernetes: the device plugin selects VFs by device id; the shape's NIC decides it.
void CheckDeviceIdNic(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.IsOpenShift() || !p.network.sriov_device_plugin || !p.UsesRails()) return;
  const std::string& nic = p.node_shape.topology.nic_pci_device;
  const std::optional<std::string> vf = VfDeviceIdOf(nic);
  if (!vf) return;  // NIC unknown (no topology preset): nothing to compare
  const auto& ids = p.network.sriov_device_plugin->device_ids;
  if (std::find(ids.begin(), ids.end(), *vf) != ids.end()) return;
  std::string listed;
  for (const std::string& id : ids) listed += (listed.empty() ? "" : ", ") + id;
  r.Report(p.network.sriov_device_plugin->pointer + "/device_ids",
           "the device plugin selects VF device id(s) " + listed + ", but '" +
               p.node_shape.topology.preset + "' has NIC " + nic + " whose VFs are " + *vf +
               ": the node advertises no '" +
               p.network.sriov_device_plugin->ExtendedResourceName() + "'",
           "set network.sriov_device_plugin.device_ids: [\"" + *vf + "\"]");
}

void CheckGpuOperatorRdma(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.operators || !p.operators->gpu_operator || !p.UsesRails()) return;
  const GpuOperator& gpu = *p.operators->gpu_operator;
  const GpuDirectSettings s = ResolveGpuDirect(gpu, p.nccl.gpudirect);
  if (p.nccl.gpudirect == GpuDirect::kNvidiaPeermem && s.mode != GpuOperatorRdma::kNvidiaPeermem) {
    r.Report(gpu.pointer + "/rdma",
             std::string("nccl.gpudirect is nvidia-peermem (the wrapper checks for the module) but "
                         "the GPU Operator's RDMA mode is ") +
                 ToString(s.mode) + ": nvidia_peermem is never loaded and NCCL falls back to " +
                 "staging through host memory",
             "set operators.gpu_operator.rdma: follow (or nvidia-peermem), or nccl.gpudirect: "
             "dmabuf");
    return;
  }
  if (s.mode != GpuOperatorRdma::kDmaBuf && p.nccl.gpudirect != GpuDirect::kDmaBuf) return;
  // DMA-BUF needs the open kernel module (gpu-operator-rdma.rst).
  if (!gpu.driver_enabled) return;  // the node image's driver: not the operator's choice
  if (s.kernel_module_type == "proprietary") {
    r.Report(gpu.pointer + "/driver/kernel_module_type",
             "DMA-BUF (nccl.gpudirect " + std::string(ToString(p.nccl.gpudirect)) +
                 ") needs the open GPU kernel module, but kernel_module_type is proprietary",
             "set operators.gpu_operator.driver.kernel_module_type: open (or auto on R570+)");
  } else if (!s.has_kernel_module_type && gpu.driver_branch < kAutoOpenModuleDriverBranch) {
    r.Report(gpu.pointer + "/version",
             "DMA-BUF needs the open GPU kernel module, but GPU Operator " + gpu.version +
                 " has no kernelModuleType (v25.3.0+) and driver branch " +
                 std::to_string(gpu.driver_branch) + " loads the proprietary one",
             "use GPU Operator v25.3.0 or newer (kernelModuleType), or nccl.gpudirect: "
             "nvidia-peermem");
  }
}

void CheckOperatorVersion(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.operators) return;
  const Operators& ops = *p.operators;
  // A version outside the release catalog is lint.operator-release (release_rules.cc); these
  // checks matter only where the profile accepts one.
  const nlohmann::json& doc = c.loaded.document;
  const bool accepted = doc.contains("operators") && doc["operators"].is_object() &&
                        doc["operators"].value(GpuOperatorFacts().key, nlohmann::json::object())
                            .contains("accept_unlisted_version");
  if (ops.gpu_operator && (accepted || FindGpuOperatorRelease(ops.gpu_operator->version))) {
    const GpuOperator& gpu = *ops.gpu_operator;
    const auto version = ParseGpuOperatorVersion(gpu.version);
    if (version && !version->AtLeast(kOldestGpuOperatorYear, kOldestGpuOperatorMinor)) {
      r.Report(gpu.pointer + "/version",
               "GPU Operator " + gpu.version +
                   " is older than v24.9, the oldest release whose ClusterPolicy and chart "
                   "values hkimgen renders",
               "use v24.9.2 or newer (v25.10.1 is OKE's add-on default)");
    } else if (version && gpu.kernel_module_type != KernelModuleType::kAuto &&
               !version->AtLeast(kKernelModuleTypeYear, kKernelModuleTypeMinor)) {
      r.Report(gpu.pointer + "/driver/kernel_module_type",
               "kernelModuleType exists from GPU Operator v25.3.0 on; " + gpu.version +
                   " ignores it",
               "use GPU Operator v25.3.0 or newer, or remove kernel_module_type");
    }
  }
  if (p.IsOpenShift() && ops.nfd && ops.nfd->managed() && ops.nfd->operand_image.empty()) {
    r.Report(ops.pointer,
             "the NodeFeatureDiscovery instance needs its operand image, which depends on the "
             "cluster's OpenShift minor version, and operators.openshift_version is not set",
             "add operators.openshift_version: \"4.19\" (`oc get clusterversion`), or "
             "operators.nfd.operand_image");
  }
}

// Keys of `operators` that only mean something on the other platform.
void CheckOperatorPlatform(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  const nlohmann::json& doc = c.loaded.document;
  if (!p.operators || !doc.contains("operators") || !doc["operators"].is_object()) return;
  const nlohmann::json& ops = doc["operators"];
  // The platform setting that is no operator (openshift_version), then the catalogue's.
  std::set<std::string> openshift_only = {"openshift_version"};
  std::set<std::string> kubernetes_only;
  for (const OperatorFacts& facts : OperatorCatalog()) {
    if (facts.openshift && !facts.kubernetes) openshift_only.insert(facts.key);
    if (facts.kubernetes && !facts.openshift) kubernetes_only.insert(facts.key);
  }
  const std::set<std::string> olm_keys = {"channel", "source", "source_namespace",
                                          "install_plan_approval", "starting_csv"};
  const std::string platform = ToString(p.platform);
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    const bool wrong = p.IsOpenShift() ? kubernetes_only.count(it.key()) > 0
                                       : openshift_only.count(it.key()) > 0;
    if (wrong) {
      r.Report("/operators/" + it.key(),
               "operators." + it.key() + " is for " +
                   (p.IsOpenShift() ? "OKE/Kubernetes" : "OpenShift") + "; this profile is " +
                   platform + ", so nothing renders it",
               "remove operators." + it.key() + ", or fix cluster.platform");
      continue;
    }
    if (!it->is_object()) continue;
    for (auto field = it->begin(); field != it->end(); ++field) {
      const bool olm = olm_keys.count(field.key()) > 0;
      if ((olm && !p.IsOpenShift()) || (field.key() == "repo_url" && p.IsOpenShift())) {
        r.Report("/operators/" + it.key() + "/" + field.key(),
                 field.key() + (olm ? " configures an OLM Subscription (OpenShift)"
                                    : " names a Helm repository (OKE/Kubernetes)") +
                     "; on " + platform + " the bundle does not use it",
                 "remove operators." + it.key() + "." + field.key());
      }
    }
  }
}

void CheckInstallPlanManual(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.IsOpenShift() || !p.operators) return;
  const Operators& ops = *p.operators;
  for (const OperatorCommon* op : std::initializer_list<const OperatorCommon*>{
           ops.sriov_network_operator ? &*ops.sriov_network_operator : nullptr,
           ops.nfd ? &*ops.nfd : nullptr, ops.gpu_operator ? &*ops.gpu_operator : nullptr}) {
    if (!op || !op->managed() || op->approval != InstallPlanApproval::kManual) continue;
    r.Report(op->pointer + "/install_plan_approval",
             "installPlanApproval Manual: OLM waits for a person to approve the InstallPlan, so "
             "the first sync stops at wave 0 (the operator's CRs cannot be created) until then",
             "approve it (oc patch installplan <name> -n " + op->namespace_name +
                 " --type merge -p '{\"spec\":{\"approved\":true}}'), or use Automatic with "
                 "starting_csv to pin the first install");
  }
}

void CheckVfConfigPrivileged(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.IsOpenShift() || !p.operators || !p.operators->vf_config) return;
  const VfConfig& vf = *p.operators->vf_config;
  // Under SELinux enforcing they run privileged anyway (lint.node-agent-privileged says why).
  if (!vf.managed() || !vf.privileged || p.node_shape.selinux == SelinuxMode::kEnforcing) return;
  r.Report(vf.pointer + "/privileged",
           "the VF DaemonSet (and the pool's CNI DaemonSets) run privileged on every GPU node, "
           "though node_shape.selinux is " + std::string(ToString(p.node_shape.selinux)) +
               ": it needs only NET_ADMIN and SYS_CHROOT (SYS_MODULE to load nvidia_peermem)",
           "remove operators.vf_config.privileged unless the unprivileged DaemonSet fails to "
           "write sriov_numvfs on your nodes");
}

// The node agents run privileged where the hosts' SELinux enforces: said, with each agent's
// reason and how to narrow it, since a privileged pod on every GPU node is worth knowing.
void CheckNodeAgentPrivileged(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.IsOpenShift() || !p.operators || !p.operators->vf_config || !p.UsesRails()) return;
  const VfConfig& vf = *p.operators->vf_config;
  if (!vf.managed() || p.node_shape.selinux != SelinuxMode::kEnforcing) return;
  const std::string stated = p.node_shape.selinux_set
                                 ? "node_shape.selinux is enforcing"
                                 : "node_shape.selinux is unstated, taken as enforcing (Oracle "
                                   "Linux 8 installs enforcing)";
  r.Report(p.node_shape.pointer + "/selinux",
           stated + ", so CRI-O runs containers as container_t, which SELinux denies the host "
           "whatever the capabilities; these node agents run privileged on every GPU node: "
           "DaemonSet " + p.cluster_name + "-vf-config (writes sriov_numvfs and driver bind in "
           "the host's sysfs, reaches systemd's and CRI-O's sockets, runs dracut and modprobe), "
           "DaemonSets " + p.cluster_name + "-sriov-cni and " + p.cluster_name +
               "-rdma-cni (copy their binaries into the host's /opt/cni/bin)",
           "where getenforce on a GPU node prints Permissive or Disabled, set node_shape.selinux: "
           "permissive (or disabled): they then run with NET_ADMIN, SYS_CHROOT (SYS_MODULE) and "
           "no capabilities respectively");
}

// `shared` hands an operator to the profile that owns the cluster's platform; the VF DaemonSet
// is no operator but this node pool's own (it selects this shape's nodes), so nobody else
// creates this pool's VFs.
void CheckVfConfigShared(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.IsOpenShift() || !p.operators || !p.operators->vf_config || !p.UsesRails()) return;
  const VfConfig& vf = *p.operators->vf_config;
  if (vf.install != OperatorInstall::kShared) return;
  r.Report(vf.pointer + "/install",
           "vf_config is shared, so this bundle renders no VF DaemonSet, but the DaemonSet is per "
           "node pool (another profile's selects its own shape's nodes): nothing creates the VFs "
           "of " + p.node_shape.name + " nodes and the pods stay Pending",
           "keep operators.vf_config.install: managed (every profile of a cluster has its own "
           "VF DaemonSet), or preinstalled when the nodes' image creates the VFs");
}

// The RDMA netns mode is switched by the bundle only when the profile says so: the switch drains
// and reboots each GPU node and cuts RDMA from every pod whose NAD lacks the rdma CNI (another
// team's on a shared cluster), so it is not a default a profile should inherit silently.
void CheckRdmaNetnsSwitch(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.IsOpenShift() || !p.UsesRails() || p.network.rdma_netns_set ||
      p.network.rdma_netns != RdmaNetns::kExclusive)
    return;
  r.Report(p.network.pointer,
           "the bundle switches the GPU nodes' RDMA subsystem to exclusive netns mode (a "
           "SriovNetworkPoolConfig: each node drains and reboots) because it renders the SR-IOV "
           "node policies, but the profile does not say so; pods of other NADs without the rdma "
           "CNI on those nodes lose RDMA",
           "say which mode the nodes run: network.rdma_netns: exclusive (the switch, on purpose), "
           "shared (keep the kernel's default; the NADs chain the sriov CNI alone) or "
           "already-exclusive");
}

}  // namespace

std::vector<LintRule> OperatorLintRules() {
  return {
      {"lint.device-id-nic", Severity::kError,
       "the device plugin's VF device ids match the node shape's NIC", CheckDeviceIdNic},
      {"lint.gpu-operator-rdma", Severity::kError,
       "the GPU Operator's GPUDirect RDMA mode and kernel module agree with nccl.gpudirect",
       CheckGpuOperatorRdma},
      {"lint.install-plan-manual", Severity::kWarning,
       "a managed OLM operator with Manual approval stalls the first sync", CheckInstallPlanManual},
      {"lint.nad-resource-producer", Severity::kError,
       "every rail's resource is produced by exactly one node policy on the pods' nodes",
       CheckNadResourceProducer},
      {"lint.node-agent-privileged", Severity::kNote,
       "node agents run privileged only where the hosts' SELinux enforces (a note naming them)",
       CheckNodeAgentPrivileged},
      {"lint.operator-platform", Severity::kError,
       "operators and operator settings belong to the profile's platform", CheckOperatorPlatform},
      {"lint.operator-version", Severity::kError,
       "operator releases are ones the platform and the rendered objects support",
       CheckOperatorVersion},
      {"lint.rdma-netns-switch", Severity::kWarning,
       "switching the nodes to exclusive RDMA mode is said in the profile, not inherited",
       CheckRdmaNetnsSwitch},
      {"lint.vf-config-privileged", Severity::kWarning,
       "the VF DaemonSet is not privileged unless asked (warning when it is)",
       CheckVfConfigPrivileged},
      {"lint.vf-config-shared", Severity::kWarning,
       "the VF DaemonSet is not shared: it creates the VFs of its own node pool only",
       CheckVfConfigShared},
      {"lint.vfs-per-pf", Severity::kError,
       "numVfs per PF covers what the pod of one node requests from each rail (OpenShift)", CheckVfsPerPf},
  };
}

}  // namespace hkim
