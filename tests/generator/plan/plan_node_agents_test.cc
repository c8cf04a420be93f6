// What one object of the shipped bundles needs of another. The OKE
// NAD chains sriov and rdma, so the bundle installs both CNI plugins on the workload's nodes; the
// rdma CNI needs the RDMA subsystem in exclusive netns mode (VF DaemonSet on OKE,
// SriovNetworkPoolConfig on OpenShift); GPUDirect with the host's driver loads nvidia_peermem;
// the node agents tolerate what the workload tolerates.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "model/operator_versions.h"
#include "pipeline/pipeline.h"
#include "plan/plan.h"
#include "test_files.h"

namespace hkim {
namespace {

using nlohmann::json;
using test_files::BuildFrom;
using test_files::Find;
using test_files::FreshOpenShiftProfile;
using test_files::ReadProfile;
using test_files::Replace;

// The CNI plugin types a NAD's config chains (or its one `type`).
std::set<std::string> ChainedTypes(const PlannedObject& nad) {
  const json config = json::parse(nad.context["config"].get<std::string>());
  std::set<std::string> types;
  if (config.contains("plugins")) {
    for (const json& plugin : config["plugins"]) types.insert(plugin["type"].get<std::string>());
  } else {
    types.insert(config["type"].get<std::string>());
  }
  return types;
}

// The rendered text of one planned object of a shipped profile (with `sets` as --set).
std::string RenderedText(const std::string& profile, const std::string& template_name,
                         const std::vector<std::string>& sets = {}) {
  DiagnosticSink sink;
  auto bundle = RenderProfileLayers(
      LayerInputs{(std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / (profile + ".yaml"))
                      .string(),
                  {},
                  sets},
      sink);
  for (const Diagnostic& d : sink.diagnostics())
    if (d.severity == Severity::kError) ADD_FAILURE() << d.rule << ": " << d.message;
  if (!bundle) return "";
  for (const RenderedFile& file : bundle->files)
    if (file.template_name == template_name) return file.content;
  ADD_FAILURE() << template_name << " not rendered for " << profile;
  return "";
}

TEST(PlanNodeAgents, OkeInstallsEverySriovAndRdmaCniTheNadChainsOnTheWorkloadsNodes) {
  for (const char* name : {"oke-h100", "oke-a100", "oke-a100-gpu4"}) {
    const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile(name)));
    const PlannedObject* nad = nullptr;
    const PlannedObject* sts = nullptr;
    for (const PlannedObject& o : plan.objects) {
      if (o.kind == "NetworkAttachmentDefinition") nad = &o;
      if (o.kind == "StatefulSet") sts = &o;
    }
    ASSERT_NE(nad, nullptr) << name;
    ASSERT_NE(sts, nullptr) << name;
    const std::set<std::string> types = ChainedTypes(*nad);
    ASSERT_TRUE(types.count("sriov") && types.count("rdma")) << name;
    for (const char* plugin : {"sriov", "rdma"}) {
      const PlannedObject* ds = Find(plan, "DaemonSet", std::string(name) + "-" + plugin + "-cni");
      ASSERT_NE(ds, nullptr) << name << " " << plugin;
      EXPECT_LT(ds->sync_wave, nad->sync_wave);  // on the nodes before any pod attaches
      EXPECT_EQ(ds->namespace_name, std::string(name) + "-vf-config");
      EXPECT_EQ(ds->context["node_selector"], sts->context["node_selector"]) << name;
      EXPECT_EQ(ds->context["tolerations"], sts->context["tolerations"]) << name;
      EXPECT_EQ(ds->context["image"], std::string("nvcr.io/nvidia/mellanox/") + plugin +
                                          "-cni:network-operator-v25.10.0");
      // Unstated SELinux counts as enforcing: container_t may not write /opt/cni/bin.
      EXPECT_TRUE(ds->context["privileged"].get<bool>());
    }
  }
  // The images follow the pinned Network Operator release, as the NicClusterPolicy's do.
  const BundlePlan old = PlanBundle(BuildFrom(
      Replace(ReadProfile("oke-h100"), "    version: v25.10.0", "    version: v25.4.0")));
  EXPECT_EQ(Find(old, "DaemonSet", "oke-h100-sriov-cni")->context["image"],
            "ghcr.io/k8snetworkplumbingwg/sriov-cni:v2.8.1");
  EXPECT_EQ(Find(old, "DaemonSet", "oke-h100-rdma-cni")->context["image"],
            "ghcr.io/k8snetworkplumbingwg/rdma-cni:v1.3.0");
}

