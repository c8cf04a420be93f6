// Plan stages of the operator bring-up (plan/operators/openshift.cc, plan/operators/oke.cc) and
// the bundle layout (plan/layers.cc): which install objects, CRs and node policies each
// platform gets, managed vs preinstalled, and the values they carry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "load/load.h"
#include "model/operator_versions.h"
#include "pipeline/pipeline.h"
#include "plan/plan.h"
#include "plan/layers.h"
#include "test_files.h"
#include "validate/validate.h"

namespace hkim {
namespace {

using test_files::BuildFrom;
using test_files::Find;
using test_files::FreshOpenShiftProfile;
using test_files::ReadProfile;
using test_files::Replace;

std::multiset<std::string> Kinds(const BundlePlan& plan) {
  std::multiset<std::string> kinds;
  for (const PlannedObject& o : plan.objects) kinds.insert(o.kind);
  return kinds;
}

std::string Options(const PlannedObject& o) {
  return o.context["metadata"]["sync_options"].get<std::string>();
}

// Every managed operator on OpenShift: each install object, its CR and the node policies.
TEST(PlanOperators, OpenShiftManagedOperatorsGetOlmInstallsCrsAndOnePolicyPerRail) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  const auto kinds = Kinds(plan);
  EXPECT_EQ(kinds.count("Subscription"), 3u);
  EXPECT_EQ(kinds.count("OperatorGroup"), 3u);
  EXPECT_EQ(kinds.count("SriovNetworkNodePolicy"), 4u);
  for (const auto& [kind, name] : std::vector<std::pair<std::string, std::string>>{
           {"Namespace", "openshift-sriov-network-operator"},
           {"Namespace", "openshift-nfd"},
           {"Namespace", "nvidia-gpu-operator"},
           {"OperatorGroup", "sriov-network-operators"},
           {"Subscription", "sriov-network-operator-subscription"},
           {"Subscription", "nfd"},
           {"Subscription", "gpu-operator-certified"},
           {"SriovOperatorConfig", "default"},
           {"NodeFeatureDiscovery", "nfd-instance"},
           {"ClusterPolicy", "cluster-policy"}}) {
    const PlannedObject* o = Find(plan, kind, name);
    ASSERT_NE(o, nullptr) << kind << " " << name;
    // The ClusterPolicy's driver section rolls the GPU driver: the nodes layer's (disruption.h).
    EXPECT_EQ(o->layer, o->kind == "ClusterPolicy" ? kNodesLayer : kPlatformLayer) << kind;
    // Removing any of them would uninstall an operator or strip nodes.
    EXPECT_NE(Options(*o).find("Prune=false,Delete=false"), std::string::npos) << kind;
  }
  const PlannedObject* gpu = Find(plan, "Subscription", "gpu-operator-certified");
  EXPECT_EQ(gpu->sync_wave, kWaveOperators);
  EXPECT_EQ(gpu->context["channel"], "v25.10");  // the vYY.M default channel of v25.10.1
  EXPECT_EQ(gpu->context["source"], "certified-operators");
  EXPECT_EQ(gpu->context["approval"], "Automatic");
  EXPECT_EQ(Find(plan, "Subscription", "nfd")->context["channel"], "stable");
  EXPECT_EQ(Find(plan, "NodeFeatureDiscovery", "nfd-instance")->context["operand_image"],
            "registry.redhat.io/openshift4/ose-node-feature-discovery-rhel9:v4.20");
  for (const char* cr : {"SriovOperatorConfig", "NodeFeatureDiscovery", "ClusterPolicy"}) {
    const PlannedObject* o = nullptr;
    for (const PlannedObject& x : plan.objects)
      if (x.kind == cr) o = &x;
    EXPECT_EQ(o->sync_wave, kWaveOperatorConfig) << cr;
    EXPECT_NE(Options(*o).find("SkipDryRunOnMissingResource=true"), std::string::npos) << cr;
  }
  // DMA-BUF (nccl.gpudirect: dmabuf): no nvidia-peermem, kernelModuleType from the profile.
  const PlannedObject* policy = Find(plan, "ClusterPolicy", "cluster-policy");
  EXPECT_FALSE(policy->context["rdma_enabled"].get<bool>());
  EXPECT_TRUE(policy->context["driver_enabled"].get<bool>());
  EXPECT_EQ(policy->context["kernel_module_type"], "auto");
}

TEST(PlanOperators, NodePolicyCarriesTheRailsPfResourceMtuAndTheMachineConfigPool) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  const PlannedObject* policy = Find(plan, "SriovNetworkNodePolicy", "barcelona-eno7np0");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->namespace_name, "openshift-sriov-network-operator");
  EXPECT_EQ(policy->sync_wave, kWaveNodePolicies);
  EXPECT_EQ(policy->context["pf_name"], "eno7np0");
  // The NAD and the pods request openshift.io/eno7np0rdma; the policy names it without prefix.
  EXPECT_EQ(policy->context["resource_name"], "eno7np0rdma");
  EXPECT_EQ(policy->context["num_vfs"], 1);
  EXPECT_EQ(policy->context["mtu"], 9000);
  EXPECT_EQ(policy->context["device_id"], "1021");  // ConnectX-7 of the shape's topology
  EXPECT_EQ(policy->context["node_selector"],
            nlohmann::json::parse(R"([{"key":"node-role.kubernetes.io/h100","value":""},
              {"key":"nvidia.com/gpu.product","value":"NVIDIA-H100-80GB-HBM3"}])"));
  EXPECT_EQ(Find(plan, "MachineConfig", "99-h100-barcelona-iommu-passthrough")->sync_wave,
            policy->sync_wave);
}

