// Plan stage: which objects each platform gets, their waves, names, order and contexts.
#include <algorithm>
#include "plan/plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "load/load.h"
#include "plan/layers.h"
#include "plan/preconditions.h"
#include "test_files.h"
#include "validate/validate.h"
#include "model/wrapper_image.h"

namespace hkim {
namespace {

using test_files::BuildFrom;
using test_files::Find;
using test_files::FreshOpenShiftProfile;
using test_files::ReadProfile;
using test_files::Replace;

std::vector<std::string> Files(const BundlePlan& plan) {
  std::vector<std::string> out;
  for (const PlannedObject& o : plan.objects) out.push_back(o.file_name);
  return out;
}

std::map<std::string, std::string> Env(const PlannedObject& configmap) {
  std::map<std::string, std::string> env;
  for (const auto& item : configmap.context["data"]) env[item["key"]] = item["value"];
  return env;
}

TEST(Plan, OpenShiftBundleHasEveryObjectInWaveOrder) {
  // Without the periodic check (on by default in rdma mode): plan_health_test covers its objects.
  const BundlePlan plan = PlanBundle(BuildFrom(Replace(
      FreshOpenShiftProfile(), "  periodic:\n", "  periodic:\n    enabled: false\n")));
  EXPECT_EQ(plan.bundle_name, "barcelona");
  EXPECT_EQ(
      Files(plan),
      (std::vector<std::string>{
          "platform/00-namespace-nvidia-gpu-operator.yaml",
          "platform/00-namespace-openshift-nfd.yaml",
          "platform/00-namespace-openshift-sriov-network-operator.yaml",
          "platform/00-operatorgroup-nvidia-gpu-operator-nvidia-gpu-operator-group.yaml",
          "platform/00-operatorgroup-openshift-nfd-openshift-nfd.yaml",
          "platform/00-operatorgroup-openshift-sriov-network-operator-sriov-network-operators.yaml",
          "platform/00-subscription-nvidia-gpu-operator-gpu-operator-certified.yaml",
          "platform/00-subscription-openshift-nfd-nfd.yaml",
          "platform/00-subscription-openshift-sriov-network-operator-sriov-network-operator-"
          "subscription.yaml",
          "nodes/10-clusterpolicy-cluster-policy.yaml",
          "platform/10-nodefeaturediscovery-openshift-nfd-nfd-instance.yaml",
          "platform/10-sriovoperatorconfig-openshift-sriov-network-operator-default.yaml",
          "nodes/20-machineconfig-99-h100-barcelona-iommu-passthrough.yaml",
          "nodes/20-sriovnetworknodepolicy-openshift-sriov-network-operator-barcelona-eno5np0.yaml",
          "nodes/20-sriovnetworknodepolicy-openshift-sriov-network-operator-barcelona-eno6np0.yaml",
          "nodes/20-sriovnetworknodepolicy-openshift-sriov-network-operator-barcelona-eno7np0.yaml",
          "nodes/20-sriovnetworknodepolicy-openshift-sriov-network-operator-barcelona-eno8np0.yaml",
          "nodes/20-sriovnetworkpoolconfig-openshift-sriov-network-operator-barcelona-rdma-"
          "exclusive.yaml",
          "platform/30-namespace-nccl-test.yaml",
          "platform/30-securitycontextconstraints-barcelona-nccl-rdma.yaml",
          "workload/40-networkattachmentdefinition-nccl-test-eno5np0-network.yaml",
          "workload/40-networkattachmentdefinition-nccl-test-eno6np0-network.yaml",
          "workload/40-networkattachmentdefinition-nccl-test-eno7np0-network.yaml",
          "workload/40-networkattachmentdefinition-nccl-test-eno8np0-network.yaml",
          "workload/40-role-nccl-test-h-kim-sa-use-scc-barcelona-nccl-rdma.yaml",
          "workload/40-rolebinding-nccl-test-h-kim-sa-use-scc-barcelona-nccl-rdma.yaml",
          "workload/40-serviceaccount-nccl-test-h-kim-sa.yaml",
          "workload/50-configmap-nccl-test-h-kim-nccl-env.yaml",
          "workload/60-service-nccl-test-h-kim-headless.yaml",
          "workload/70-statefulset-nccl-test-h-kim.yaml"}));
  int last_wave = -1;
  for (const PlannedObject& o : plan.objects) {
    EXPECT_GE(o.sync_wave, last_wave) << o.file_name;
    last_wave = o.sync_wave;
    EXPECT_EQ(o.context["metadata"]["sync_wave"], std::to_string(o.sync_wave));
  }
  EXPECT_EQ(plan.objects.front().kind, "Namespace");
  EXPECT_EQ(plan.objects.back().kind, "StatefulSet");
  // Only CRs of operator-installed CRDs skip the dry run; OpenShift's own kinds do not.
  const std::set<std::string> operator_crs = {"SriovOperatorConfig", "NodeFeatureDiscovery",
                                              "ClusterPolicy", "SriovNetworkNodePolicy",
                                              "SriovNetworkPoolConfig"};
  for (const PlannedObject& o : plan.objects) {
    EXPECT_EQ(o.context["metadata"]["skip_dry_run"].get<bool>(), operator_crs.count(o.kind) == 1)
        << o.file_name;
  }
  const PlannedObject* mc = Find(plan, "MachineConfig", "99-h100-barcelona-iommu-passthrough");
  ASSERT_NE(mc, nullptr);
  // AMD hosts: iommu=pt alone (the kernel enables the AMD IOMMU by default).
  ASSERT_EQ(mc->context["kernel_arguments"].size(), 1u);
  EXPECT_EQ(mc->context["kernel_arguments"][0]["value"], "iommu=pt");
  EXPECT_TRUE(mc->namespace_name.empty());
  // The node policies drain and reboot with the MachineConfig: same wave.
  EXPECT_EQ(mc->sync_wave, Find(plan, "SriovNetworkNodePolicy", "barcelona-eno5np0")->sync_wave);
}

// The live nccl-rdma-scc and 99-worker-iommu-passthrough were made by hand
// (other teams' service accounts are listed in the SCC); the bundle's own carry the cluster name
// and survive deleting the Application (removing the MachineConfig reboots nodes).
TEST(Plan, ClusterScopedNodeAndSccObjectsAreTheBundlesOwnAndKeptOnDelete) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  EXPECT_EQ(Find(plan, "SecurityContextConstraints", "nccl-rdma-scc"), nullptr);
  EXPECT_EQ(Find(plan, "MachineConfig", "99-worker-iommu-passthrough"), nullptr);
  for (const auto& [kind, name] : std::vector<std::pair<std::string, std::string>>{
           {"SecurityContextConstraints", "barcelona-nccl-rdma"},
           {"MachineConfig", "99-h100-barcelona-iommu-passthrough"}}) {
    const PlannedObject* o = Find(plan, kind, name);
    ASSERT_NE(o, nullptr) << kind << " " << name;
    const std::string options = o->context["metadata"]["sync_options"];
    EXPECT_NE(options.find("Prune=false"), std::string::npos) << name;
    EXPECT_NE(options.find("Delete=false"), std::string::npos) << name;
  }
  // Workload namespaces may exist already (nccl-test, a team's project): adopted, never deleted.
  for (const std::string ns : {"nccl-test"}) {
    const PlannedObject* o = Find(plan, "Namespace", ns);
    ASSERT_NE(o, nullptr) << ns;
    EXPECT_EQ(o->context["metadata"]["sync_options"], "Prune=false,Delete=false") << ns;
  }
  // The Role granting `use` names the bundle's SCC.
  EXPECT_EQ(Find(plan, "Role", "h-kim-sa-use-scc-barcelona-nccl-rdma")->context["scc"],
            "barcelona-nccl-rdma");
  // Naming an SCC in the profile adopts it deliberately.
  const BundlePlan adopted = PlanBundle(BuildFrom(Replace(
      FreshOpenShiftProfile(), "  service_account: h-kim-sa\n",
      "  service_account: h-kim-sa\n  scc_name: nccl-rdma-scc\n")));
  EXPECT_NE(Find(adopted, "SecurityContextConstraints", "nccl-rdma-scc"), nullptr);
}

// The MachineConfig's role comes from the profile; a custom role gets its pool
// unless one exists already (Barcelona's hand-made h100), and role worker needs none.
TEST(Plan, CustomMachineConfigRoleGetsItsPoolUnlessItExists) {
  const std::string barcelona = FreshOpenShiftProfile();
  const BundlePlan existing = PlanBundle(BuildFrom(barcelona));
  EXPECT_EQ(Find(existing, "MachineConfig", "99-h100-barcelona-iommu-passthrough")
                ->context["role"],
            "h100");
  for (const PlannedObject& o : existing.objects) EXPECT_NE(o.kind, "MachineConfigPool");
  const BundlePlan created = PlanBundle(
      BuildFrom(Replace(barcelona, "machine_config_pool: existing", "machine_config_pool: create")));
  const PlannedObject* pool = Find(created, "MachineConfigPool", "barcelona-h100");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->context["node_role_label"], "node-role.kubernetes.io/h100");
  EXPECT_LT(pool->sync_wave,
            Find(created, "MachineConfig", "99-h100-barcelona-iommu-passthrough")->sync_wave);
  EXPECT_NE(pool->context["metadata"]["sync_options"].get<std::string>().find("Delete=false"),
            std::string::npos);
  const BundlePlan worker = PlanBundle(BuildFrom(Replace(
      Replace(barcelona, "machine_config_role: h100", "machine_config_role: worker"),
      "machine_config_pool: existing", "machine_config_pool: create")));
  ASSERT_NE(Find(worker, "MachineConfig", "99-worker-barcelona-iommu-passthrough"), nullptr);
  for (const PlannedObject& o : worker.objects) EXPECT_NE(o.kind, "MachineConfigPool");
}

