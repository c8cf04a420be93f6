// Cross-profile stage: profiles that sync into one cluster must not emit the
// same object, and the one NicClusterPolicy must list every profile's NIC device IDs.
#include "fleet/cluster_sharing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "plan/closure.h"
#include "plan/plan.h"
#include "pipeline/profile_check.h"
#include "commands/rule_ids.h"
#include "test_files.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = HKIM_SOURCE_DIR;
const std::string kOld = (kSource / "tests/generator/cluster_sharing").string();

/// A set of profiles, each checked alone first (as validate/lint do).
struct ProfileSet {
  std::vector<CheckedProfile> checked;
  DiagnosticSink sink;  ///< the cross-profile findings only
  std::vector<bool> flagged;

  std::string Dump() const {
    std::string text;
    for (const Diagnostic& d : sink.diagnostics()) {
      text += d.location.file + ":" + std::to_string(d.location.line) + ": " + d.rule + ": " +
              d.message + " FIX: " + d.fix + "\n";
    }
    return text;
  }
};

/// Checks each (path, --set assignments) alone, expecting it clean, then the set.
ProfileSet CheckSet(const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs,
                    ArgoCdOfSet argocd = ArgoCdOfSet::kOneCentral) {
  ProfileSet set;
  for (const auto& [path, sets] : inputs) {
    DiagnosticSink alone;
    std::optional<CheckedProfile> one = CheckLayeredProfile(LayerInputs{path, {}, sets}, alone);
    EXPECT_TRUE(one && one->profile && !alone.HasErrors()) << path;
    if (one && one->profile) set.checked.push_back(std::move(*one));
  }
  std::vector<ClusterMember> members;
  for (const CheckedProfile& c : set.checked) members.push_back({&c.layered.merged, &*c.profile});
  set.flagged = CheckClusterSharing(members, argocd, set.sink);
  return set;
}

std::string Shipped(const std::string& name) { return (kSource / "profiles" / (name + ".yaml")).string(); }

bool EndsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

const Diagnostic* FindAt(const ProfileSet& set, const std::string& rule, const std::string& pointer) {
  for (const Diagnostic& d : set.sink.diagnostics()) {
    if (d.rule == rule && d.data_path == pointer) return &d;
  }
  return nullptr;
}

TEST(ClusterSharing, TodaysOkePairIsRejectedNamingBothFiles) {
  const ProfileSet set = CheckSet({{kOld + "/old-oke-h100.yaml", {}}, {kOld + "/old-oke-a100.yaml", {}}});
  ASSERT_TRUE(set.sink.HasErrors()) << "the pre-fix H100 + A100 pair must be rejected";
  EXPECT_EQ(set.flagged, (std::vector<bool>{false, true}));
  const std::string all = set.Dump();
  // Every object the two bundles would both put into the cluster is named.
  for (const char* object :
       {"NicClusterPolicy nic-cluster-policy", "IPPool network-operator/default",
        "Namespace gpu-training", "NetworkAttachmentDefinition gpu-training/oci-rdma-sriov",
        "StatefulSet gpu-training/nccl-allreduce", "ConfigMap gpu-training/nccl-allreduce-nccl-env",
        "the Helm chart gpu-operator", "the Helm chart network-operator"}) {
    EXPECT_NE(all.find(object), std::string::npos) << object << "\n" << all;
  }
  for (const Diagnostic& d : set.sink.diagnostics()) {
    EXPECT_EQ(d.rule, "lint.shared-cluster-object");
    EXPECT_TRUE(EndsWith(d.location.file, "old-oke-a100.yaml")) << d.location.file;
    EXPECT_TRUE(d.location.known());
    EXPECT_NE(d.message.find("old-oke-h100.yaml:"), std::string::npos) << d.message;
    EXPECT_NE(d.fix.find("destination"), std::string::npos) << d.fix;
  }
  // Located at the value to change, with the change named.
  const Diagnostic* ns = FindAt(set, "lint.shared-cluster-object", "/namespaces/0");
  ASSERT_NE(ns, nullptr) << all;
  EXPECT_NE(ns->fix.find("namespace of its own"), std::string::npos) << ns->fix;
  const Diagnostic* policy =
      FindAt(set, "lint.shared-cluster-object", "/operators/network_operator/install");
  ASSERT_NE(policy, nullptr) << all;
  EXPECT_NE(policy->message.find("NicClusterPolicy nic-cluster-policy"), std::string::npos);
  EXPECT_NE(policy->fix.find("operators.network_operator.install: shared"), std::string::npos)
      << policy->fix;
  const Diagnostic* pool =
      FindAt(set, "lint.shared-cluster-object", "/network/rails/0/ipam/pool/name");
  ASSERT_NE(pool, nullptr) << all;
}