TEST(PlanOperators, PreinstalledOperatorsGetNoInstallObjectsButKeepTheirNodePolicies) {
  std::string text = FreshOpenShiftProfile();
  for (const char* op : {"  sriov_network_operator:\n    install: managed",
                         "  nfd:\n    install: managed", "  gpu_operator:\n    install: managed"}) {
    std::string preinstalled = op;
    preinstalled.replace(preinstalled.find("managed"), 7, "preinstalled");
    text = Replace(text, op, preinstalled);
  }
  const auto kinds = Kinds(PlanBundle(BuildFrom(text)));
  for (const char* install : {"Subscription", "OperatorGroup", "SriovOperatorConfig",
                              "NodeFeatureDiscovery", "ClusterPolicy"}) {
    EXPECT_EQ(kinds.count(install), 0u) << install;
  }
  // No operator namespace; only the workload's own (nccl-test) and its health
  // check's (nccl-test-fabric-health).
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  std::set<std::string> namespaces;
  for (const PlannedObject& o : plan.objects)
    if (o.kind == "Namespace") namespaces.insert(o.name);
  EXPECT_EQ(namespaces, (std::set<std::string>{"nccl-test", "nccl-test-fabric-health"}));
  EXPECT_EQ(kinds.count("SriovNetworkNodePolicy"), 4u);
}

TEST(PlanOperators, WithoutAnOperatorsSectionTheBundleInstallsNothing) {
  std::string text = ReadProfile("barcelona-h100-cx7");
  text = text.substr(0, text.find("# The operators run already")) +
         text.substr(text.find("gitops:\n"));
  const auto kinds = Kinds(PlanBundle(BuildFrom(text)));
  for (const char* kind : {"Subscription", "SriovNetworkNodePolicy", "ClusterPolicy"})
    EXPECT_EQ(kinds.count(kind), 0u) << kind;
}

TEST(PlanOperators, ManualApprovalAndStartingCsvReachTheSubscription) {
  std::string text = Replace(FreshOpenShiftProfile(), "    version: v25.10.1",
                             "    version: v25.10.1\n    install_plan_approval: Manual\n"
                             "    starting_csv: gpu-operator-certified.v25.10.1");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  const PlannedObject* sub = Find(plan, "Subscription", "gpu-operator-certified");
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->context["approval"], "Manual");
  EXPECT_TRUE(sub->context["manual"].get<bool>());  // the template explains how to approve
  EXPECT_EQ(sub->context["starting_csv"], "gpu-operator-certified.v25.10.1");
}

TEST(PlanOperators, ClusterPolicyGpuDirectFollowsNcclGpudirect) {
  std::string text = Replace(FreshOpenShiftProfile(), "  gpudirect: dmabuf",
                             "  gpudirect: nvidia-peermem");
  const BundlePlan peermem_plan = PlanBundle(BuildFrom(text));
  const PlannedObject* peermem = Find(peermem_plan, "ClusterPolicy", "cluster-policy");
  EXPECT_TRUE(peermem->context["rdma_enabled"].get<bool>());
  // DMA-BUF with an R550 driver: auto would load the proprietary module, so `open`.
  text = Replace(FreshOpenShiftProfile(), "    version: v25.10.1",
                 "    version: v25.10.1\n    driver: {branch: 550}");
  const BundlePlan r550_plan = PlanBundle(BuildFrom(text));
  const PlannedObject* r550 = Find(r550_plan, "ClusterPolicy", "cluster-policy");
  EXPECT_FALSE(r550->context["rdma_enabled"].get<bool>());
  EXPECT_EQ(r550->context["kernel_module_type"], "open");
}