TEST(Plan, LayerKustomizationsListTheirObjectsButNotTheApplications) {
  const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile("oke-h100")));
  EXPECT_EQ(plan.kustomization.file_name, "kustomization.yaml");
  EXPECT_EQ(plan.kustomization.context["resources"],
            nlohmann::json::parse(R"([{"file":"platform"},{"file":"nodes"},{"file":"health"},{"file":"workload"}])"));
  std::vector<std::string> listed;
  for (const PlannedObject& file : plan.layer_files) {
    if (file.kind != "Kustomization") continue;
    const std::string dir = file.file_name.substr(0, file.file_name.find('/') + 1);
    for (const auto& resource : file.context["resources"])
      listed.push_back(dir + resource["file"].get<std::string>());
  }
  // Each layer's kustomization lists its own files; together, every file of the plan once, but
  // the chart Applications, which live in apps/ beside the layer Applications.
  std::vector<std::string> files;
  for (const std::string& file : Files(plan)) {
    if (file.rfind(std::string(kAppsLayer) + "/", 0) != 0) files.push_back(file);
  }
  EXPECT_LT(files.size(), Files(plan).size());  // oke-h100 installs charts
  std::sort(listed.begin(), listed.end());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(listed, files);
  EXPECT_EQ(plan.application.file_name, "application.yaml");
  EXPECT_EQ(plan.application.context["repo_url"], "https://github.com/hkim/hkimgen-bundles.git");
  EXPECT_EQ(plan.application.context["path"], "out/oke-h100/apps");
  EXPECT_EQ(plan.application.context["revision"], "main");
  EXPECT_EQ(plan.application.namespace_name, "argocd");
}