TEST(ClusterSharing, ShippedProfilesCoexist) {
  std::vector<std::pair<std::string, std::vector<std::string>>> all;
  for (const auto& entry : fs::directory_iterator(kSource / "profiles")) {
    if (entry.path().extension() == ".yaml") all.push_back({entry.path().string(), {}});
  }
  std::sort(all.begin(), all.end());
  ASSERT_GE(all.size(), 4u);
  // As shipped, each names its cluster's destination: Barcelona its API server, the
  // OKE node pools Argo CD's own cluster. They are one set: the OKE pools share their cluster.
  const ProfileSet as_shipped = CheckSet(all);
  EXPECT_FALSE(as_shipped.sink.HasErrors()) << as_shipped.Dump();
  // Barcelona on the OKE profiles' destination: an OpenShift and an OKE profile can never be
  // one cluster.
  for (auto& [path, sets] : all) {
    if (path.find("barcelona") != std::string::npos)
      sets.push_back("gitops.destination_server=https://kubernetes.default.svc");
  }
  const ProfileSet set = CheckSet(all);
  ASSERT_EQ(set.sink.ErrorCount(), 1) << set.Dump();
  EXPECT_EQ(set.sink.diagnostics()[0].rule, "lint.shared-destination-platform");
}

TEST(ClusterSharing, TwoPlatformsOnArgoCdsOwnClusterAreTwoClustersWhenEachMayHaveItsArgoCd) {
  // One repository for an OpenShift and an OKE cluster, each synced by the Argo CD that runs in
  // it: `hkimgen validate profiles/` checks them together without a fleet's central Argo CD.
  const std::vector<std::pair<std::string, std::vector<std::string>>> both = {
      {Shipped("barcelona-h100-cx7"), {"gitops.destination_server=https://kubernetes.default.svc"}},
      {Shipped("oke-h100"), {}}};
  const ProfileSet apart = CheckSet(both, ArgoCdOfSet::kPerhapsOnePerCluster);
  EXPECT_FALSE(apart.sink.HasErrors()) << apart.Dump();
  EXPECT_FALSE(apart.flagged[0] || apart.flagged[1]);
  ASSERT_EQ(apart.sink.diagnostics().size(), 1u) << apart.Dump();
  EXPECT_EQ(apart.sink.diagnostics()[0].severity, Severity::kNote);
  EXPECT_NE(apart.sink.diagnostics()[0].fix.find("fleet render"), std::string::npos);
  // Under one central Argo CD (a fleet render) the same pair is an error.
  EXPECT_EQ(CheckSet(both, ArgoCdOfSet::kOneCentral).sink.ErrorCount(), 1);
  // One remote API server shared by two platforms is wrong either way.
  const ProfileSet named = CheckSet(
      {{Shipped("barcelona-h100-cx7"), {"gitops.destination_server=https://api.gpu.example:6443"}},
       {Shipped("oke-h100"), {"gitops.destination_server=https://api.gpu.example:6443"}}},
      ArgoCdOfSet::kPerhapsOnePerCluster);
  EXPECT_EQ(named.sink.ErrorCount(), 1) << named.Dump();
}