// OKE: seed 004's charts as Applications, the VF DaemonSet, the NicClusterPolicy.
TEST(PlanOperators, OkeChartsReproduceSeed004AsPinnedApplications) {
  const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile("oke-h100")));
  const PlannedObject* gpu = Find(plan, "Application", "oke-h100-gpu-operator");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->namespace_name, "argocd");
  // In apps/, created by the parent on Argo CD's own cluster: the platform layer deploys to the
  // destination, where a remote cluster has no Argo CD.
  EXPECT_EQ(gpu->layer, kAppsLayer);
  EXPECT_EQ(gpu->file_name, "apps/00-application-argocd-oke-h100-gpu-operator.yaml");
  EXPECT_EQ(gpu->sync_wave, kWaveOperators);
  EXPECT_EQ(gpu->context["repo_url"], "https://helm.ngc.nvidia.com/nvidia");
  EXPECT_EQ(gpu->context["chart"], "gpu-operator");
  EXPECT_EQ(gpu->context["version"], "v25.10.1");
  EXPECT_EQ(gpu->context["destination_namespace"], "gpu-operator");
  // --set driver.enabled=false, driver.rdma.enabled=true, driver.rdma.useHostMofed=true
  EXPECT_FALSE(gpu->context["driver_enabled"].get<bool>());
  EXPECT_TRUE(gpu->context["rdma_enabled"].get<bool>());
  EXPECT_TRUE(gpu->context["use_host_mofed"].get<bool>());
  EXPECT_EQ(gpu->context["retry_limit"], 20);
  const PlannedObject* net = Find(plan, "Application", "oke-h100-network-operator");
  ASSERT_NE(net, nullptr);
  EXPECT_EQ(net->context["version"], "25.10.0");  // Chart.yaml's version, no leading v
  EXPECT_FALSE(net->context["deploy_cr_key"].get<bool>());  // no chart NicClusterPolicy since 24.10
  ASSERT_NE(Find(plan, "Application", "oke-h100-volcano"), nullptr);
  const BundlePlan a100 = PlanBundle(BuildFrom(ReadProfile("oke-a100")));
  EXPECT_EQ(Find(a100, "Application", "oke-a100-volcano"), nullptr);  // optional
}

TEST(PlanOperators, OkeVfDaemonSetRunsOnTheShapeWithoutPrivilegeWhereSelinuxAllows) {
  const BundlePlan plan = PlanBundle(BuildFrom(Replace(
      ReadProfile("oke-h100"), "  cpu_vendor: intel\n", "  cpu_vendor: intel\n  selinux: permissive\n")));
  const PlannedObject* ds = Find(plan, "DaemonSet", "oke-h100-vf-config");
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->namespace_name, "oke-h100-vf-config");
  EXPECT_EQ(ds->sync_wave, kWaveNodePolicies);
  EXPECT_EQ(ds->context["vfs_per_pf"], "1");
  EXPECT_EQ(ds->context["mtu"], "4220");
  EXPECT_FALSE(ds->context["privileged"].get<bool>());
  EXPECT_EQ(ds->context["node_selector"],
            nlohmann::json::parse(
                R"([{"key":"node.kubernetes.io/instance-type","value":"BM.GPU.H100.8"}])"));
  EXPECT_EQ(Find(plan, "Namespace", "oke-h100-vf-config")->context["pod_security_level"],
            "privileged");
}

