// Plan stage, OKE/Kubernetes operators: the Helm charts of seed 004 as Argo CD Applications
// (gpu-operator, network-operator, optional volcano), the NicClusterPolicy whose component
// images follow the pinned Network Operator release (model/operator_versions.h), and the node agents
// of the profile's GPU pool: the DaemonSet that creates the VFs, sets the RDMA subsystem's
// exclusive netns mode and loads nvidia_peermem where the host driver needs it (oci-hpc-oke's
// vf-config, written from BRINGUP-FACTS §4), and the SR-IOV and RDMA CNI DaemonSets that install
// what the rails' NADs chain.

#include <algorithm>

#include "model/image_reference.h"
#include "model/node_fit.h"
#include "model/operator_versions.h"
#include "plan/health.h"
#include "plan/layers.h"
#include "plan/operators/chart_images.h"
#include "plan/operators/operators.h"

#include "plan/operator_capabilities.h"

namespace hkim {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr const char* kOkeTemplates = "operators-oke/";

/// An Argo CD Application for one managed chart, in Argo CD's namespace. It lives in apps/ (synced
/// by the parent onto Argo CD's own cluster), not in the platform layer: that layer deploys to the
/// destination cluster, where a remote cluster has no Argo CD to pick the Application up.
/// `mirror` is the template's mirror context (null without images.mirror), `values` what else of
/// the chart's values decides which images it pulls (driver.enabled).
PlannedObject& PlanChart(const Profile& p, BundlePlan& plan, const OperatorCommon& op,
                         const std::string& chart_version, const char* template_name,
                         const json& mirror, const json& values = json::object()) {
  PlannedObject& app = AddPlannedObject(plan, p, std::string(kOkeTemplates) + template_name,
                                        "argoproj.io/v1alpha1", "Application",
                                        p.cluster_name + "-" + op.chart, p.gitops.argocd_namespace,
                                        kWaveOperators, false, true);
  app.layer = kAppsLayer;
  app.file_name = kAppsLayer + app.file_name.substr(app.file_name.find('/'));
  app.context["project"] =
      p.gitops.charts_project.empty() ? p.gitops.platform_project : p.gitops.charts_project;
  app.chart = PlannedChart{op.repo_url, op.chart, chart_version};
  app.context["repo_url"] = op.repo_url;
  app.context["chart"] = op.chart;
  app.context["version"] = chart_version;
  app.context["mirror"] = mirror;
  app.context["release_name"] = op.chart;
  DestinationContext(p, app.context);
  app.context["destination_namespace"] = op.namespace_name;
  app.context["retry_limit"] = p.gitops.retry_limit;
  // The GPU Operator's chart can roll the driver (plan/disruption.h): it syncs itself only when
  // the nodes layer does.
  SyncPolicyContext(p, ScopeOf(app.kind, app.template_name), app.context);
  app.source_pointer = op.pointer;
  // What the chart's own workloads pull (its defaults at the pinned release, or the mirror
  // values that name them; chart_images.h), so their registries are preconditions too.
  for (const ChartImageUse& use :
       ChartPulledImages(p.images.mirror, op.chart, chart_version, values, mirror))
    NeedImage(app, use.reference, op.pointer + "/version", "the " + op.chart + " chart deploys it",
              use.field);
  return app;
}

/// The CRDs operator `op`'s chart brings (its definition's CRD groups).
void ProvideCatalogCrds(PlannedObject& app, const OperatorCommon& op) {
  for (const Capability& c : OperatorCrdCapabilities(FactsOf(op))) Provides(app, c.kind, c.name);
}

void PlanCharts(const Profile& p, BundlePlan& plan, const Operators& ops) {
  if (ops.gpu_operator && ops.gpu_operator->managed()) {
    const GpuOperator& gpu = *ops.gpu_operator;
    // The chart revision is the catalog's; a version outside it (accepted, lint.operator-version)
    // is passed through as written.
    const auto release = FindGpuOperatorRelease(gpu.version);
    PlannedObject& app =
        PlanChart(p, plan, gpu, release ? release->chart_version : gpu.version,
                  "application-gpu-operator.yaml.mustache", GpuOperatorMirrorValues(p, gpu),
                  json{{"driver", {{"enabled", gpu.driver_enabled}}}});
    const GpuDirectSettings rdma = ResolveGpuDirect(gpu, p.nccl.gpudirect);
    app.context["driver_enabled"] = gpu.driver_enabled;
    // kernelModuleType only means something when the operator deploys the driver.
    app.context["has_kernel_module_type"] = gpu.driver_enabled && rdma.has_kernel_module_type;
    app.context["kernel_module_type"] = rdma.kernel_module_type;
    app.context["rdma_enabled"] = rdma.rdma_enabled;
    app.context["use_host_mofed"] = rdma.use_host_mofed;
    app.context["rdma_note"] = rdma.note;
    app.context["host_peermem"] = LoadsHostPeermem(p) && ops.vf_config && ops.vf_config->managed();
    // The chart brings its CRDs and deploys the ClusterPolicy itself.
    ProvideCatalogCrds(app, gpu);
    ProvideGpuOperator(p, gpu, app);
  }
  if (ops.network_operator && ops.network_operator->managed()) {
    const NetworkOperator& net = *ops.network_operator;
    const auto release = FindNetworkOperatorRelease(net.version);
    // A version outside the catalog (accepted, lint.operator-release-unlisted) names the chart
    // as NGC does, without the tag's leading v.
    PlannedObject& app = PlanChart(
        p, plan, net,
        release ? release->chart_version : net.version.substr(net.version.rfind('v', 0) == 0),
        "application-network-operator.yaml.mustache", NetworkOperatorMirrorValues(p, net.version));
    app.context["deploy_cr_key"] = release && release->chart_deploys_nic_cluster_policy;
    // The chart's crds/ hold the NicClusterPolicy and nv-ipam IPPool CRDs.
    ProvideCatalogCrds(app, net);
  }
  if (ops.volcano && ops.volcano->managed()) {
    // The chart joins basic.image_registry and its docker.io image names (volcanosh/...), so the
    // mirror itself is the registry: MIRROR/volcanosh/... as oc-mirror stores docker.io's.
    // The chart index names versions without the tag's v (1.15.1): the catalog's chart_version.
    const Volcano& volcano = *ops.volcano;
    const auto release = FindVolcanoRelease(volcano.version);
    PlannedObject& app = PlanChart(
        p, plan, volcano,
        release ? release->chart_version : volcano.version.substr(volcano.version.rfind('v', 0) == 0),
        "application-volcano.yaml.mustache",
        p.images.enabled() ? json{{"registry", p.images.mirror}} : json(nullptr));
    ProvideCatalogCrds(app, volcano);
  }
  if (ops.kueue && ops.kueue->managed()) {
    const Kueue& kueue = *ops.kueue;
    const auto release = FindKueueRelease(kueue.version);
    const std::string chart_version =
        release ? release->chart_version : kueue.version.substr(kueue.version.rfind('v', 0) == 0);
    const auto mirrored = MirroredRepository(p.images.mirror, KueueChartImageRepository());
    PlannedObject& app =
        PlanChart(p, plan, kueue, chart_version, "application-kueue.yaml.mustache",
                  p.images.enabled() && mirrored ? json{{"repository", *mirrored}} : json(nullptr));
    // Argo CD takes an OCI Helm repository as the registry path without its scheme; the chart's
    // source as `hkimgen images` and -o imageset name it keeps the scheme (oc-mirror and helm
    // pull need oci:// to know the repository is OCI).
    const std::string& repo = kueue.repo_url;
    app.chart->repo_url = repo;
    app.context["repo_url"] = repo.rfind("oci://", 0) == 0 ? repo.substr(6) : repo;
    ProvideCatalogCrds(app, kueue);
  }
}

// Under images.mirror (image_mirror.h) the repository moves to the mirror, path kept; the model
// checked the profile's own overrides, the release table's always parse.
json Image(const Profile& p, const ComponentImage& image) {
  const std::string repository =
      MirroredRepository(p.images.mirror, image.repository).value_or(image.repository);
  return {{"repository", repository},
          {"image", image.image},
          {"version", image.version},
          {"reference", ComposeImage(repository, image.image, image.version)}};
}

// A profile override of one image field wins over the release table.
json ImageOr(const Profile& p, const ComponentImage& table, const std::string& repository,
             const std::string& image, const std::string& version) {
  return Image(p, ComponentImage{repository.empty() ? table.repository : repository,
                              image.empty() ? table.image : image,
                              version.empty() ? table.version : version});
}

NetworkOperatorRelease ReleaseOf(const Profile& p) {
  const std::string version =
      p.operators && p.operators->network_operator ? p.operators->network_operator->version
                                                   : NetworkOperator{}.version;
  return FindNetworkOperatorRelease(version).value_or(NetworkOperatorReleases().back());
}

json NodeSelector(const Profile& p) {
  json selector = json::array();
  for (const auto& [key, value] : p.node_shape.node_selector)
    selector.push_back(json{{"key", key}, {"value", value}});
  return selector;
}

void PlanNicClusterPolicy(const Profile& p, BundlePlan& plan) {
  if (p.workload.mode != WorkloadMode::kRdma || !p.network.sriov_device_plugin) return;
  // The cluster has one NicClusterPolicy: with `install: shared` another profile of the cluster
  // renders it (and lint.shared-device-ids checks that it lists this profile's device IDs).
  if (p.operators && p.operators->network_operator &&
      p.operators->network_operator->install == OperatorInstall::kShared) {
    return;
  }
  const SriovDevicePlugin& plugin = *p.network.sriov_device_plugin;
  const NetworkOperatorRelease release = ReleaseOf(p);
  PlannedObject& policy =
      AddPlannedObject(plan, p, "oke/nicclusterpolicy.yaml.mustache", "mellanox.com/v1alpha1",
                       "NicClusterPolicy", "nic-cluster-policy", "", kWaveOperatorConfig, true,
                       /*keep_on_removal=*/true);
  ordered_json selectors = {{"vendors", plugin.vendor_ids},
                            {"devices", plugin.device_ids},
                            {"drivers", plugin.drivers},
                            {"isRdma", true}};
  ordered_json resource = {{"resourcePrefix", plugin.resource_prefix},
                           {"resourceName", plugin.resource_name},
                           {"selectors", selectors}};
  policy.context["release"] = release.version;
  policy.context["release_source"] = release.source;
  policy.context["sriov_device_plugin"] =
      ImageOr(p, release.sriov_device_plugin, plugin.repository, plugin.image, plugin.version);
  policy.context["sriov_device_plugin"]["config"] =
      ordered_json{{"resourceList", ordered_json::array({resource})}}.dump(2) + "\n";
  const NvIpamController ipam = p.network.nv_ipam.value_or(NvIpamController{});
  bool uses_nv_ipam = false;
  for (const Rail& rail : p.network.rails) uses_nv_ipam |= rail.ipam.type == IpamType::kNvIpam;
  policy.context["has_nv_ipam"] = uses_nv_ipam;
  policy.context["nv_ipam"] =
      ImageOr(p, release.nv_ipam, ipam.repository, ipam.image, ipam.version);
  policy.context["nv_ipam"]["enable_webhook"] = ipam.enable_webhook;
  const bool secondary = !p.operators || !p.operators->network_operator ||
                         p.operators->network_operator->secondary_network;
  policy.context["has_secondary_network"] = secondary;
  policy.context["multus"] = Image(p, release.multus);
  policy.context["cni_plugins"] = Image(p, release.cni_plugins);
  // Its DaemonSets (device plugin, Multus, CNI plugins, nv-ipam) must run wherever the workload
  // does: a taint the workload tolerates would otherwise keep them, and the VFs, off the pool.
  policy.context.update(TolerationsContext(p.node_shape.tolerations));
  ProvideTolerations(policy, p.node_shape.tolerations);
  policy.operator_key = NetworkOperatorFacts().key;
  policy.source_pointer = plugin.pointer;
  // Its operator pulls each component image; the release (or the profile's override) names them.
  // `spec_path`: where templates/oke/nicclusterpolicy.yaml.mustache puts the component.
  auto need_component = [&](const char* field, const std::string& pointer, const char* spec_path) {
    NeedImage(policy, policy.context[field]["reference"].get<std::string>(), pointer,
              std::string("its ") + field + " component",
              std::string("spec.") + spec_path + ".{repository,image,version}");
  };
  need_component("sriov_device_plugin", plugin.pointer, "sriovDevicePlugin");
  if (uses_nv_ipam) {
    need_component("nv_ipam", p.network.nv_ipam ? p.network.nv_ipam->pointer : plugin.pointer,
                   "nvIpam");
  }
  if (secondary) {
    const std::string release_at = p.operators && p.operators->network_operator
                                       ? p.operators->network_operator->pointer + "/version"
                                       : plugin.pointer;
    need_component("multus", release_at, "secondaryNetwork.multus");
    need_component("cni_plugins", release_at, "secondaryNetwork.cniPlugins");
  }
  // The device plugin's resource, nv-ipam where a rail uses it, and with secondaryNetwork Multus
  // (the NAD CRD) and the containernetworking plugins (bridge, tuning, sbr, ...: BRINGUP-FACTS
  // §7), not the SR-IOV or RDMA CNI: the catalogue's list for the network operator.
  for (const Capability& c : OperatorAgentCapabilities(p, NetworkOperatorFacts()))
    Provides(policy, c.kind, c.name);
}

/// Why a node agent runs privileged, as comment lines of its template (empty when it does not):
/// `denied` says what SELinux keeps from container_t on these hosts.
json PrivilegedReason(const Profile& p, const std::string& denied) {
  json lines = json::array();
  if (!p.NodeAgentsPrivileged()) return lines;
  if (p.node_shape.selinux != SelinuxMode::kEnforcing) {
    lines.push_back("Privileged because operators.vf_config.privileged asks for it (SELinux " +
                    std::string(ToString(p.node_shape.selinux)) + " on these nodes).");
    return lines;
  }
  lines.push_back(std::string("Privileged because SELinux enforces on these nodes (node_shape.selinux ") +
                  (p.node_shape.selinux_set ? "says so" : "unstated, and Oracle Linux 8 installs enforcing") +
                  "); CRI-O runs");
  lines.push_back("containers as container_t, which may not " + denied + ",");
  lines.push_back("whatever the capabilities (OCI's vf-config and the rdma-cni DaemonSet run privileged too).");
  lines.push_back("Where getenforce says Permissive or Disabled, state node_shape.selinux to drop it.");
  return lines;
}

/// The SR-IOV and RDMA CNI plugins the OKE NAD chains (network.cc NadConfig), one DaemonSet each
/// on the profile's GPU pool, from the pinned Network Operator release's images.
void PlanRailCniPlugins(const Profile& p, BundlePlan& plan, const VfConfig& vf) {
  const NetworkOperatorRelease release = ReleaseOf(p);
  struct Plugin {
    const char* name;
    const char* binary;
    ComponentImage image;
  };
  for (const Plugin& plugin : {Plugin{"sriov", "sriov", release.sriov_cni},
                               Plugin{"rdma", "rdma", release.rdma_cni}}) {
    PlannedObject& ds = AddPlannedObject(
        plan, p, std::string(kOkeTemplates) + "daemonset-cni-plugin.yaml.mustache", "apps/v1",
        "DaemonSet", p.cluster_name + "-" + plugin.name + "-cni", vf.namespace_name,
        kWaveNodePolicies, false);
    ds.context["plugin"] = plugin.name;
    ds.context["binary"] = plugin.binary;
    // Under images.mirror when the profile sets one.
    ds.context["image"] = Image(p, plugin.image)["reference"];
    ds.context["release"] = release.version;
    ds.context["release_source"] = release.source;
    const json selector = NodeSelector(p);
    ds.context["has_node_selector"] = !selector.empty();
    ds.context["node_selector"] = selector;
    ds.context.update(TolerationsContext(p.node_shape.tolerations));
    ds.context["privileged"] = p.NodeAgentsPrivileged();
    ds.context["privileged_reason"] =
        PrivilegedReason(p, "write files into host paths (/opt/cni/bin, bin_t)");
    ds.source_pointer = vf.pointer;
    NeedNodeLabels(ds, p.node_shape.node_selector, NodeSelectorPointer, "its nodeSelector");
    ProvideTolerations(ds, p.node_shape.tolerations);
    Provides(ds, CapabilityKind::kCniPlugin, plugin.binary);
    NeedImage(ds, ds.context["image"].get<std::string>(),
              p.operators->network_operator ? p.operators->network_operator->pointer + "/version" : vf.pointer,
              std::string("the ") + plugin.name + " CNI of the pinned Network Operator release",
              "spec.template.spec.containers[0].image");
  }
}

/// The VF DaemonSet's own API access, for the one node label that says a node waits for its
/// reboot (kRdmaModePendingLabel): a ServiceAccount whose ClusterRole may patch nodes, and the
/// admission policy that narrows that to the label on the pod's own node. The fence syncs a wave
/// before the grant, so the grant is never in force without it.
std::string VfConfigAccount(const Profile& p) { return p.cluster_name + "-vf-config"; }

void PlanVfConfigNodeLabel(const Profile& p, BundlePlan& plan, const VfConfig& vf) {
  const std::string account = VfConfigAccount(p);
  const std::string name = "hkimgen-" + p.cluster_name + "-vf-config-node-label";
  AddPlannedObject(plan, p, "common/serviceaccount.yaml.mustache", "v1", "ServiceAccount", account,
                   vf.namespace_name, kWaveNodePolicies, false);
  PlannedObject& role = AddPlannedObject(
      plan, p, std::string(kOkeTemplates) + "clusterrole-vf-config.yaml.mustache",
      "rbac.authorization.k8s.io/v1", "ClusterRole", name, "", kWaveNodePolicies, false);
  // In the context, not the template: the Argo CD bootstrap role holds what the bundle grants.
  role.context["rules"] = json::array({json{{"api_groups", json::array({json{{"value", ""}}})},
                                            {"resources", json::array({json{{"value", "nodes"}}})},
                                            {"verbs", json::array({json{{"value", "patch"}}})},
                                            {"has_resource_names", false},
                                            {"resource_names", json::array()}}});
  PlannedObject& binding = AddPlannedObject(
      plan, p, std::string(kOkeTemplates) + "clusterrolebinding-vf-config.yaml.mustache",
      "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", name, "", kWaveNodePolicies, false);
  binding.context["role"] = name;
  binding.context["account"] = account;
  binding.context["account_namespace"] = vf.namespace_name;
  PlannedObject& policy = AddPlannedObject(
      plan, p, std::string(kOkeTemplates) + "validatingadmissionpolicy-vf-config.yaml.mustache",
      "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", name, "",
      kWaveOperatorConfig, false);
  policy.context["user"] = "system:serviceaccount:" + vf.namespace_name + ":" + account;
  policy.context["pending_label"] = kRdmaModePendingLabel;
  PlanFenceBinding(p, name, kWaveOperatorConfig, plan);
}

void PlanVfConfig(const Profile& p, BundlePlan& plan, const VfConfig& vf) {
  if (!vf.managed() || !p.UsesRails()) return;
  PlannedObject& ns = AddPlannedObject(plan, p, "oke/namespace.yaml.mustache", "v1", "Namespace",
                                       vf.namespace_name, "", kWaveNodePolicies, false);
  ns.context["pod_security_level"] = "privileged";  // hostPath, hostNetwork
  PlannedObject& ds = AddPlannedObject(
      plan, p, std::string(kOkeTemplates) + "daemonset-vf-config.yaml.mustache", "apps/v1",
      "DaemonSet", p.cluster_name + "-vf-config", vf.namespace_name, kWaveNodePolicies, false);
  const json selector = NodeSelector(p);
  ds.context["has_node_selector"] = !selector.empty();
  ds.context["node_selector"] = selector;
  ds.context.update(TolerationsContext(p.node_shape.tolerations));
  ds.context["image"] = vf.image;
  ds.context["vfs_per_pf"] = std::to_string(vf.vfs_per_pf);
  ds.context["mtu"] = std::to_string(vf.mtu_bytes);
  ds.context["privileged"] = p.NodeAgentsPrivileged();
  ds.context["privileged_reason"] = PrivilegedReason(
      p, "write the host's sysfs (sriov_numvfs, driver bind), reach systemd's and CRI-O's sockets, "
         "rebuild the initramfs or load modules");
  const bool peermem = LoadsHostPeermem(p);
  ds.context["load_peermem"] = peermem;
  ds.context["load_peermem_flag"] = peermem ? "1" : "0";
  if (peermem) {
    const GpuOperator& gpu = *p.operators->gpu_operator;
    ds.context["driver_branch"] = gpu.driver_branch;
    ds.context["use_host_mofed"] = gpu.use_host_mofed;
  }
  json caps = json::array({"NET_ADMIN", "SYS_CHROOT"});
  if (peermem) caps.push_back("SYS_MODULE");
  ds.context["capabilities"] = caps;
  // The same pool's CNI plugins: the VF DaemonSet's namespace holds the pool's node agents.
  ds.source_pointer = vf.pointer;
  NeedNodeLabels(ds, p.node_shape.node_selector, NodeSelectorPointer, "its nodeSelector");
  ProvideTolerations(ds, p.node_shape.tolerations);
  // It sets the RDMA subsystem's exclusive netns mode (the rdma CNI's requirement) and, where the
  // host driver is proprietary, loads nvidia_peermem (GPUDirect RDMA).
  Provides(ds, CapabilityKind::kRdmaNetns, "exclusive");
  NeedImage(ds, vf.image, vf.pointer + "/image", "its container creates the VFs",
            "spec.template.spec.containers[0].image");
  if (peermem) Provides(ds, CapabilityKind::kGpuDirect, "nvidia-peermem");
  ds.context["service_account"] = VfConfigAccount(p);
  ds.context["pending_label"] = kRdmaModePendingLabel;
  PlanVfConfigNodeLabel(p, plan, vf);  // after the last use of `ds`: it adds objects
  PlanRailCniPlugins(p, plan, vf);
}

}  // namespace