TEST(ClusterSharing, SharedNetworkOperatorLeavesTheNicClusterPolicyToTheOwner) {
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}}, {Shipped("oke-a100"), {}}});
  const BundlePlan owner = PlanBundle(*set.checked[0].profile);
  const BundlePlan shared = PlanBundle(*set.checked[1].profile);
  auto count = [](const BundlePlan& plan, const std::string& kind) {
    return std::count_if(plan.objects.begin(), plan.objects.end(),
                         [&](const PlannedObject& o) { return o.kind == kind; });
  };
  EXPECT_EQ(count(owner, "NicClusterPolicy"), 1);
  EXPECT_EQ(count(shared, "NicClusterPolicy"), 0);
  // No operator chart in the sharing bundle; its own node pool's agents stay (VF DaemonSet,
  // SR-IOV CNI, RDMA CNI).
  for (const PlannedObject& o : shared.objects) EXPECT_FALSE(o.context.contains("chart")) << o.name;
  EXPECT_EQ(count(shared, "DaemonSet"), 3);
  for (const PlannedObject& o : owner.objects) {
    if (o.kind != "NicClusterPolicy") continue;
    const std::string config = o.context["sriov_device_plugin"]["config"].get<std::string>();
    EXPECT_NE(config.find("\"101e\""), std::string::npos) << config;
    EXPECT_NE(config.find("\"101a\""), std::string::npos) << config;
  }
}

TEST(ClusterSharing, OwnerMissingAnotherShapesDeviceIdIsReportedAtTheOwner) {
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {"network.sriov_device_plugin.device_ids={101e}"}},
                                   {Shipped("oke-a100"), {}}});
  ASSERT_EQ(set.sink.diagnostics().size(), 1u) << set.Dump();
  const Diagnostic& d = set.sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "lint.shared-device-ids");
  EXPECT_EQ(d.data_path, "/network/sriov_device_plugin/device_ids");
  EXPECT_EQ(d.location.file, "--set");
  EXPECT_NE(d.message.find("oke-a100.yaml ("), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("101a"), std::string::npos) << d.message;
  EXPECT_NE(d.fix.find("add 101a to network.sriov_device_plugin.device_ids"), std::string::npos)
      << d.fix;
  EXPECT_EQ(set.flagged, (std::vector<bool>{true, false}));
}

TEST(ClusterSharing, AnotherResourceNameThanTheOwnersIsReported) {
  const ProfileSet set =
      CheckSet({{Shipped("oke-h100"), {}},
                {Shipped("oke-a100"),
                 {"network.sriov_device_plugin.resource_name=a100_vf",
                  "network.rails[0].resource_name=nvidia.com/a100_vf"}}});
  ASSERT_EQ(set.sink.diagnostics().size(), 1u) << set.Dump();
  EXPECT_EQ(set.sink.diagnostics()[0].rule, "lint.shared-device-ids");
  EXPECT_EQ(set.sink.diagnostics()[0].data_path, "/network/sriov_device_plugin/resource_name");
  EXPECT_NE(set.sink.diagnostics()[0].message.find("nvidia.com/a100_vf"), std::string::npos);
}

// Closure across the set (plan/closure.h CheckSharedClosure): what a profile leaves to
// an operator it shares must come from the owner's bundle, on every pool.
TEST(ClusterSharing, ATaintOnlyTheSharingWorkloadToleratesMustBeToleratedByTheOwnersAgents) {
  const std::vector<std::string> taint = {"node_shape.tolerations[1].key=dedicated",
                                          "node_shape.tolerations[1].operator=Exists"};
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}}, {Shipped("oke-a100"), taint}});
  std::vector<std::string> agents;
  for (const Diagnostic& d : set.sink.diagnostics()) {
    if (d.rule != "closure.toleration") continue;
    EXPECT_EQ(d.data_path, "/node_shape/tolerations/1");
    EXPECT_NE(d.message.find("oke-h100.yaml"), std::string::npos) << d.message;
    EXPECT_NE(d.fix.find("node_shape.tolerations in"), std::string::npos) << d.fix;
    agents.push_back(d.message.substr(d.message.find("node agent ")));
  }
  ASSERT_EQ(agents.size(), 2u) << set.Dump();  // the GPU Operator and the NicClusterPolicy
  EXPECT_NE(agents[0].find("Application argocd/oke-h100-gpu-operator"), std::string::npos) << agents[0];
  EXPECT_NE(agents[1].find("NicClusterPolicy nic-cluster-policy"), std::string::npos) << agents[1];
  EXPECT_EQ(set.flagged, (std::vector<bool>{false, true}));
  // The owner tolerating it too (its own pods stay on its pool by node_selector) closes it.
  const ProfileSet fixed = CheckSet({{Shipped("oke-h100"), taint}, {Shipped("oke-a100"), taint}});
  EXPECT_TRUE(fixed.sink.diagnostics().empty()) << fixed.Dump();
}