TEST(PlanOperators, NicClusterPolicyImagesFollowTheNetworkOperatorRelease) {
  const BundlePlan current = PlanBundle(BuildFrom(ReadProfile("oke-h100")));
  const PlannedObject* policy = Find(current, "NicClusterPolicy", "nic-cluster-policy");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->context["sriov_device_plugin"]["repository"], "nvcr.io/nvidia/mellanox");
  EXPECT_EQ(policy->context["sriov_device_plugin"]["version"], "network-operator-v25.10.0");
  EXPECT_EQ(policy->context["nv_ipam"]["version"], "network-operator-v25.10.0");
  EXPECT_TRUE(policy->context["has_secondary_network"].get<bool>());
  EXPECT_EQ(policy->context["multus"]["image"], "multus-cni");
  EXPECT_NE(Options(*policy).find("Prune=false,Delete=false"), std::string::npos);
  // An older release: its own images, and its chart's NicClusterPolicy switched off.
  std::string text =
      Replace(ReadProfile("oke-h100"), "    version: v25.10.0", "    version: v24.7.0");
  const BundlePlan old = PlanBundle(BuildFrom(text));
  EXPECT_EQ(Find(old, "NicClusterPolicy", "nic-cluster-policy")->context["sriov_device_plugin"],
            nlohmann::json::parse(R"({"repository":"ghcr.io/k8snetworkplumbingwg",
              "image":"sriov-network-device-plugin","version":"v3.7.0",
              "reference":"ghcr.io/k8snetworkplumbingwg/sriov-network-device-plugin:v3.7.0",
              "config":)" + policy->context["sriov_device_plugin"]["config"].dump() + "}"));
  EXPECT_TRUE(Find(old, "Application", "oke-h100-network-operator")->context["deploy_cr_key"]
                  .get<bool>());
  // A profile's explicit image tag still wins.
  text = Replace(ReadProfile("oke-h100"), "    drivers: [mlx5_core]",
                 "    drivers: [mlx5_core]\n    version: v3.9.0-custom");
  const BundlePlan custom = PlanBundle(BuildFrom(text));
  EXPECT_EQ(Find(custom, "NicClusterPolicy", "nic-cluster-policy")
                ->context["sriov_device_plugin"]["version"],
            "v3.9.0-custom");
}

TEST(PlanOperators, OkePreinstalledOperatorsGetNoApplicationsOrDaemonSet) {
  std::string text = ReadProfile("oke-h100");
  for (const char* op : {"  gpu_operator:\n    install: managed",
                         "  network_operator:\n    install: managed",
                         "  vf_config:\n    install: managed", "  volcano:                # seed 004's optional batch scheduler\n    install: managed",
                         "  kueue:                  # scheduling.kueue's queues and Topology (oci-hpc-oke installs it too)\n    install: managed"}) {
    std::string preinstalled = op;
    preinstalled.replace(preinstalled.find("managed"), 7, "preinstalled");
    text = Replace(text, op, preinstalled);
  }
  const auto kinds = Kinds(PlanBundle(BuildFrom(text)));
  EXPECT_EQ(kinds.count("Application"), 0u);
  EXPECT_EQ(kinds.count("DaemonSet"), 0u);
  EXPECT_EQ(kinds.count("NicClusterPolicy"), 1u);  // the bundle still configures the operator
}

// A node pool of a cluster whose platform another profile owns.
TEST(PlanOperators, OkeSharedOperatorsLeaveTheChartsAndNicClusterPolicyToTheOwner) {
  const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile("oke-a100")));  // shares both
  const auto kinds = Kinds(plan);
  EXPECT_EQ(kinds.count("NicClusterPolicy"), 0u);
  EXPECT_EQ(kinds.count("Application"), 0u);
  // The node agents of its own pool stay: VF DaemonSet, SR-IOV CNI, RDMA CNI.
  EXPECT_EQ(kinds.count("DaemonSet"), 3u);
  for (const char* ds : {"oke-a100-vf-config", "oke-a100-sriov-cni", "oke-a100-rdma-cni"})
    EXPECT_NE(Find(plan, "DaemonSet", ds), nullptr) << ds;
  EXPECT_NE(Find(plan, "IPPool", "oke-a100"), nullptr);
  // Shared differs from preinstalled only there: the CR is the owner's.
  const std::string text = Replace(ReadProfile("oke-a100"), "  network_operator:\n    install: shared",
                                   "  network_operator:\n    install: preinstalled");
  EXPECT_EQ(Kinds(PlanBundle(BuildFrom(text))).count("NicClusterPolicy"), 1u);
}