// The app-of-apps waves gate only with Argo CD's Application health check, which
// Argo CD dropped from its defaults: every bundle declares it, with the check for its platform.
TEST(Plan, EveryBundleDeclaresArgoCdsApplicationHealthCheck) {
  for (const char* name : {"oke-h100", "barcelona-h100-cx7"}) {
    const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile(name)));
    int found = 0;
    for (const Precondition& pre : plan.preconditions) {
      if (pre.kind != "argocd-health") continue;
      ++found;
      EXPECT_EQ(pre.what, "argoproj.io/Application");
      const bool openshift = std::string(name).rfind("oke", 0) != 0;
      EXPECT_NE(pre.check.find(openshift ? "resourceHealthChecks" : "argocd-cm"), std::string::npos)
          << pre.check;
    }
    EXPECT_EQ(found, 1) << name;
  }
}

// An OKE bundle that installs an operator's chart declares that the operator is not
// installed already (OKE add-on, another Helm release); OLM on OpenShift has no such twin.
TEST(Plan, OkeChartsDeclareTheOperatorIsNotInstalledAlready) {
  std::set<std::string> charts;
  for (const Precondition& pre : PlanBundle(BuildFrom(ReadProfile("oke-h100"))).preconditions)
    if (pre.kind == "not-installed") {
      charts.insert(pre.what);
      EXPECT_NE(pre.check.find("helm list -A"), std::string::npos) << pre.check;
      EXPECT_NE(pre.check.find("list-addons"), std::string::npos) << pre.check;
    }
  EXPECT_EQ(charts.count("gpu-operator"), 1u);
  EXPECT_EQ(charts.count("network-operator"), 1u);
  for (const Precondition& pre : PlanBundle(BuildFrom(ReadProfile("barcelona-h100-cx7"))).preconditions)
    EXPECT_NE(pre.kind, "not-installed") << pre.what;
}