void ProvideGpuOperator(const Profile& p, const GpuOperator& gpu, PlannedObject& object) {
  (void)gpu;  // its definition reads the same operators.gpu_operator
  // nvidia.com/gpu, GPU feature discovery's labels (OKE: NFD's too), GPUDirect where it deploys
  // the driver (BRINGUP-FACTS §3): its definition's list.
  const OperatorFacts& facts = GpuOperatorFacts();
  for (const Capability& c : OperatorAgentCapabilities(p, facts))
    Provides(object, c.kind, c.name);
  // Its DaemonSets' default toleration (nvidia.com/gpu NoSchedule, chart values and CSV), plus
  // the workload's own taints that the default does not tolerate (by the scheduler's matching,
  // model/node_fit.h: `nvidia.com/gpu` Exists without an effect covers NoExecute too),
  // propagated (daemonsets.tolerations replaces the default).
  const Toleration fallback{"nvidia.com/gpu", "Exists", "", "NoSchedule", ""};
  std::vector<Toleration> tolerations{fallback};
  bool extra = false;
  for (const Toleration& t : p.node_shape.tolerations) {
    if (t.key.empty() || ToleratesWhatWorkloadTolerates(fallback, t)) continue;
    tolerations.push_back(t);
    extra = true;
  }
  object.context["has_tolerations"] = extra;
  object.context["tolerations"] = TolerationsContext(tolerations)["tolerations"];
  ProvideTolerations(object, tolerations);
  object.operator_key = facts.key;
}

void PlanOkeOperators(const Profile& profile, BundlePlan& plan) {
  PlanNicClusterPolicy(profile, plan);
  if (!profile.operators) return;
  PlanCharts(profile, plan, *profile.operators);
  if (profile.operators->vf_config) PlanVfConfig(profile, plan, *profile.operators->vf_config);
}

}  // namespace hkim
