// `validate --cluster` the day after the sync: on the cluster a profile describes, with its
// bundle applied as Argo CD applies it (simulated_cluster.h), the check finds nothing wrong with
// the bundle's own objects, for every shipped profile and every `init` starter; then one drift at
// a time is named at its profile line, and the fix it offers, applied, makes the check pass.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_check/check_fixture.h"
#include "cluster_check/simulated_cluster.h"
#include "commands/init_command.h"
#include "test_support.h"

namespace hkim::cluster_check_test {
namespace {

using nlohmann::json;

// Errors and warnings, one a line ("" when there are none). cluster.end-of-support is about the
// release line the profile pins (v25.10.1, the shipped profiles' and starters' GPU Operator, is
// past NVIDIA's support), not about the bundle's objects on the cluster: it is left out here.
std::string Findings(const Checked& c) {
  std::string text;
  for (const Diagnostic& d : c.sink.diagnostics())
    if (d.severity != Severity::kNote && d.rule != "cluster.end-of-support")
      text += std::to_string(d.location.line) + " " + d.rule + " " + d.message + "\n";
  return text;
}

std::vector<std::string> StarterProfiles() {
  std::vector<std::string> paths;
  for (const std::string platform : {"openshift", "oke"}) {
    for (const std::string& shape : InitShapes()) {
      InitOptions options;
      options.platform = platform;
      options.shape = shape;
      options.name = "lab";
      options.repo_url = "https://github.com/lab/bundles.git";
      paths.push_back(test_support::TempFileOnce("hkim-starter-" + platform + "-" + shape,
                                                 StarterProfile(options).value_or(""))
                          .string());
    }
  }
  return paths;
}

json& Item(json& items, const std::string& kind, const std::string& name) {
  return FindItem(items, kind, name);
}

TEST(SteadyState, EveryShippedProfileIsCleanOnTheClusterItSynced) {
  for (const std::string& name : test_files::ShippedProfiles()) {
    const Checked c = CheckSynced("profiles/" + name + ".yaml");
    EXPECT_EQ(Findings(c), "") << name;
    EXPECT_EQ(c.Errors(), 0) << name;
  }
}

TEST(SteadyState, EveryStarterIsCleanOnTheClusterItSynced) {
  for (const std::string& path : StarterProfiles()) {
    const Checked c = CheckSynced(path);
    EXPECT_EQ(Findings(c), "") << path;
  }
}

// The diagnostics of `rule`, each "line: message", for messages.
const Diagnostic* First(const Checked& c, const std::string& rule) {
  auto found = c.Of(rule);
  return found.empty() ? nullptr : found.front();
}

// The profile line a JSON pointer of `profile` is at (0 when unknown).
int LineOf(const Checked& c, const std::string& pointer) {
  return c.profile ? c.profile->layered.merged.locations.Find(pointer).line : 0;
}

// --- Drifts: one change to the synced cluster, named at its profile line; its fix passes ---

// Another team installs the GPU Operator's ClusterPolicy beside the bundle's managed operator.
TEST(SteadyState, AnotherTeamsClusterPolicyIsNamedAndPreinstalledFixesIt) {
  const std::string starter = test_files::FreshOpenShiftProfilePath();  // init --platform openshift
  auto drift = [](json& items) {
    json policy = {{"apiVersion", "nvidia.com/v1"}, {"kind", "ClusterPolicy"},
                   {"metadata", {{"name", "team-b-gpu"},
                                 {"labels", {{"app.kubernetes.io/instance", "team-b-gpu"}}}}}};
    items.push_back(policy);
  };
  const Checked drifted = CheckSynced(starter, {}, drift);
  const Diagnostic* d = First(drifted, "cluster.singleton");
  ASSERT_NE(d, nullptr) << drifted.All();
  EXPECT_EQ(d->data_path, "/operators/gpu_operator/install");
  EXPECT_EQ(d->location.line, LineOf(drifted, "/operators/gpu_operator/install"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("ClusterPolicy/team-b-gpu"));
  EXPECT_THAT(d->fix, ::testing::HasSubstr("operators.gpu_operator.install: preinstalled"));
  const Checked fixed = CheckSynced(starter, {"operators.gpu_operator.install=preinstalled"}, drift);
  EXPECT_EQ(fixed.Errors(), 0) << fixed.All();
}

// The preinstalled GPU Operator moved to another release than the profile pins: nothing Barcelona
// renders depends on it, so a warning, and pinning what runs clears it.
TEST(SteadyState, PreinstalledOperatorVersionDriftWarnsAndPinningItPasses) {
  auto drift = [](json& items) {
    for (json& item : items)
      if (item["kind"] == "ClusterServiceVersion" &&
          item["metadata"]["name"].get<std::string>().rfind("gpu-operator-certified.", 0) == 0)
        item["metadata"]["name"] = "gpu-operator-certified.v26.3.0";
  };
  const Checked drifted = CheckSynced(kBarcelona, {}, drift);
  const Diagnostic* d = First(drifted, "cluster.operator-version");
  ASSERT_NE(d, nullptr) << drifted.All();
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_EQ(drifted.Errors(), 0) << drifted.All();
  EXPECT_EQ(d->location.line, LineOf(drifted, "/operators/gpu_operator/version"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("nothing this bundle renders depends on"));
  EXPECT_THAT(d->fix, ::testing::HasSubstr("operators.gpu_operator.version: v26.3.0"));
  const Checked fixed = CheckSynced(kBarcelona, {"operators.gpu_operator.version=v26.3.0"}, drift);
  EXPECT_EQ(Findings(fixed), "");
}

// The nightly check marked a node failed: the pods avoid it, so the workload's nodes are short.
TEST(SteadyState, NodeMarkedFailedIsNamedAndReleasingItPasses) {
  auto mark = [](json& items) {
    FindItem(items, "Node", "gpu-01")["metadata"]["labels"]["hkimgen.io/nccl-health"] = "fail";
  };
  const Checked drifted = CheckSynced(kBarcelona, {}, mark);
  const Diagnostic* d = First(drifted, "cluster.node-unhealthy");
  ASSERT_NE(d, nullptr) << drifted.All();
  EXPECT_THAT(d->message, ::testing::HasSubstr("Node/gpu-01"));
  EXPECT_EQ(d->location.line, LineOf(drifted, "/fabric_health/periodic"));
  EXPECT_THAT(d->fix, ::testing::HasSubstr("kubectl label node gpu-01 hkimgen.io/nccl-health-"));
  // Barcelona's pool has a node more than its 2 pods (the health check's 3): one marked node
  // leaves enough; a second does not, and the node count says so.
  EXPECT_EQ(First(drifted, "cluster.node-count"), nullptr) << drifted.All();
  const Checked two = CheckSynced(kBarcelona, {}, [&](json& items) {
    mark(items);
    FindItem(items, "Node", "gpu-02")["metadata"]["labels"]["hkimgen.io/nccl-health"] = "fail";
  });
  const Diagnostic* count = First(two, "cluster.node-count");
  ASSERT_NE(count, nullptr) << two.All();
  EXPECT_THAT(count->message, ::testing::HasSubstr("2 of which the pods may not run on"));
  for (const cluster_check::NodeRow& row : drifted.report.nodes)
    if (row.node == "gpu-01") EXPECT_TRUE(row.unhealthy);
  EXPECT_THAT(cluster_check::FormatNodeTable(drifted.report), ::testing::HasSubstr("marked failed"));
  // The fix: the label removed (as the fix's command does).
  const Checked fixed = CheckSynced(kBarcelona, {}, [&](json& items) {
    mark(items);
    FindItem(items, "Node", "gpu-01")["metadata"]["labels"].erase("hkimgen.io/nccl-health");
  });
  EXPECT_EQ(Findings(fixed), "");
}

// A node tainted dedicated=other-team where the pods tolerate dedicated=ours: matched by value.
TEST(SteadyState, TaintWithAnotherValueIsNamedAndLeavingTheNodeOutPasses) {
  const auto overlay = test_support::TempFileOnce(
      "hkim-steady-tolerations",
      "node_shape:\n"
      "  tolerations:\n"
      "    - key: nvidia.com/gpu\n"
      "      operator: Exists\n"
      "      effect: NoSchedule\n"
      "    - key: dedicated\n"
      "      operator: Equal\n"
      "      value: ours\n"
      "      effect: NoSchedule\n");
  auto check = [&](const std::vector<std::string>& sets, const std::function<void(json&)>& drift) {
    LayerInputs inputs;
    inputs.profile_path = (kSource / kBarcelona).string();
    inputs.extra_files = {overlay.string()};
    inputs.set_values = sets;
    DiagnosticSink sink;
    auto checked = CheckLayeredProfile(inputs, sink);
    EXPECT_TRUE(checked && checked->profile) << sink.diagnostics().size();
    SimulationOptions options;
    options.nodes = checked->profile->workload.replicas + 1;  // a spare node
    json cluster = SimulateSyncedCluster(*checked, options);
    drift(cluster["items"]);
    Checked c;
    auto exported = cluster_check::LoadClusterExport({{"synced.json", cluster.dump(1)}}, c.sink);
    c.report = cluster_check::CheckProfile(*checked->profile, *checked->plan,
                                           checked->layered.merged, *exported, c.sink);
    return c;
  };
  auto retaint = [](json& items) {
    for (json& taint : FindItem(items, "Node", "gpu-01")["spec"]["taints"])
      if (taint["key"] == "dedicated") taint["value"] = "other-team";
  };
  EXPECT_EQ(check({}, [](json&) {}).Errors(), 0);
  const Checked drifted = check({}, retaint);
  const Diagnostic* d = First(drifted, "cluster.node-taint");
  ASSERT_NE(d, nullptr) << drifted.All();
  EXPECT_THAT(d->message, ::testing::HasSubstr("Node/gpu-01"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("dedicated=other-team:NoSchedule"));
  EXPECT_EQ(d->data_path, "/node_shape/tolerations");
  EXPECT_THAT(d->fix, ::testing::HasSubstr("node_shape.exclude_nodes"));
  const Checked fixed = check({"node_shape.exclude_nodes={gpu-01}"}, retaint);
  EXPECT_EQ(fixed.Errors(), 0) << fixed.All();
}

// A cluster whose Kueue serves kueue.x-k8s.io/v1beta1 only (v0.14) is sent v1beta2 objects.
TEST(SteadyState, KueueServingAnOlderApiIsNamedAndPinningItsReleasePasses) {
  const std::string oke = "profiles/oke-h100.yaml";
  auto v014 = [](json& items) {
    for (json& item : items)
      if (item["kind"] == "CustomResourceDefinition" &&
          item["spec"].value("group", "") == "kueue.x-k8s.io")
        item["spec"]["versions"] = {{{"name", "v1beta1"}, {"served", true}, {"storage", true}}};
  };
  const std::vector<std::string> preinstalled = {"operators.kueue.install=preinstalled"};
  EXPECT_EQ(CheckSynced(oke, preinstalled).Errors(), 0);
  const Checked drifted = CheckSynced(oke, preinstalled, v014);
  const Diagnostic* d = First(drifted, "cluster.kueue-api");
  ASSERT_NE(d, nullptr) << drifted.All();
  EXPECT_EQ(d->location.line, LineOf(drifted, "/operators/kueue/version"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("kueue.x-k8s.io/v1beta2"));
  EXPECT_THAT(d->fix, ::testing::HasSubstr("operators.kueue.version: v0.14.8"));
  std::vector<std::string> fix = preinstalled;
  fix.push_back("operators.kueue.version=v0.14.8");
  const Checked fixed = CheckSynced(oke, fix, v014);
  EXPECT_EQ(fixed.Errors(), 0) << fixed.All();
}

// Kueue on OpenShift is the Red Hat build (OLM package kueue-operator), which the profile can only
// leave to the cluster: its CSV is what shows it, and where it is missing the fix does not offer
// install: managed, which the model refuses there.
TEST(SteadyState, PreinstalledKueueOnOpenShiftIsFoundByItsCsv) {
  const std::vector<std::string> kueue = {
      "scheduling.kueue.levels={topology.kubernetes.io/rack,kubernetes.io/hostname}",
      "operators.kueue.install=preinstalled"};
  const Checked synced = CheckSynced(kBarcelona, kueue);
  EXPECT_EQ(Findings(synced), "");
  const Checked missing = CheckSynced(kBarcelona, kueue, [](json& items) {
    for (json& item : items)
      if (item["kind"] == "ClusterServiceVersion" &&
          item["metadata"]["name"].get<std::string>().rfind("kueue-operator.", 0) == 0)
        item["metadata"]["name"] = "something-else.v1.0.0";
  });
  const Diagnostic* d = First(missing, "cluster.operator-missing");
  ASSERT_NE(d, nullptr) << missing.All();
  EXPECT_EQ(d->data_path, "/operators/kueue/install");
  EXPECT_THAT(d->message, ::testing::HasSubstr("CSV kueue-operator.*"));
  EXPECT_THAT(d->fix, ::testing::Not(::testing::HasSubstr("install: managed")));
}

// One node lacks the VFs the bundle's own node policy creates on the others: the fix points at
// that node's SR-IOV state, not at node_policies (on already).
TEST(SteadyState, MissingVfsWhereTheBundlesPolicyRunsPointAtTheNode) {
  const std::string starter = test_files::FreshOpenShiftProfilePath();
  const Checked c = CheckSynced(starter, {}, [](json& items) {
    json& pf = FindItem(items, "SriovNetworkNodeState", "gpu-01")["status"]["interfaces"][0];
    pf["numVfs"] = 0;
    pf["Vfs"] = json::array();
  });
  const Diagnostic* d = First(c, "cluster.rail-vfs");
  ASSERT_NE(d, nullptr) << c.All();
  EXPECT_THAT(d->message, ::testing::HasSubstr("SriovNetworkNodeState/gpu-01"));
  EXPECT_THAT(d->fix, ::testing::HasSubstr("SriovNetworkNodeState"));
  EXPECT_THAT(d->fix, ::testing::Not(::testing::HasSubstr("node_policies")));
}

// The bundle's own Subscription and CSV, after its sync, are not "installed outside this bundle";
// its own unchanged MachineConfig reboots nothing (the managed OpenShift starter).
TEST(SteadyState, TheBundlesOwnOlmInstallAndMachineConfigAreNotCollisions) {
  const std::string starter = test_files::FreshOpenShiftProfilePath();
  const Checked c = CheckSynced(starter);
  EXPECT_TRUE(c.Of("cluster.operator-installed").empty()) << c.All();
  EXPECT_TRUE(c.Of("cluster.machineconfig-reboot").empty()) << c.All();
  // The same MachineConfig changed on the cluster (another argument): the sync re-renders the pool.
  const Checked changed = CheckSynced(starter, {}, [](json& items) {
    for (json& item : items)
      if (item["kind"] == "MachineConfig" && item["spec"].contains("kernelArguments"))
        item["spec"]["kernelArguments"] = {"iommu=pt", "hugepages=8"};
  });
  EXPECT_FALSE(changed.Of("cluster.machineconfig-reboot").empty()) << changed.All();
}

// --- Free capacity for the first start: other teams' pods on the pool's nodes ---

// A running pod of namespace `ns` on `node` that requests `gpus` GPUs (a job of another team).
json GpuPod(const std::string& ns, const std::string& node, int gpus,
            const std::string& phase = "Running") {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", "train-" + node}, {"namespace", ns}}},
          {"spec", {{"nodeName", node},
                    {"containers", {{{"name", "train"},
                                     {"resources", {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}},
          {"status", {{"phase", phase}}}};
}

// A pod that requests no GPU (the export holds Pods, none of them in the way).
json SystemPod() {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", "coredns-1"}, {"namespace", "kube-system"}}},
          {"spec", {{"nodeName", "gpu-01"}, {"containers", {{{"name", "coredns"}}}}}},
          {"status", {{"phase", "Running"}}}};
}

TEST(SteadyState, WithoutPodsInTheExportFreeCapacityIsAStatedPrecondition) {
  const Checked c = CheckSynced("profiles/oke-h100.yaml");
  EXPECT_EQ(Findings(c), "");
  bool noted = false;
  for (const Diagnostic* d : c.Of("cluster.not-exported"))
    noted |= d->message.find("free capacity for the workload's first start") != std::string::npos;
  EXPECT_TRUE(noted) << c.All();
  bool stated = false;
  for (const Precondition& pre : c.profile->plan->preconditions)
    stated |= pre.kind == "free-capacity" && pre.pointer == "/workload/replicas";
  EXPECT_TRUE(stated);
}

// oke-h100: 2 replicas of 8 GPUs; the simulated pool has 3 nodes. Another team's jobs hold every
// GPU of two of them: one node is idle.
TEST(SteadyState, OtherTeamsPodsFillingTheNodesAreNamedAndFewerReplicasPass) {
  auto busy = [](json& items) {
    items.push_back(GpuPod("team-b", "gpu-01", 8));
    items.push_back(GpuPod("team-b", "gpu-02", 4));
  };
  const Checked drifted = CheckSynced("profiles/oke-h100.yaml", {}, busy);
  const Diagnostic* d = First(drifted, "cluster.capacity");
  ASSERT_NE(d, nullptr) << drifted.All();
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_EQ(d->data_path, "/workload/replicas");
  EXPECT_EQ(d->location.line, LineOf(drifted, "/workload/replicas"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("only 1 of the 3 picked node(s)"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("gpu-01: pods of team-b request 8 of 8 nvidia.com/gpu"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("gpu-02: pods of team-b request 4 of 8 nvidia.com/gpu"));
  EXPECT_THAT(d->fix, ::testing::HasSubstr("set workload.replicas to at most 1"));
  EXPECT_TRUE(First(drifted, "cluster.not-exported") == nullptr ||
              First(drifted, "cluster.not-exported")->message.find("free capacity") == std::string::npos);
  // The fix offered: one replica fits the idle node.
  const Checked fewer = CheckSynced("profiles/oke-h100.yaml", {"workload.replicas=1"}, busy, {.nodes = 3});
  EXPECT_TRUE(fewer.Of("cluster.capacity").empty()) << fewer.All();
  EXPECT_EQ(fewer.Errors(), 0) << fewer.All();
}

TEST(SteadyState, FinishedOrGonePodsFreeTheNodesAndTheCheckIsClean) {
  const Checked finished = CheckSynced("profiles/oke-h100.yaml", {}, [](json& items) {
    items.push_back(GpuPod("team-b", "gpu-01", 8, "Succeeded"));
    items.push_back(GpuPod("team-b", "gpu-02", 8, "Failed"));
    items.push_back(SystemPod());
  });
  EXPECT_EQ(Findings(finished), "");
  const Checked gone = CheckSynced("profiles/oke-h100.yaml", {}, [](json& items) {
    items.push_back(SystemPod());
  });
  EXPECT_EQ(Findings(gone), "");
  for (const Diagnostic* d : gone.Of("cluster.not-exported"))  // Pods are exported now
    EXPECT_EQ(d->message.find("free capacity"), std::string::npos) << d->message;
}

// The bundle's own pods (its namespaces) hold the nodes it is meant to: no finding.
TEST(SteadyState, TheWorkloadsOwnPodsDoNotCountAgainstItsCapacity) {
  const Checked c = CheckSynced("profiles/oke-h100.yaml", {}, [](json& items) {
    for (const char* node : {"gpu-01", "gpu-02", "gpu-03"})
      items.push_back(GpuPod("gpu-training", node, 8));
  });
  EXPECT_TRUE(c.Of("cluster.capacity").empty()) << c.All();
}

// A node that joined the OKE pool waits for its reboot into exclusive RDMA mode: the VF
// DaemonSet labelled it and it offers no VFs. Named with the reboot as its fix; rebooted (label
// gone, VFs offered) the check is clean.
TEST(SteadyState, ANodeWaitingForItsRdmaRebootIsNamedWithTheReboot) {
  const Checked waiting = CheckSynced("profiles/oke-h100.yaml", {}, [](json& items) {
    json& node = FindItem(items, "Node", "gpu-03");
    node["metadata"]["labels"]["hkimgen.io/rdma-mode-pending"] = "true";
    node["status"]["capacity"]["nvidia.com/sriov_rdma_vf"] = "0";
    node["status"]["allocatable"]["nvidia.com/sriov_rdma_vf"] = "0";
  });
  const Diagnostic* d = First(waiting, "cluster.rdma-reboot-pending");
  ASSERT_NE(d, nullptr) << waiting.All();
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_THAT(d->message, ::testing::HasSubstr("Node/gpu-03"));
  EXPECT_THAT(d->message, ::testing::HasSubstr("offers no nvidia.com/sriov_rdma_vf until then"));
  EXPECT_THAT(d->fix, ::testing::HasSubstr("kubectl drain gpu-03"));
  EXPECT_TRUE(waiting.Of("cluster.resource").empty()) << waiting.All();
  EXPECT_EQ(waiting.Errors(), 0) << waiting.All();
}

}  // namespace
}  // namespace hkim::cluster_check_test