// OCI creates A100 VFs only in some regions (seed 004: Phoenix and Osaka); an A100
// OKE bundle declares it with a check that shows the nodes' region, an H100 one does not.
TEST(Plan, OkeA100BundlesDeclareTheVfRegionPrecondition) {
  for (const char* name : {"oke-a100", "oke-a100-gpu4", "oke-h100", "barcelona-h100-cx7"}) {
    const Profile profile = BuildFrom(ReadProfile(name));
    int found = 0;
    for (const Precondition& pre : PlanBundle(profile).preconditions) {
      if (pre.kind != "oci-region") continue;
      ++found;
      EXPECT_EQ(pre.what, "sriov-vfs/" + profile.node_shape.name);
      EXPECT_NE(pre.why.find("Phoenix (PHX"), std::string::npos) << pre.why;
      EXPECT_NE(pre.why.find("Osaka (KIX"), std::string::npos) << pre.why;
      EXPECT_EQ(pre.check, "kubectl get nodes -l node.kubernetes.io/instance-type=" +
                               profile.node_shape.name + " -L topology.kubernetes.io/region");
      EXPECT_EQ(pre.pointer, "/node_shape/name");
    }
    EXPECT_EQ(found, std::string(name).rfind("oke-a100", 0) == 0 ? 1 : 0) << name;
  }
  EXPECT_TRUE(IsOciA100Shape("BM.GPU.A100-v2.8"));
  EXPECT_TRUE(IsOciA100Shape("BM.GPU4.8"));
  EXPECT_FALSE(IsOciA100Shape("BM.GPU.H100.8"));
}