TEST(ClusterSharing, GpuDirectTheSharedOperatorDoesNotDeployIsAClosureError) {
  // Alone, oke-a100 trusts its description of the shared GPU Operator (it deploys the driver,
  // with GPUDirect); the owner's operator runs the host's driver, and its VF DaemonSet loads
  // nvidia_peermem on the H100 pool only.
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}},
                                   {Shipped("oke-a100"), {"operators.gpu_operator.driver.enabled=true"}}});
  const Diagnostic* d = FindAt(set, "closure.gpudirect", "/nccl/gpudirect");
  ASSERT_NE(d, nullptr) << set.Dump();
  EXPECT_NE(d->message.find("leaves to the gpu_operator it shares"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("oke-h100.yaml"), std::string::npos) << d->message;
  EXPECT_NE(d->fix.find("in " + Shipped("oke-h100")), std::string::npos) << d->fix;
  EXPECT_TRUE(set.flagged[1]);
  // Given alone, the owner is not there to compare: trusted, as in a single render.
  const ProfileSet alone = CheckSet({{Shipped("oke-a100"), {"operators.gpu_operator.driver.enabled=true"}}});
  EXPECT_TRUE(alone.sink.diagnostics().empty()) << alone.Dump();
}

// The two bundles are two parent Applications, which Argo CD syncs side by side, so no
// wave of the owner's orders the sharer's objects: its provider counts in any wave, and the
// sharer's precondition on the shared operator says to sync the owner first.
TEST(ClusterSharing, TheOwnersProviderCountsInAnyWaveAndTheSharerDeclaresTheOrder) {
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}}, {Shipped("oke-a100"), {}}});
  ASSERT_EQ(set.checked.size(), 2u);
  const CheckedProfile& owner = set.checked[0];
  const CheckedProfile& sharer = set.checked[1];
  const ClosureSide mine{&*sharer.profile, &sharer.layered.merged, &*sharer.plan};
  BundlePlan late = *owner.plan;
  for (PlannedObject& o : late.objects) o.sync_wave = 90;
  DiagnosticSink sink;
  EXPECT_EQ(CheckSharedClosure(mine, {&*owner.profile, &owner.layered.merged, &late},
                               "network_operator", false, sink),
            0);
  // The control: without the owner's Network Operator objects the sharer's needs are open.
  BundlePlan without = *owner.plan;
  std::erase_if(without.objects,
                [](const PlannedObject& o) { return o.operator_key == "network_operator"; });
  DiagnosticSink open;
  EXPECT_GT(CheckSharedClosure(mine, {&*owner.profile, &owner.layered.merged, &without},
                               "network_operator", false, open),
            0);
  int declared = 0;
  for (const Precondition& pre : sharer.plan->preconditions) {
    if (pre.kind != "operator" || pre.what != "network_operator") continue;
    ++declared;
    EXPECT_NE(pre.why.find("nothing orders the two bundles' syncs"), std::string::npos) << pre.why;
    EXPECT_NE(pre.why.find("sync that bundle first"), std::string::npos) << pre.why;
  }
  EXPECT_EQ(declared, 1);
}