TEST(PlanNodeAgents, OkeCniDaemonSetRunsTheImageEntrypointWithoutCapabilities) {
  const std::string text = RenderedText(
      "oke-h100", "operators-oke/daemonset-cni-plugin.yaml.mustache", {"node_shape.selinux=permissive"});
  EXPECT_NE(text.find("image: nvcr.io/nvidia/mellanox/"), std::string::npos);
  EXPECT_NE(text.find("mountPath: /host/opt/cni/bin"), std::string::npos);
  EXPECT_NE(text.find("path: /opt/cni/bin"), std::string::npos);
  EXPECT_NE(text.find("drop: [ALL]"), std::string::npos);
  EXPECT_EQ(text.find("privileged: true"), std::string::npos);
  EXPECT_EQ(text.find("hostNetwork"), std::string::npos);
  EXPECT_NE(text.find("key: nvidia.com/gpu"), std::string::npos);
}

TEST(PlanNodeAgents, OkeVfDaemonSetSetsExclusiveRdmaNetnsUsesSystemdAndLoadsHostPeermem) {
  const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile("oke-h100")));
  const PlannedObject* ds = Find(plan, "DaemonSet", "oke-h100-vf-config");
  ASSERT_NE(ds, nullptr);
  // Host driver 535 (driver.enabled false), host MOFED, gpudirect auto: nvidia-peermem, which no
  // operator loads for a host driver.
  EXPECT_TRUE(ds->context["load_peermem"].get<bool>());
  EXPECT_EQ(ds->context["capabilities"], json::parse(R"(["NET_ADMIN","SYS_CHROOT","SYS_MODULE"])"));
  EXPECT_EQ(ds->context["image"], "docker.io/library/oraclelinux:9");
  const std::string text = RenderedText(
      "oke-h100", "operators-oke/daemonset-vf-config.yaml.mustache", {"node_shape.selinux=disabled"});
  EXPECT_NE(text.find("rdma system set netns exclusive"), std::string::npos);
  EXPECT_NE(text.find("options ib_core netns_mode=0"), std::string::npos);
  EXPECT_NE(text.find("modprobe nvidia_peermem"), std::string::npos);
  EXPECT_NE(text.find("systemctl stop oracle-cloud-agent"), std::string::npos);
  EXPECT_NE(text.find("SYSTEMD_IGNORE_CHROOT=1"), std::string::npos);
  EXPECT_EQ(text.find("snap "), std::string::npos);  // Oracle Linux 8 has no snap
  EXPECT_NE(text.find("allowPrivilegeEscalation: false"), std::string::npos);
  EXPECT_EQ(text.find("- operator: Exists\n      containers"), std::string::npos);  // not tolerate-all

  // The GPU Operator's own driver brings its own peermem: the DaemonSet loads nothing then.
  const BundlePlan own_driver = PlanBundle(BuildFrom(Replace(
      ReadProfile("oke-h100"), "      enabled: false        # the OCI GPU image ships the driver",
      "      enabled: true         #")));
  const PlannedObject* plain = Find(own_driver, "DaemonSet", "oke-h100-vf-config");
  EXPECT_FALSE(plain->context["load_peermem"].get<bool>());
  EXPECT_EQ(plain->context["capabilities"], json::parse(R"(["NET_ADMIN","SYS_CHROOT"])"));
  // The chart Application says who loads peermem with the host driver.
  EXPECT_TRUE(Find(plan, "Application", "oke-h100-gpu-operator")->context["host_peermem"]
                  .get<bool>());
}