TEST(Plan, OkeBundleUsesNetworkOperatorObjectsAndNoScc) {
  const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile("oke-h100")));
  std::set<std::string> kinds;
  for (const PlannedObject& o : plan.objects) kinds.insert(o.kind);
  EXPECT_EQ(kinds, (std::set<std::string>{"Application", "ClusterQueue", "ClusterRole",
                                          "ClusterRoleBinding", "ConfigMap", "CronJob",
                                          "DaemonSet", "IPPool", "LocalQueue",
                                          "ResourceFlavor", "Role", "RoleBinding", "Topology",
                                          "ValidatingAdmissionPolicy",
                                          "ValidatingAdmissionPolicyBinding",
                                          "Namespace", "NetworkAttachmentDefinition",
                                          "NicClusterPolicy", "PriorityClass", "Service",
                                          "ServiceAccount", "StatefulSet"}));
  const PlannedObject* ns = Find(plan, "Namespace", "gpu-training");
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->context["metadata"]["sync_options"], "Prune=false,Delete=false");
  EXPECT_EQ(ns->context["pod_security_level"], "privileged");
  const PlannedObject* policy = Find(plan, "NicClusterPolicy", "nic-cluster-policy");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->sync_wave, kWaveOperatorConfig);
  EXPECT_TRUE(policy->context["metadata"]["skip_dry_run"].get<bool>());
  const auto config =
      nlohmann::json::parse(policy->context["sriov_device_plugin"]["config"].get<std::string>());
  EXPECT_EQ(config["resourceList"][0]["resourceName"], "sriov_rdma_vf");
  EXPECT_EQ(config["resourceList"][0]["resourcePrefix"], "nvidia.com");
  // The H100 profile owns the OKE cluster's one policy, so it selects the A100 pools' VFs too.
  EXPECT_EQ(config["resourceList"][0]["selectors"]["devices"], nlohmann::json({"101e", "101a"}));
  EXPECT_EQ(config["resourceList"][0]["selectors"]["isRdma"], true);
  const PlannedObject* pool = Find(plan, "IPPool", "default");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->namespace_name, "network-operator");
  EXPECT_EQ(pool->context["per_node_block_size"], 100);
  EXPECT_TRUE(pool->context["metadata"]["skip_dry_run"].get<bool>());
}

TEST(Plan, OkeStatefulSetAsksForSixteenVfsAndListsTheNadSixteenTimes) {
  const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile("oke-a100")));
  const PlannedObject* sts = Find(plan, "StatefulSet", "nccl-allreduce");
  ASSERT_NE(sts, nullptr);
  std::string expected;
  for (int i = 0; i < 16; ++i) expected += (i ? "," : "") + std::string("oci-rdma-sriov");
  EXPECT_EQ(sts->context["networks"], expected);
  bool found = false;
  for (const auto& r : sts->context["limits"]) {
    if (r["name"] == "nvidia.com/sriov_rdma_vf") {
      EXPECT_EQ(r["value"], "16");
      found = true;
    }
  }
  EXPECT_TRUE(found);
  // crio-ulimits: IPC_LOCK only, not privileged.
  EXPECT_FALSE(sts->context["privileged"].get<bool>());
  EXPECT_EQ(sts->context["capabilities"], nlohmann::json::array({{{"value", "IPC_LOCK"}}}));
}

TEST(Plan, StatefulSetFollowsThePodRuntimeContract) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  const PlannedObject* sts = Find(plan, "StatefulSet", "h-kim");
  ASSERT_NE(sts, nullptr);
  const auto& c = sts->context;
  EXPECT_EQ(c["wrapper_install_command"],
            nlohmann::json::parse(R"([{"value":"/hkim/bin/hkim-wrapper"},{"value":"--install-to"},
                                      {"value":"/opt/hkim/bin"}])"));
  EXPECT_EQ(c["command"][0]["value"], "/opt/hkim/bin/hkim-wrapper");
  EXPECT_EQ(c["command"][1]["value"], "--");
  // The in-pod fabric check (fabric_health.gate, on by default) runs before the command.
  EXPECT_EQ(c["command"][2]["value"], "/opt/hkim/bin/hkim-health");
  EXPECT_EQ(c["command"][3]["value"], "pod");
  EXPECT_EQ(c["command"][4]["value"], "--");
  EXPECT_EQ(c["command"][5]["value"], "sleep");
  EXPECT_EQ(c["env"][0],
            nlohmann::json({{"name", "MASTER_ADDR"},
                            {"value", "h-kim-0.h-kim-headless.nccl-test.svc.cluster.local"}}));
  EXPECT_EQ(c["env"][2], nlohmann::json({{"name", "HKIM_REPLICAS"}, {"value", "2"}}));
  EXPECT_EQ(c["networks"], "eno5np0-network,eno6np0-network,eno7np0-network,eno8np0-network");
  EXPECT_EQ(c["capabilities"],
            nlohmann::json::parse(R"([{"value":"IPC_LOCK"},{"value":"SYS_RESOURCE"}])"));
  EXPECT_EQ(c["shm_size"], "32Gi");
  EXPECT_EQ(c["replicas"], 2);
}