TEST(ClusterSharing, ShippedSharingProfilesAreClosedAgainstTheirOwner) {
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}}, {Shipped("oke-a100"), {}},
                                   {Shipped("oke-a100-gpu4"), {}}});
  for (const Diagnostic& d : set.sink.diagnostics()) EXPECT_NE(d.rule.rfind("closure.", 0), 0u) << set.Dump();
}

TEST(ClusterSharing, ProfilesOfDifferentDestinationsAreNotCompared) {
  const ProfileSet set =
      CheckSet({{kOld + "/old-oke-h100.yaml", {}},
                {kOld + "/old-oke-a100.yaml", {"gitops.destination_server=https://a100.example:6443"}}});
  EXPECT_FALSE(set.sink.HasErrors()) << set.Dump();
}

TEST(ClusterSharing, TheDestinationNameNamesTheCluster) {
  const std::string h100 = kOld + "/old-oke-h100.yaml", a100 = kOld + "/old-oke-a100.yaml";
  // The same (default) server but two names Argo CD knows: two clusters.
  EXPECT_FALSE(CheckSet({{h100, {"gitops.destination_name=oke-prod"}},
                         {a100, {"gitops.destination_name=oke-lab"}}})
                   .sink.HasErrors());
  const ProfileSet same = CheckSet({{h100, {"gitops.destination_name=oke-prod"}},
                                    {a100, {"gitops.destination_name=oke-prod"}}});
  ASSERT_TRUE(same.sink.HasErrors());
  EXPECT_NE(same.Dump().find("(Argo CD destination name oke-prod)"), std::string::npos)
      << same.Dump();
}

TEST(ClusterSharing, TwoOwnersOfOneClusterAreReportedEvenWithEqualContent) {
  // The same profile twice under two cluster names: every object but the cluster-named ones.
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}}, {Shipped("oke-h100"), {"cluster.name=oke-h100-b"}}});
  ASSERT_TRUE(set.sink.HasErrors());
  EXPECT_NE(FindAt(set, "lint.shared-cluster-object", "/operators/gpu_operator/install"), nullptr)
      << set.Dump();
  EXPECT_EQ(set.Dump().find("oke-h100-b-vf-config"), std::string::npos) << set.Dump();
}

TEST(ClusterSharing, OverlappingPoolsOfOneClusterAreAWarning) {
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}},
                                   {Shipped("oke-a100"),
                                    {"network.rails[0].ipam.pool.subnet=192.168.0.0/17",
                                     "network.rails[0].ipam.pool.gateway=192.168.0.1"}}});
  ASSERT_EQ(set.sink.diagnostics().size(), 1u) << set.Dump();
  const Diagnostic& d = set.sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "lint.shared-subnet-overlap");
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_NE(d.message.find("pool default (192.168.0.0/16)"), std::string::npos) << d.message;
  EXPECT_EQ(set.flagged, (std::vector<bool>{false, false}));
}

TEST(ClusterSharing, ASharingProfileThatDescribesTheOperatorOtherwiseIsAWarning) {
  const ProfileSet set = CheckSet({{Shipped("oke-h100"), {}},
                                   {Shipped("oke-a100"), {"operators.gpu_operator.version=v25.3.0"}}});
  ASSERT_EQ(set.sink.diagnostics().size(), 1u) << set.Dump();
  const Diagnostic& d = set.sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "lint.shared-operator-settings");
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_EQ(d.data_path, "/operators/gpu_operator");
  EXPECT_NE(d.message.find("version v25.3.0 (the owner's: v25.10.1)"), std::string::npos)
      << d.message;
}

TEST(ClusterSharing, RulesAreListed) {
  EXPECT_TRUE(IsKnownRule("lint.shared-cluster-object"));
  EXPECT_TRUE(IsKnownRule("lint.shared-device-ids"));
  EXPECT_TRUE(IsKnownRule("lint.shared-subnet-overlap"));
  EXPECT_TRUE(IsKnownRule("lint.shared-operator-settings"));
}

}  // namespace
}  // namespace hkim