// Layout: platform, nodes, health and workload layers, one Application each under the parent.
TEST(PlanLayers, EachLayerIsADirectoryWithItsOwnApplicationAndProject) {
  std::string text = Replace(ReadProfile("oke-h100"), "gitops:\n  project: default",
                             "gitops:\n  project: default\n  platform_project: platform-team\n"
                             "  workload_project: ml-team\n  retry_limit: 50");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  std::map<std::string, const PlannedObject*> files;
  for (const PlannedObject& f : plan.layer_files) files[f.file_name] = &f;
  ASSERT_EQ(files.size(), 8u);
  const PlannedObject* platform = files.at("apps/platform.yaml");
  const PlannedObject* nodes = files.at("apps/nodes.yaml");
  const PlannedObject* health = files.at("apps/health.yaml");
  const PlannedObject* workload = files.at("apps/workload.yaml");
  EXPECT_EQ(platform->context["project"], "platform-team");
  EXPECT_EQ(nodes->context["project"], "platform-team");
  // The health check may mark nodes: the platform team's, not the ML team's.
  EXPECT_EQ(health->context["project"], "platform-team");
  EXPECT_FALSE(health->context["has_destination_namespace"].get<bool>());
  EXPECT_EQ(workload->context["project"], "ml-team");
  EXPECT_EQ(platform->context["path"], "out/oke-h100/platform");
  EXPECT_EQ(nodes->context["path"], "out/oke-h100/nodes");
  EXPECT_EQ(workload->context["destination_namespace"], "gpu-training");
  // The OKE charts (apps/, wave 0 of the parent), then platform, nodes, health, workload: the
  // parent's waves are the only order between Applications (plan/sync_order.h).
  for (const PlannedObject& o : plan.objects)
    if (o.layer == kAppsLayer) EXPECT_EQ(o.sync_wave, 0) << o.name;
  EXPECT_EQ(platform->context["metadata"]["sync_wave"], "1");
  EXPECT_EQ(nodes->context["metadata"]["sync_wave"], "2");
  EXPECT_EQ(health->context["metadata"]["sync_wave"], "3");
  EXPECT_EQ(workload->context["metadata"]["sync_wave"], "4");
  EXPECT_EQ(workload->sync_wave, 4);
  EXPECT_EQ(platform->context["retry_limit"], 50);
  EXPECT_EQ(plan.application.context["path"], "out/oke-h100/apps");
  EXPECT_TRUE(files.count("platform/kustomization.yaml"));
  EXPECT_TRUE(files.count("nodes/kustomization.yaml"));
  EXPECT_TRUE(files.count("workload/kustomization.yaml"));
  EXPECT_TRUE(files.count("health/kustomization.yaml"));
  for (const PlannedObject& o : plan.objects) {
    const bool in_workload_namespace = o.namespace_name == "gpu-training";
    const bool in_health_namespace = o.namespace_name == "gpu-training-fabric-health";
    const bool chart_application = o.kind == "Application";
    // What can drain, reboot, reset VFs or roll a driver: the NicClusterPolicy, the VF agent.
    const bool touches_nodes =
        o.kind == "NicClusterPolicy" || (o.kind == "DaemonSet" && o.name == "oke-h100-vf-config");
    EXPECT_EQ(o.layer, chart_application       ? kAppsLayer
                       : touches_nodes         ? kNodesLayer
                       : in_workload_namespace ? kWorkloadLayer
                       : in_health_namespace   ? kHealthLayer
                                               : kPlatformLayer)
        << o.file_name;
    EXPECT_EQ(o.file_name.rfind(o.layer + "/", 0), 0u) << o.file_name;
  }
}

// gitops.destination_name: the Applications that deploy to the cluster name it (Argo CD takes
// `name` or `server`, never both); the parent stays on Argo CD's own cluster, where its
// Applications live.
TEST(PlanLayers, DestinationNameReplacesTheServerOfEveryApplicationThatDeploysToTheCluster) {
  const std::string text =
      Replace(ReadProfile("oke-h100"), "  destination_server: https://kubernetes.default.svc\n",
              "  destination_name: oke-h100-remote\n");
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText("oke-h100.yaml", text, sink);
  ASSERT_TRUE(loaded);
  RenderSettings settings;
  settings.check = RenderCheck::kReparse;
  auto bundle = RenderLoadedProfile(*loaded, sink, settings);
  ASSERT_TRUE(bundle) << (sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message);
  int named = 0;
  for (const RenderedFile& file : bundle->files) {
    if (file.content.find("kind: Application\n") == std::string::npos) continue;
    if (file.file_name == "application.yaml") {
      EXPECT_NE(file.content.find("    server: https://kubernetes.default.svc\n"),
                std::string::npos);
      EXPECT_EQ(file.content.find("name: oke-h100-remote"), std::string::npos);
      continue;
    }
    EXPECT_NE(file.content.find("  destination:\n    name: oke-h100-remote\n"), std::string::npos)
        << file.file_name;
    EXPECT_EQ(file.content.find("server:"), std::string::npos) << file.file_name;
    ++named;
  }
  EXPECT_EQ(named, 8) << "apps/platform, apps/nodes, apps/health, apps/workload and the four charts";
}

}  // namespace
}  // namespace hkim