TEST(Plan, WrapperImageIsThisVersionAndPinnedByDigestWhenGiven) {
  const std::string text = FreshOpenShiftProfile();
  const auto image = [](const BundlePlan& plan) {
    return Find(plan, "StatefulSet", "h-kim")->context["wrapper_image"].get<std::string>();
  };
  const std::string tag = std::string("quay.io/hkim/hkim-wrapper:") + WrapperImageVersion();
  EXPECT_EQ(image(PlanBundle(BuildFrom(text))), tag);
  const std::string digest = "sha256:" + std::string(64, 'c');
  const std::string pinned = Replace(text, "\nwrapper:\n", "\nwrapper:\n  digest: " + digest + "\n");
  EXPECT_EQ(image(PlanBundle(BuildFrom(pinned))), tag + "@" + digest);
  // A digest already in wrapper.image is replaced, not doubled.
  const std::string both =
      Replace(pinned, tag + "\n", tag + "@sha256:" + std::string(64, 'd') + "\n");
  EXPECT_EQ(image(PlanBundle(BuildFrom(both))), tag + "@" + digest);
}

TEST(Plan, RdmaEnvLeavesDetectedVariablesToTheWrapper) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  const auto env = Env(*Find(plan, "ConfigMap", "h-kim-nccl-env"));
  EXPECT_EQ(env.count("NCCL_IB_HCA"), 0u);
  EXPECT_EQ(env.count("NCCL_IB_GID_INDEX"), 0u);
  EXPECT_EQ(env.count("NCCL_SOCKET_IFNAME"), 0u);
  EXPECT_EQ(env.count("NCCL_IB_DISABLE"), 0u);
  EXPECT_EQ(env.at("HKIM_ON_NO_RDMA"), "fail");
  EXPECT_EQ(env.at("HKIM_NCCL_CHECK"), "warn");
  EXPECT_EQ(env.at("HKIM_NCCL_CHECK_AT_BYTES"), "1073741824");
}

// The barcelona-h100-cx7 preset is synthetic (GPU bus IDs and switches assumed,
// RDMA names that moved from mlx5_10 to mlx5_8), so the bundle leaves NCCL's own detection alone
// unless the profile vouches for it; OCI's presets are taken from real files and shipped.
TEST(Plan, TopologyFileIsShippedOnlyForAVerifiedDescription) {
  auto topology_parts = [](const BundlePlan& plan, const std::string& workload) {
    const PlannedObject* env_map = Find(plan, "ConfigMap", workload + "-nccl-env");
    const PlannedObject* sts = Find(plan, "StatefulSet", workload);
    EXPECT_TRUE(env_map && sts);
    if (!env_map || !sts) return std::vector<bool>{};
    return std::vector<bool>{Env(*env_map).count("NCCL_TOPO_FILE") == 1,
                             Find(plan, "ConfigMap", workload + "-nccl-topology") != nullptr,
                             sts->context["has_topology"].get<bool>()};
  };
  const std::string barcelona = FreshOpenShiftProfile();
  EXPECT_EQ(topology_parts(PlanBundle(BuildFrom(barcelona)), "h-kim"),
            (std::vector<bool>{false, false, false}));
  const std::string opted_in = Replace(barcelona, "    preset: barcelona-h100-cx7\n",
                                       "    preset: barcelona-h100-cx7\n    verified: true\n");
  EXPECT_EQ(topology_parts(PlanBundle(BuildFrom(opted_in)), "h-kim"),
            (std::vector<bool>{true, true, true}));
  const std::string oke = ReadProfile("oke-h100");
  EXPECT_EQ(topology_parts(PlanBundle(BuildFrom(oke)), "nccl-allreduce"),
            (std::vector<bool>{true, true, true}));
  const std::string oke_unverified =
      Replace(oke, "    preset: BM.GPU.H100.8\n", "    preset: BM.GPU.H100.8\n    verified: false\n");
  EXPECT_EQ(topology_parts(PlanBundle(BuildFrom(oke_unverified)), "nccl-allreduce"),
            (std::vector<bool>{false, false, false}));
}