// The securityContext of each OKE node agent per SELinux mode: privileged (with the reason in
// the manifest) where it enforces or is unstated, capabilities only where it does not.
TEST(PlanNodeAgents, OkeNodeAgentsRunPrivilegedOnlyWhereSelinuxEnforces) {
  const char* vf = "operators-oke/daemonset-vf-config.yaml.mustache";
  const char* cni = "operators-oke/daemonset-cni-plugin.yaml.mustache";
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, std::vector<std::string>{"node_shape.selinux=enforcing"}}) {
    for (const char* name : {vf, cni}) {
      const std::string text = RenderedText("oke-h100", name, sets);
      EXPECT_NE(text.find("          privileged: true\n"), std::string::npos) << name;
      EXPECT_EQ(text.find("capabilities:"), std::string::npos) << name;
      EXPECT_NE(text.find("# Privileged because SELinux enforces on these nodes"), std::string::npos) << name;
      EXPECT_NE(text.find(sets.empty() ? "unstated, and Oracle Linux 8 installs enforcing" : "says so"),
                std::string::npos)
          << name;
    }
  }
  EXPECT_NE(RenderedText("oke-h100", vf).find("may not write the host's sysfs (sriov_numvfs"),
            std::string::npos);
  EXPECT_NE(RenderedText("oke-h100", cni).find("may not write files into host paths (/opt/cni/bin"),
            std::string::npos);
  for (const char* mode : {"permissive", "disabled"}) {
    const std::string set = std::string("node_shape.selinux=") + mode;
    const std::string vf_text = RenderedText("oke-h100", vf, {set});
    EXPECT_EQ(vf_text.find("privileged: true"), std::string::npos) << mode;
    EXPECT_EQ(vf_text.find("# Privileged"), std::string::npos) << mode;
    EXPECT_NE(vf_text.find("add:\n            - NET_ADMIN\n            - SYS_CHROOT\n"),
              std::string::npos)
        << mode;
    const std::string cni_text = RenderedText("oke-h100", cni, {set});
    EXPECT_EQ(cni_text.find("privileged: true"), std::string::npos) << mode;
    EXPECT_NE(cni_text.find("drop: [ALL]"), std::string::npos) << mode;
  }
  // operators.vf_config.privileged still asks for it where SELinux would not need it.
  const std::string asked = RenderedText(
      "oke-h100", cni, {"node_shape.selinux=permissive", "operators.vf_config.privileged=true"});
  EXPECT_NE(asked.find("privileged: true"), std::string::npos);
  EXPECT_NE(asked.find("# Privileged because operators.vf_config.privileged asks for it (SELinux permissive"),
            std::string::npos);
}

