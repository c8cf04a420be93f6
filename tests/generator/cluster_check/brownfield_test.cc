// A bundle that joins a cluster already running operators, node policies and other
// teams' jobs. barcelona-live.json is Barcelona as it runs (make_fixtures.py barcelona_live(),
// from ../shared/BARCELONA-LIVE.md and the reference manifests; what is inferred is marked
// there). The shipped profile passes against it; each change that would collide is reported
// with its rule, at the profile line that causes it, naming the cluster object, with a fix.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_check/check_fixture.h"
#include "discover/discover.h"
#include "load/load.h"
#include "validate/validate.h"
#include "test_files.h"

namespace hkim {
namespace {

using cluster_check_test::Check;
using cluster_check_test::Checked;
using cluster_check_test::CheckText;
using cluster_check_test::kBarcelona;
using cluster_check_test::kFixtures;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kLive[] = "barcelona-live.json";

// The one finding of `rule`, which must exist, at `pointer`.
const Diagnostic& One(const Checked& c, const std::string& rule, const std::string& pointer) {
  auto found = c.Of(rule);
  EXPECT_FALSE(found.empty()) << rule << "\n" << c.All();
  static const Diagnostic kNone;
  if (found.empty()) return kNone;
  for (const Diagnostic* d : found)
    if (d->data_path == pointer) {
      EXPECT_FALSE(d->location.file.empty()) << rule;  // the profile, or the --set that made it
      return *d;
    }
  ADD_FAILURE() << rule << " not at " << pointer << "\n" << c.All();
  return *found.front();
}

TEST(Brownfield, ShippedBarcelonaPassesAgainstTheClusterAsItRuns) {
  Checked c = Check(kBarcelona, kLive);
  EXPECT_EQ(c.Errors(), 0) << c.All();
  EXPECT_EQ(c.sink.WarningCount(), 0) << c.All();
  EXPECT_EQ(c.report.picked.size(), 3u);
  for (const cluster_check::NodeRow& row : c.report.nodes) {
    if (row.node.find("yunshi") == std::string::npos) continue;
    EXPECT_FALSE(row.picked) << row.node;
    EXPECT_EQ(row.others, std::set<std::string>{"b-ts-data-agent-0a0cee"}) << row.node;
  }
  EXPECT_THAT(cluster_check::FormatNodeTable(c.report), HasSubstr("b-ts-data-agent-0a0cee"));
  // Nothing the bundle renders depends on the release, so a different one is only a note.
  EXPECT_TRUE(c.Of("cluster.not-exported").empty()) << c.All();
}

TEST(Brownfield, ManagedGpuOperatorReportsEveryOlmCollisionAtItsInstallLine) {
  Checked c = Check(kBarcelona, kLive, {"operators.gpu_operator.install=managed"});
  const std::string at = "/operators/gpu_operator/install";
  const Diagnostic& group = One(c, "cluster.operatorgroup", at);
  EXPECT_THAT(group.message,
              HasSubstr("OperatorGroup/nvidia-gpu-operator/nvidia-gpu-operator-operatorgroup"));
  EXPECT_THAT(group.message, HasSubstr("TooManyOperatorGroups"));
  EXPECT_THAT(group.fix, HasSubstr("install: preinstalled"));
  const Diagnostic& sub = One(c, "cluster.subscription", at);
  EXPECT_THAT(sub.message, HasSubstr("channel (the package's default)"));
  EXPECT_THAT(sub.message, HasSubstr("upgrades the running operator"));
  const Diagnostic& csv = One(c, "cluster.operator-installed", at);
  EXPECT_THAT(csv.message, HasSubstr("gpu-operator-certified.v25.10.1"));
  EXPECT_THAT(csv.fix, HasSubstr("preinstalled (it runs v25.10.1)"));
  const Diagnostic& policy = One(c, "cluster.singleton", at);
  EXPECT_THAT(policy.message, HasSubstr("ClusterPolicy/gpu-cluster-policy (barcelona-live.json:"));
  EXPECT_THAT(policy.message, HasSubstr("acts on one ClusterPolicy and ignores any other"));
  EXPECT_THAT(policy.message, HasSubstr("ClusterPolicy cluster-policy"));
}

TEST(Brownfield, OlderGpuOperatorThanRunsIsADowngradeOlmCannotDo) {
  // v25.10.0: older than the v25.10.1 that runs, and a release that declares OpenShift 4.20
  // (v25.3.x declares 4.12-4.18: lint.operator-release would stop the profile first).
  Checked c = Check(kBarcelona, kLive,
                    {"operators.gpu_operator.install=managed", "operators.gpu_operator.version=v25.10.0"});
  const Diagnostic& d = One(c, "cluster.operator-downgrade", "/operators/gpu_operator/version");
  EXPECT_THAT(d.message, HasSubstr("OLM cannot downgrade"));
  EXPECT_THAT(d.fix, HasSubstr("version: v25.10.1"));
}

TEST(Brownfield, ManagedNfdWouldTakeOverItsInstanceAndSubscription) {
  Checked c = Check(kBarcelona, kLive, {"operators.nfd.install=managed"});
  One(c, "cluster.operatorgroup", "/operators/nfd/install");
  const Diagnostic& instance = One(c, "cluster.takeover", "/operators/nfd/install");
  EXPECT_THAT(instance.message, HasSubstr("NodeFeatureDiscovery/openshift-nfd/nfd-instance"));
}

TEST(Brownfield, NodePoliciesOverTheSamePfsAreRejectedByTheWebhook) {
  Checked c = Check(kBarcelona, kLive, {"operators.sriov_network_operator.node_policies=true"});
  const Diagnostic& d = One(c, "cluster.node-policy-overlap", "/network/rails/0/interface");
  EXPECT_THAT(d.message, HasSubstr("SriovNetworkNodePolicy/openshift-sriov-network-operator/"
                                   "h100-nodes-eno5np0"));
  EXPECT_THAT(d.message, HasSubstr("webhook rejects"));
  EXPECT_THAT(d.fix, HasSubstr("node_policies: false"));
  EXPECT_THAT(d.fix, HasSubstr("openshift.io/eno5np0rdma"));
  EXPECT_EQ(c.Of("cluster.node-policy-overlap").size(), 4u) << c.All();
}

TEST(Brownfield, ExclusiveRdmaModeNamesTheNadsThatLoseRdma) {
  Checked c = Check(kBarcelona, kLive, {"network.rdma_netns=exclusive"});
  const Diagnostic& d = One(c, "cluster.rdma-mode", "/network/rdma_netns");
  EXPECT_THAT(d.message, HasSubstr("SriovNetworkPoolConfig"));
  EXPECT_THAT(d.message, HasSubstr("b-ts-data-agent-0a0cee/eno5np0-network"));
  EXPECT_THAT(d.message, HasSubstr("default/eno5np0-network"));
  EXPECT_THAT(d.message, HasSubstr("drains and reboots"));
  EXPECT_THAT(d.fix, HasSubstr("rdma_netns: shared"));
}

TEST(Brownfield, AlreadyExclusiveOnASharedModeClusterIsRefused) {
  nlohmann::json doc = nlohmann::json::parse(test_files::ReadFile(kFixtures / kLive));
  doc["items"].push_back(
      {{"apiVersion", "sriovnetwork.openshift.io/v1"},
       {"kind", "SriovNetworkPoolConfig"},
       {"metadata", {{"name", "worker"}, {"namespace", "openshift-sriov-network-operator"}}},
       {"spec", {{"rdmaMode", "shared"}}}});
  Checked c = CheckText(kBarcelona, "shared.json", doc.dump(), {"network.rdma_netns=already-exclusive"});
  const Diagnostic& d = One(c, "cluster.rdma-mode", "/network/rdma_netns");
  EXPECT_THAT(d.message, HasSubstr("shared default"));
}

TEST(Brownfield, MachineConfigRepeatingALiveKernelArgumentRebootsThePool) {
  Checked c = Check(kBarcelona, kLive, {"iommu.already_set={}"});
  const Diagnostic& set = One(c, "cluster.kernel-args-set", "/iommu");
  EXPECT_THAT(set.message, HasSubstr("MachineConfig/99-worker-iommu-passthrough"));
  EXPECT_THAT(set.message, HasSubstr("iommu=pt"));
  EXPECT_THAT(set.fix, HasSubstr("iommu.already_set: [iommu=pt]"));
  const Diagnostic& reboot = One(c, "cluster.machineconfig-reboot", "/iommu");
  EXPECT_THAT(reboot.message, HasSubstr("MachineConfigPool/h100"));
  EXPECT_THAT(reboot.message, HasSubstr("5 node(s)"));
  EXPECT_THAT(reboot.message, HasSubstr("1 (maxUnavailable 0 counts as 1) at a time"));
}

TEST(Brownfield, AlreadySetArgumentNoMachineConfigSetsIsRefused) {
  Checked c = Check(kBarcelona, kLive, {"iommu.already_set={iommu=pt,pci=realloc}"});
  const Diagnostic& d = One(c, "cluster.kernel-arg-missing", "/iommu/already_set/1");
  EXPECT_THAT(d.message, HasSubstr("pci=realloc"));
}

TEST(Brownfield, AnotherTeamsNodesAreNamedWhenPicked) {
  Checked c = Check(kBarcelona, kLive, {"node_shape.exclude_nodes={}"});
  auto shared = c.Of("cluster.node-shared");
  std::string text;
  for (const Diagnostic* d : shared) text += d->message + "\n";
  EXPECT_THAT(text, HasSubstr("Node/moc-r4pcc02u15-yunshi"));
  EXPECT_THAT(text, HasSubstr("namespace b-ts-data-agent-0a0cee"));
  EXPECT_THAT(text, HasSubstr("named ...-yunshi, unlike most picked nodes (...-nairr)"));
  EXPECT_EQ(shared.front()->data_path, "/node_shape/node_selector");
  EXPECT_THAT(shared.front()->fix, HasSubstr("exclude_nodes"));
}

TEST(Brownfield, IommuArgumentsOfTheOtherVendorAreRefused) {
  // The profile says AMD (its shape's preset too); the nodes NFD labelled are Intel.
  std::string text = test_files::ReadFile(kFixtures / kLive);
  for (size_t at = text.find("\"AMD\""); at != std::string::npos; at = text.find("\"AMD\"", at))
    text.replace(at, 5, "\"Intel\"");
  Checked c = CheckText(kBarcelona, "intel.json", text);
  const Diagnostic& d = One(c, "cluster.cpu-vendor", "/node_shape/cpu_vendor");
  EXPECT_THAT(d.message, HasSubstr("has an intel CPU"));
  EXPECT_THAT(d.fix, HasSubstr("cpu_vendor: intel"));
}

TEST(Brownfield, ObjectOfAGoneApplicationIsAnOrphanToAdoptOrLeave) {
  nlohmann::json doc = nlohmann::json::parse(test_files::ReadFile(kFixtures / kLive));
  for (nlohmann::json& item : doc["items"])
    if (item["kind"] == "SecurityContextConstraints")
      item["metadata"]["labels"] = {{"app.kubernetes.io/instance", "infra-operators"}};
  doc["items"].push_back({{"apiVersion", "argoproj.io/v1alpha1"},
                          {"kind", "Application"},
                          {"metadata", {{"name", "monitoring"}, {"namespace", "openshift-gitops"}}}});
  Checked c = CheckText(kBarcelona, "orphan.json", doc.dump(), {"security.scc_name=nccl-rdma-scc"});
  const Diagnostic& d = One(c, "cluster.takeover", "/security");
  EXPECT_THAT(d.message, HasSubstr("infra-operators, which no longer exists (an orphan)"));
  EXPECT_THAT(d.fix, HasSubstr("adopt it on purpose"));
  EXPECT_THAT(d.fix, Not(HasSubstr("remove it from")));
}

TEST(Brownfield, MissingKindsAreOneNoteNamingTheSkippedChecks) {
  Checked c = Check(kBarcelona, "barcelona.json", {"operators.gpu_operator.install=managed"});
  auto notes = c.Of("cluster.not-exported");
  ASSERT_EQ(notes.size(), 1u) << c.All();
  EXPECT_THAT(notes.front()->message, HasSubstr("OperatorGroup"));
  EXPECT_THAT(notes.front()->message, HasSubstr("Subscription"));
  EXPECT_THAT(notes.front()->message, HasSubstr("a second OperatorGroup"));
  EXPECT_THAT(notes.front()->fix, HasSubstr("operatorgroups.operators.coreos.com"));
}

// Whoever installs an operator, the cluster check reads the plan: where the
// bundle's own node policies will create the VFs, a node without them yet is a note, never an
// error, for every operator left to the cluster (preinstalled or shared).
TEST(Brownfield, CheckAgreesWithThePlanWhoeverInstallsEachOperator) {
  nlohmann::json doc = nlohmann::json::parse(test_files::ReadFile(kFixtures / "barcelona.json"));
  for (nlohmann::json& item : doc["items"]) {
    if (item["kind"] == "SriovNetworkNodeState")
      for (nlohmann::json& pf : item["status"]["interfaces"]) pf["numVfs"] = 0, pf["Vfs"] = {};
    if (item["kind"] == "Node")
      for (auto& [key, value] : item["status"]["capacity"].items())
        if (key.find("rdma") != std::string::npos) value = "0";
  }
  const std::string fresh_cluster = doc.dump();
  const std::string fresh_profile = test_files::FreshOpenShiftProfileFile();
  for (const char* key : {"sriov_network_operator", "nfd", "gpu_operator"}) {
    for (const char* install : {"preinstalled", "shared"}) {
      Checked c = CheckText(fresh_profile, "fresh.json", fresh_cluster,
                            {std::string("operators.") + key + ".install=" + install});
      EXPECT_EQ(c.Errors(), 0) << key << "=" << install << "\n" << c.All();
      EXPECT_FALSE(c.Of("cluster.vfs-pending").empty()) << key << "=" << install;
    }
  }
}

TEST(Brownfield, DiscoverDraftsAProfileThatAdoptsWhatRuns) {
  const std::string text = test_files::ReadFile(kFixtures / kLive);
  DiagnosticSink sink;
  const std::string draft =
      discover::Discover({{kLive, text}}, {"barcelona", false, {"nccl-test"}}, sink);
  ASSERT_FALSE(draft.empty());
  EXPECT_THAT(draft, HasSubstr("namespaces: [nccl-test]"));
  EXPECT_THAT(draft, HasSubstr("rdma_netns: shared"));
  EXPECT_THAT(draft, HasSubstr("already_set: [iommu=pt]"));
  EXPECT_THAT(draft, HasSubstr("machine_config_role: h100"));
  EXPECT_THAT(draft, HasSubstr("node_policies: false"));
  EXPECT_THAT(draft, HasSubstr("version: v25.10.1"));
  EXPECT_THAT(draft, HasSubstr("openshift_version: \"4.20\""));
  size_t preinstalled = 0;
  for (size_t at = draft.find("install: preinstalled"); at != std::string::npos;
       at = draft.find("install: preinstalled", at + 1))
    ++preinstalled;
  EXPECT_EQ(preinstalled, 3u) << draft;
  // The draft passes its own checks and the cluster's: nothing it renders collides.
  DiagnosticSink checks;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("draft.yaml", draft, checks);
  ASSERT_TRUE(loaded);
  BundlePlan plan;
  std::optional<Profile> profile = CheckLoadedProfile(*loaded, checks, &plan);
  ASSERT_TRUE(profile) << draft;
  DiagnosticSink against;
  auto cluster = cluster_check::LoadClusterExport({{kLive, text}}, against);
  ASSERT_NE(cluster, nullptr);
  cluster_check::CheckProfile(*profile, plan, *loaded, *cluster, against);
  std::string found;
  for (const Diagnostic& d : against.diagnostics()) found += d.rule + " " + d.message + "\n";
  EXPECT_EQ(against.ErrorCount(), 0) << found << draft;
  // yunshi's nodes are left out of the draft, so the check finds no node another team uses.
  EXPECT_THAT(draft, HasSubstr("    - moc-r4pcc02u15-yunshi  #"));
  EXPECT_THAT(found, Not(HasSubstr("cluster.node-shared"))) << draft;
}

TEST(Brownfield, DiscoverDraftOfAGroupLargerThanOneJobStillValidates) {
  nlohmann::json doc = nlohmann::json::parse(test_files::ReadFile(kFixtures / kLive));
  nlohmann::json node;
  for (const nlohmann::json& item : doc["items"])
    if (item["kind"] == "Node" && node.is_null()) node = item;
  for (int i = 0; i < 4100; ++i) {
    nlohmann::json copy = node;
    copy["metadata"]["name"] = "gpu-" + std::to_string(i);
    copy["metadata"]["labels"]["kubernetes.io/hostname"] = "gpu-" + std::to_string(i);
    doc["items"].push_back(copy);
  }
  DiagnosticSink sink;
  const std::string draft =
      discover::Discover({{"big.json", doc.dump()}}, {"big", false, {"ml"}}, sink);
  ASSERT_FALSE(draft.empty());
  EXPECT_THAT(draft, HasSubstr("replicas: 4096  # TODO: the group has 4105 nodes"));
  // Within the schema (lint then says a /24 rail cannot address 4096 pods: the user's call).
  DiagnosticSink checks;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("draft.yaml", draft, checks);
  ASSERT_TRUE(loaded);
  const ProfileSchema* schema = ProfileSchema::Embedded(checks);
  ASSERT_NE(schema, nullptr);
  EXPECT_TRUE(ValidateProfile(*loaded, *schema, checks));
  EXPECT_EQ(checks.ErrorCount(), 0);
}

TEST(Brownfield, DiscoverTakesNoNamespaceItWasNotGiven) {
  DiagnosticSink sink;
  const std::string draft = discover::Discover(
      {{kLive, test_files::ReadFile(kFixtures / kLive)}}, {"barcelona", false, {}}, sink);
  ASSERT_FALSE(draft.empty());
  EXPECT_THAT(draft, HasSubstr("namespaces: [gpu-training]"));
  EXPECT_THAT(draft, HasSubstr("--namespace"));
  // Other teams' and the operator's namespaces hold the NADs; none becomes the workload's.
  EXPECT_THAT(draft, Not(HasSubstr("namespaces: [b-ts-data-agent-0a0cee")));
  EXPECT_THAT(draft, Not(HasSubstr("namespaces: [default")));
}

}  // namespace
}  // namespace hkim