// `kubectl exec ... torchrun` bypasses the wrapper; NCCL reads the wrapper's
// decisions from NCCL_CONF_FILE, which must lie in a writable volume of the pod.
TEST(Plan, NcclConfFileIsInAWritableVolumeOfThePod) {
  for (const char* name : {"barcelona-h100-cx7", "oke-h100"}) {
    const Profile profile = BuildFrom(ReadProfile(name));
    const BundlePlan plan = PlanBundle(profile);
    const auto env = Env(*Find(plan, "ConfigMap", profile.workload.name + "-nccl-env"));
    ASSERT_EQ(env.count("NCCL_CONF_FILE"), 1u) << name;
    const std::string dir =
        Find(plan, "StatefulSet", profile.workload.name)->context["nccl_conf_dir"];
    EXPECT_EQ(env.at("NCCL_CONF_FILE").rfind(dir + "/", 0), 0u) << name;
  }
  const BundlePlan own = PlanBundle(BuildFrom(Replace(FreshOpenShiftProfile(),
                                                      "  extra_env:\n",
                                                      "  extra_env:\n    NCCL_CONF_FILE: /x/n.conf\n")));
  EXPECT_EQ(Env(*Find(own, "ConfigMap", "h-kim-nccl-env")).at("NCCL_CONF_FILE"), "/x/n.conf");
}

TEST(Plan, PinnedSettingsAreWrittenWithExactMatch) {
  std::string text = FreshOpenShiftProfile();
  text = Replace(text, "  gid_policy: auto\n",
                 "  gid_policy: index\n  gid_index: 3\n  ib_hca: [mlx5_6, mlx5_7]\n");
  const auto env = Env(*Find(PlanBundle(BuildFrom(text)), "ConfigMap", "h-kim-nccl-env"));
  EXPECT_EQ(env.at("NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_6,mlx5_7");
}

TEST(Plan, TcpModeDropsRailsAndSccAndUsesEth0) {
  std::string text = Replace(FreshOpenShiftProfile(), "  mode: rdma", "  mode: tcp");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  for (const PlannedObject& o : plan.objects) {
    EXPECT_NE(o.kind, "NetworkAttachmentDefinition");
    EXPECT_NE(o.kind, "SecurityContextConstraints");
    EXPECT_NE(o.kind, "Role");
  }
  const PlannedObject* sts = Find(plan, "StatefulSet", "h-kim");
  ASSERT_NE(sts, nullptr);
  EXPECT_FALSE(sts->context["has_networks"].get<bool>());
  EXPECT_FALSE(sts->context["has_capabilities"].get<bool>());
  for (const auto& r : sts->context["requests"])
    EXPECT_EQ(std::string(r["name"]).find("rdma"), std::string::npos) << r["name"];
  const auto env = Env(*Find(plan, "ConfigMap", "h-kim-nccl-env"));
  EXPECT_EQ(env.at("NCCL_IB_DISABLE"), "1");
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "eth0");
  EXPECT_EQ(env.at("HKIM_MODE"), "tcp");
  EXPECT_EQ(env.at("HKIM_NCCL_CHECK"), "warn");
  EXPECT_EQ(env.count("NCCL_IB_TC"), 0u);
  EXPECT_EQ(env.count("HKIM_ON_NO_RDMA"), 0u);
}