// A profile that adds its own GPU-node taint gets it on every node agent the workload needs.
TEST(PlanNodeAgents, AProfilesOwnGpuNodeTaintReachesEveryNodeAgent) {
  const std::string text = Replace(ReadProfile("oke-h100"),
                                   "    - key: nvidia.com/gpu\n      operator: Exists\n",
                                   "    - key: nvidia.com/gpu\n      operator: Exists\n"
                                   "    - key: example.com/dedicated\n      operator: Equal\n"
                                   "      value: training\n      effect: NoSchedule\n");
  const BundlePlan plan = PlanBundle(BuildFrom(text));
  const json want = json::parse(R"({"operator":"Equal","has_key":true,"key":"example.com/dedicated",
      "has_value":true,"value":"training","has_effect":true,"effect":"NoSchedule"})");
  for (const auto& [kind, name] : std::vector<std::pair<std::string, std::string>>{
           {"NicClusterPolicy", "nic-cluster-policy"},
           {"DaemonSet", "oke-h100-vf-config"},
           {"DaemonSet", "oke-h100-sriov-cni"},
           {"DaemonSet", "oke-h100-rdma-cni"}}) {
    const PlannedObject* o = Find(plan, kind, name);
    ASSERT_NE(o, nullptr) << kind << " " << name;
    EXPECT_TRUE(o->context["has_tolerations"].get<bool>()) << name;
    ASSERT_EQ(o->context["tolerations"].size(), 2u) << name;
    EXPECT_EQ(o->context["tolerations"][1], want) << name;
  }
  // And the NicClusterPolicy renders them where the operator reads them (spec.tolerations).
  const std::string policy = RenderedText("oke-h100", "oke/nicclusterpolicy.yaml.mustache");
  EXPECT_NE(policy.find("spec:\n  tolerations:\n  - operator: Exists\n    key: nvidia.com/gpu\n"),
            std::string::npos)
      << policy;
}

// Barcelona with the bundle's own node policies and the exclusive switch (its shipped profile
// adopts the cluster's policies and shared mode).
const std::vector<std::string> kOwnPolicies = {"operators.sriov_network_operator.install=managed",
                                               "operators.sriov_network_operator.node_policies=true",
                                               "network.rdma_netns=exclusive"};

TEST(PlanNodeAgents, OpenShiftSetsExclusiveRdmaModeOnThePolicyNodesAndChainsRdma) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  const PlannedObject* pool = Find(plan, "SriovNetworkPoolConfig", "barcelona-rdma-exclusive");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->namespace_name, "openshift-sriov-network-operator");
  EXPECT_EQ(pool->context["rdma_mode"], "exclusive");
  const PlannedObject* policy = Find(plan, "SriovNetworkNodePolicy", "barcelona-eno7np0");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(pool->context["node_selector"], policy->context["node_selector"]);
  EXPECT_EQ(pool->sync_wave, policy->sync_wave);
  for (const PlannedObject& o : plan.objects) {
    if (o.kind != "NetworkAttachmentDefinition") continue;
    EXPECT_EQ(ChainedTypes(o), (std::set<std::string>{"sriov", "rdma"})) << o.name;
    EXPECT_LT(pool->sync_wave, o.sync_wave);
  }
  const std::string text = RenderedText(
      "barcelona-h100-cx7", "operators-openshift/sriovnetworkpoolconfig.yaml.mustache", kOwnPolicies);
  EXPECT_NE(text.find("  nodeSelector:\n    matchLabels:\n      node-role.kubernetes.io/h100: \"\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rdmaMode: exclusive"), std::string::npos);
}

// Item 7: the NFD operand image is the profile's OpenShift minor, not a fixed one.
TEST(PlanNodeAgents, NfdOperandImageFollowsTheProfilesOpenShiftVersion) {
  const BundlePlan plan = PlanBundle(BuildFrom(Replace(
      FreshOpenShiftProfile(), "openshift_version: \"4.20\"", "openshift_version: \"4.19\"")));
  EXPECT_EQ(Find(plan, "NodeFeatureDiscovery", "nfd-instance")->context["operand_image"],
            "registry.redhat.io/openshift4/ose-node-feature-discovery-rhel9:v4.19");
}

// Item 8: the SCC and the pod deny privilege escalation (root with added capabilities needs none).
TEST(PlanNodeAgents, SccAndWorkloadDenyPrivilegeEscalation) {
  const std::string scc = RenderedText("barcelona-h100-cx7", "openshift/scc.yaml.mustache");
  EXPECT_NE(scc.find("\nallowPrivilegeEscalation: false\n"), std::string::npos);
  const std::string sts = RenderedText("oke-h100", "common/statefulset.yaml.mustache");
  EXPECT_NE(sts.find("allowPrivilegeEscalation: false"), std::string::npos);
}

}  // namespace
}  // namespace hkim