TEST(Plan, EveryNamespaceGetsItsOwnAccessNetworksAndWorkload) {
  std::string text = Replace(FreshOpenShiftProfile(), "  - nccl-test\n",
                             "  - nccl-test\n  - b-efficient-memory-offloading-765cab\n");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  std::map<std::string, int> per_namespace, per_health_namespace;
  for (const PlannedObject& o : plan.objects) {
    if (o.layer == kWorkloadLayer) ++per_namespace[o.namespace_name];
    if (o.layer == kHealthLayer) ++per_health_namespace[o.namespace_name];
  }
  ASSERT_EQ(per_namespace.size(), 2u);
  // SA, Role, RoleBinding, 4 NADs, the NCCL env CM (no topology CM: the Barcelona preset is not
  // verified), Svc, STS (the fabric check runs in its pods)
  EXPECT_EQ(per_namespace["nccl-test"], 10);
  EXPECT_EQ(per_namespace["b-efficient-memory-offloading-765cab"], 10);
  // The pool's one periodic check (on by default in rdma mode), in the first namespace's health
  // namespace: the coordinator's SA and its pods Role and RoleBinding, the check pods' SA and
  // its SCC Role and RoleBinding, copies of the 4 NADs and the NCCL env CM, the check pod CM,
  // CronJob.
  ASSERT_EQ(per_health_namespace.size(), 1u);
  EXPECT_EQ(per_health_namespace["nccl-test-fabric-health"], 13);
  int sccs = 0;
  for (const PlannedObject& o : plan.objects) sccs += o.kind == "SecurityContextConstraints";
  EXPECT_EQ(sccs, 1);  // cluster-scoped, granted per namespace through RBAC
  std::set<std::string> files;
  for (const PlannedObject& o : plan.objects) EXPECT_TRUE(files.insert(o.file_name).second);
}

TEST(Plan, OkeTcpModeNeedsNoOperatorObjectsAndOnlyBaselinePodSecurity) {
  std::string text = Replace(ReadProfile("oke-h100"), "  mode: rdma", "  mode: tcp");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  for (const PlannedObject& o : plan.objects) {
    EXPECT_NE(o.kind, "NicClusterPolicy");
    EXPECT_NE(o.kind, "IPPool");
    EXPECT_NE(o.kind, "NetworkAttachmentDefinition");
  }
  EXPECT_EQ(Find(plan, "Namespace", "gpu-training")->context["pod_security_level"], "baseline");
}

TEST(Plan, PrivilegedStrategyGrantsTheBuiltInSccInsteadOfMakingOne) {
  std::string text = Replace(FreshOpenShiftProfile(),
                             "memlock_strategy: sys-resource-scc", "memlock_strategy: privileged");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  for (const PlannedObject& o : plan.objects) EXPECT_NE(o.kind, "SecurityContextConstraints");
  const PlannedObject* role = Find(plan, "Role", "h-kim-sa-use-scc-privileged");
  ASSERT_NE(role, nullptr);
  EXPECT_EQ(role->context["scc"], "privileged");
  EXPECT_TRUE(Find(plan, "StatefulSet", "h-kim")->context["privileged"].get<bool>());
}

TEST(Plan, CrioUlimitsOnOpenShiftAddsTheMemlockMachineConfig) {
  std::string text =
      Replace(FreshOpenShiftProfile(), "memlock_strategy: sys-resource-scc",
              "memlock_strategy: crio-ulimits");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  EXPECT_NE(Find(plan, "MachineConfig", "99-h100-barcelona-crio-memlock"), nullptr);
  const PlannedObject* scc = Find(plan, "SecurityContextConstraints", "barcelona-nccl-rdma");
  ASSERT_NE(scc, nullptr);
  EXPECT_EQ(scc->context["allowed_capabilities"], nlohmann::json::array({{{"value", "IPC_LOCK"}}}));
}

TEST(Plan, IsAPureFunctionOfTheProfile) {
  const Profile profile = BuildFrom(ReadProfile("oke-h100"));
  const BundlePlan a = PlanBundle(profile), b = PlanBundle(profile);
  ASSERT_EQ(a.objects.size(), b.objects.size());
  for (size_t i = 0; i < a.objects.size(); ++i) {
    EXPECT_EQ(a.objects[i].file_name, b.objects[i].file_name);
    EXPECT_EQ(a.objects[i].context.dump(), b.objects[i].context.dump());
  }
}

}  // namespace
}  // namespace hkim
