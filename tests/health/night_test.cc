// hkim-health night (the periodic check's coordinator): its pure decisions (night_plan.h), the
// check pod's compact report, and the real binary against the local HTTPS API stand-in playing a
// small cluster: nodes by selector, check pods that are placed and pass or fail, or stay
// Pending on busy nodes.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>

#include "fake_api_server.h"
#include "night_plan.h"
#include "summary.h"
#include "text_cut.h"
#include "summary_lines.h"
#include "test_support.h"

namespace hkim::health {
namespace {

using nlohmann::json;
using testing::CannedResponse;
using testing::FakeApiServer;
using testing::RecordedRequest;

json Node(const std::string& name, const std::string& tested = "") {
  json node = {{"metadata", {{"name", name}, {"resourceVersion", "1"}, {"labels", {{"pool", "gpu"}}}}},
               {"spec", json::object()},
               {"status",
                {{"capacity", {{"nvidia.com/gpu", "8"}}},
                 {"allocatable", {{"nvidia.com/gpu", "8"}}},
                 {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  if (!tested.empty()) node["metadata"]["annotations"]["hkimgen.io/nccl-health-time"] = tested;
  return node;
}

std::vector<std::string> Names(const std::vector<json>& nodes) {
  std::vector<std::string> out;
  for (const json& node : nodes) out.push_back(NodeName(node));
  return out;
}

using Strings = std::vector<std::string>;

TEST(NightPlan, PoolIsTheSelectorsNodesLessExcludedWithinIncluded) {
  const std::vector<json> listed = {Node("c"), Node("a"), Node("b"), Node("a"), Node("d")};
  EXPECT_EQ(Names(PoolOf(listed, {}, {})), (Strings{"a", "b", "c", "d"}));
  EXPECT_EQ(Names(PoolOf(listed, {}, {"b"})), (Strings{"a", "c", "d"}));
  EXPECT_EQ(Names(PoolOf(listed, {"a", "b", "zz"}, {"b"})), (Strings{"a"}));
}

TEST(NightPlan, SliceTakesNeverTestedThenLeastRecentlyTestedTiesByName) {
  const std::vector<json> nodes = {Node("n4", "2026-11-20T03:17:00Z"),
                                   Node("n3", "2026-11-19T03:17:00Z"), Node("n2"),
                                   Node("n1", "2026-11-19T03:17:00Z"), Node("n5")};
  EXPECT_EQ(TonightsSlice(nodes, 2), (Strings{"n2", "n5", "n1"}));  // ceil(5 / 2) = 3
  EXPECT_EQ(TonightsSlice(nodes, 5), (Strings{"n2"}));
  EXPECT_EQ(TonightsSlice(nodes, 1), (Strings{"n2", "n5", "n1", "n3", "n4"}));
  EXPECT_EQ(TonightsSlice(nodes, 366), (Strings{"n2"}));  // at least one a night
  EXPECT_TRUE(TonightsSlice({}, 3).empty());
}

TEST(NightPlan, CheckPodIsPinnedByAffinityInEveryTermAndOwnedByTheCoordinator) {
  const json pod_template = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"generateName", "job-fabric-health-check-"}, {"labels", {{"app", "x"}}}}},
      {"spec",
       {{"nodeName", "somewhere"},
        {"containers", json::array({{{"name", "x"}}})},
        {"affinity",
         {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms",
               json::array({{{"matchExpressions",
                              json::array({{{"key", "kubernetes.io/hostname"},
                                            {"operator", "NotIn"},
                                            {"values", {"other"}}}})}},
                            json::object()})}}}}}}}}}};
  const json pod = CheckPodFor(pod_template, "gpu-7", {"ns-fabric-health", "coord-abc", "uid-1"});
  EXPECT_EQ(pod["metadata"]["namespace"], "ns-fabric-health");
  EXPECT_EQ(pod["metadata"]["generateName"], "job-fabric-health-check-");
  EXPECT_EQ(pod["metadata"]["labels"]["hkimgen.io/health-run"], "uid-1");
  EXPECT_EQ(pod["metadata"]["labels"]["app"], "x");
  EXPECT_EQ(pod["metadata"]["annotations"]["hkimgen.io/health-node"], "gpu-7");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], "uid-1");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "Pod");
  EXPECT_FALSE(pod["spec"].contains("nodeName"));  // the scheduler decides
  EXPECT_EQ(pod["spec"]["automountServiceAccountToken"], false);
  const json terms = pod["spec"]["affinity"]["nodeAffinity"]
                        ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  ASSERT_EQ(terms.size(), 2u);
  for (const json& term : terms) {
    const json& last = term["matchExpressions"].back();
    EXPECT_EQ(last["key"], "kubernetes.io/hostname");
    EXPECT_EQ(last["operator"], "In");
    EXPECT_EQ(last["values"], json::array({"gpu-7"}));
  }
  EXPECT_EQ(terms[0]["matchExpressions"].size(), 2u);  // the exclusion stays
}

json PodWith(const std::string& phase, const json& extra) {
  json pod = {{"metadata", {{"name", "p"}}},
              {"spec", {{"containers", json::array({{{"name", "check"}}})}}},
              {"status", {{"phase", phase}}}};
  pod.merge_patch(extra);
  return pod;
}

json Terminated(int code, const std::string& message) {
  return {{"status",
           {{"containerStatuses",
             json::array({{{"name", "check"},
                           {"state", {{"terminated", {{"exitCode", code}, {"message", message}}}}}}})}}}};
}

std::string Report(bool passed, const std::string& detail = "") {
  NodeSummary summary;
  summary.node = "gpu-1";
  summary.checks.push_back({"nccl-local", passed ? "pass" : "fail", detail, json::object(), {}, {}});
  return CompactReport(summary);
}

TEST(NightPlan, ReadsWhereACheckPodStands) {
  EXPECT_EQ(ReadCheckPod(PodWith("Pending", json::object())).phase, CheckPodPhase::kWaiting);
  const CheckPodState busy = ReadCheckPod(PodWith(
      "Pending", {{"status", {{"conditions", json::array({{{"type", "PodScheduled"},
                                                           {"status", "False"},
                                                           {"reason", "Unschedulable"},
                                                           {"message", "0/3 nodes: Insufficient nvidia.com/gpu"}}})}}}}));
  EXPECT_EQ(busy.phase, CheckPodPhase::kUnschedulable);
  EXPECT_EQ(busy.why, "0/3 nodes: Insufficient nvidia.com/gpu");
  EXPECT_EQ(ReadCheckPod(PodWith("Pending", {{"spec", {{"nodeName", "gpu-1"}}}})).phase,
            CheckPodPhase::kPlaced);
  EXPECT_EQ(ReadCheckPod(PodWith("Succeeded", Terminated(0, Report(true)))).phase,
            CheckPodPhase::kPassed);
  const CheckPodState failed = ReadCheckPod(PodWith("Failed", Terminated(1, Report(false, "9 GB/s"))));
  EXPECT_EQ(failed.phase, CheckPodPhase::kFailed);
  ASSERT_EQ(failed.checks.size(), 1u);
  EXPECT_EQ(failed.checks[0].detail, "9 GB/s");
  // A crash, an OOM kill or exit 1 without a report is no evidence against the node.
  EXPECT_EQ(ReadCheckPod(PodWith("Failed", Terminated(137, ""))).phase, CheckPodPhase::kNoVerdict);
  EXPECT_EQ(ReadCheckPod(PodWith("Failed", Terminated(1, "segfault"))).phase,
            CheckPodPhase::kNoVerdict);
  EXPECT_EQ(ReadCheckPod(PodWith("Failed", json::object())).phase, CheckPodPhase::kNoVerdict);
  EXPECT_EQ(ReadCheckPod(PodWith("Failed", {{"status", {{"conditions", json::array(
                                                {{{"type", "DisruptionTarget"},
                                                  {"status", "True"},
                                                  {"reason", "PreemptionByScheduler"}}})}}}}))
                .phase,
            CheckPodPhase::kPreempted);
}

TEST(CompactReport, FitsTheTerminationMessageAndCutsOnCharacterBoundaries) {
  NodeSummary summary;
  summary.node = "gpu-1";
  const std::string euros(3000, 'x');
  for (int i = 0; i < 12; ++i)
    summary.checks.push_back({"check-" + std::to_string(i), "fail", euros + "\xE2\x82\xAC",
                              json::object(), {"\xE2\x82\xAC" + euros}, {}});
  const std::string report = CompactReport(summary);
  EXPECT_LE(report.size(), kTerminationMessageBytes);
  std::vector<CheckOutcome> checks;
  bool passed = true;
  ASSERT_TRUE(ParseCompactReport(report, &checks, &passed));
  EXPECT_FALSE(passed);
  EXPECT_EQ(checks.size(), 12u);
  EXPECT_EQ(CutUtf8("a\xE2\x82\xAC", 3), "a");  // never half a euro sign
  EXPECT_EQ(CutUtf8("a\xE2\x82\xAC", 4), "a\xE2\x82\xAC");
  EXPECT_FALSE(ParseCompactReport("{\"tool\":\"hkim-health\",\"pas", &checks, &passed));
}

// ---- the real binary against a small simulated cluster -------------------------------------

// The API server's side: nodes by selector, and check pods that each node's state decides.
struct Cluster {
  std::map<std::string, json> nodes;  // every node of the cluster, other teams' too
  std::map<std::string, std::string> behaviour;  // node -> idle | busy | bad
  std::map<std::string, json> pods;   // name -> pod as created
  std::set<std::string> deleted;
  int created = 0;
  std::vector<json> workload_pods;  // the StatefulSet's pods in namespace "train"

  CannedResponse Handle(const RecordedRequest& r) {
    const std::string pods_path = "/api/v1/namespaces/h-fabric-health/pods";
    if (r.method == "GET" && r.target == "/api/v1/nodes?labelSelector=pool%3Dgpu") {
      json items = json::array();
      for (const auto& [name, node] : nodes)
        if (node["metadata"]["labels"].value("pool", "") == "gpu") items.push_back(node);
      return {200, json{{"kind", "NodeList"}, {"items", items}}.dump()};
    }
    if (r.method == "PATCH" && r.target.size() > 21 &&
        r.target.compare(r.target.size() - 7, 7, "/status") == 0) {
      // nodes/status, a strategic merge patch of conditions (merged by type).
      const std::string name = r.target.substr(14, r.target.size() - 21);
      if (!nodes.count(name)) return {404, R"({"kind":"Status","message":"not found"})"};
      if (r.content_type != "application/strategic-merge-patch+json")
        return {415, R"({"kind":"Status","message":"unsupported patch"})"};
      json& conditions = nodes[name]["status"]["conditions"];
      const json patch = json::parse(r.body);
      for (const json& c : patch["status"]["conditions"]) {
        bool merged = false;
        for (json& old : conditions)
          if (old["type"] == c["type"]) old = c, merged = true;
        if (!merged) conditions.push_back(c);
      }
      return {200, nodes[name].dump()};
    }
    if (r.target.rfind("/api/v1/nodes/", 0) == 0) {
      const std::string name = r.target.substr(14);
      if (!nodes.count(name)) return {404, R"({"kind":"Status","message":"not found"})"};
      if (r.method == "PATCH") nodes[name].merge_patch(json::parse(r.body));
      return {200, nodes[name].dump()};
    }
    if (r.method == "GET" && r.target == "/api/v1/namespaces/train/pods?labelSelector=app%3Djob")
      return {200, json{{"kind", "PodList"}, {"items", workload_pods}}.dump()};
    if (r.method == "POST" && r.target == pods_path) {
      json pod = json::parse(r.body);
      const std::string name = pod["metadata"]["generateName"].get<std::string>() +
                               std::to_string(++created);
      pod["metadata"]["name"] = name;
      pods[name] = pod;
      return {201, pod.dump()};
    }
    if (r.method == "GET" && r.target.rfind(pods_path + "?labelSelector=", 0) == 0) {
      json items = json::array();
      for (const auto& [name, pod] : pods) items.push_back(WithStatus(pod));
      return {200, json{{"kind", "PodList"}, {"items", items}}.dump()};
    }
    if (r.method == "DELETE" && r.target.rfind(pods_path + "/", 0) == 0) {
      const std::string name = r.target.substr(pods_path.size() + 1);
      deleted.insert(name);
      pods.erase(name);
      return {200, "{}"};
    }
    return {404, R"({"kind":"Status","message":"unexpected request"})"};
  }

  static std::string PinnedNode(const json& pod) {
    return pod["metadata"]["annotations"]["hkimgen.io/health-node"].get<std::string>();
  }

  json WithStatus(json pod) const {
    const std::string how = behaviour.at(PinnedNode(pod));
    if (how == "busy") {
      pod["status"] = {{"phase", "Pending"},
                       {"conditions", json::array({{{"type", "PodScheduled"},
                                                    {"status", "False"},
                                                    {"reason", "Unschedulable"},
                                                    {"message", "0/4 nodes are available: "
                                                                "Insufficient nvidia.com/gpu"}}})}};
      return pod;
    }
    NodeSummary summary;
    summary.node = PinnedNode(pod);
    const bool passed = how == "idle";
    summary.checks.push_back({"nccl-local", passed ? "pass" : "fail",
                              passed ? "busbw 180 GB/s" : "busbw 20 GB/s below 150",
                              json::object(), {}, {}});
    pod["spec"]["nodeName"] = summary.node;
    pod["status"] = {{"phase", passed ? "Succeeded" : "Failed"},
                     {"containerStatuses",
                      json::array({{{"name", pod["spec"]["containers"][0]["name"]},
                                    {"state", {{"terminated", {{"exitCode", passed ? 0 : 1},
                                                               {"message", CompactReport(summary)}}}}}}})}};
    return pod;
  }
};

std::string TempDir() {
  std::string pattern = ::testing::TempDir() + "hkim-health-night.XXXXXX";
  return ::mkdtemp(pattern.data());
}


const json* CheckOf(const json& summary, const std::string& name) {
  for (const json& check : summary["checks"])
    if (check["name"] == name) return &check;
  return nullptr;
}

class NightProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    sa_ = dir_ + "/sa";
    ::mkdir(sa_.c_str(), 0755);
    const json pod_template = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"generateName", "job-fabric-health-check-"}}},
        {"spec", {{"containers", json::array({{{"name", "job-fabric-health-check"}}})}}}};
    std::ofstream(dir_ + "/check-pod.json") << pod_template.dump();
  }
  void AddNode(const std::string& name, const std::string& how, const std::string& pool = "gpu",
               const std::string& tested = "") {
    json node = Node(name, tested);
    node["metadata"]["labels"]["pool"] = pool;
    cluster_.nodes[name] = node;
    cluster_.behaviour[name] = how;
  }
  test_support::CommandRun Run(int port, const std::string& extra = "") {
    return test_support::RunCapturing(
        "KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=" + std::to_string(port) +
        " HKIM_POD_NAME=coord-1 HKIM_POD_UID=uid-1 HKIM_POD_NAMESPACE=h-fabric-health"
        " HKIM_HEALTH_EXPECT_GPUS=8 HKIM_HEALTH_NODE_SELECTOR=pool=gpu HKIM_HEALTH_TAINT=true"
        " HKIM_HEALTH_CHECK_POD=" + dir_ + "/check-pod.json HKIM_HEALTH_POLL_S=0.05"
        " HKIM_HEALTH_PLACEMENT_TIMEOUT_S=1 HKIM_HEALTH_TIMEOUT_S=30 " + extra + " " +
        HKIM_HEALTH_BIN + " night --service-account-dir " + sa_ + " 2>" + dir_ + "/stderr");
  }
  std::string Log() const {
    std::ifstream file(dir_ + "/stderr");
    return std::string(std::istreambuf_iterator<char>(file), {});
  }
  std::string dir_, sa_;
  Cluster cluster_;
};

TEST_F(NightProgram, BusyNodesAreSkipsAndTheJobSucceeds) {
  AddNode("gpu-1", "idle");
  AddNode("gpu-2", "busy");
  AddNode("gpu-3", "busy");
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  const auto start = std::chrono::steady_clock::now();
  const auto run = Run(server.port());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.status, 0) << Log();
  EXPECT_LT(seconds, 15);  // one placement timeout (1 s), not an unbounded wait
  const auto summaries = SummaryLines(run.out);
  ASSERT_EQ(summaries.size(), 3u);
  EXPECT_EQ(summaries[0]["node"], "gpu-1");
  EXPECT_EQ(summaries[0]["mode"], "night");
  EXPECT_EQ(summaries[0]["mark"], "label pass");
  EXPECT_EQ((*CheckOf(summaries[0], "placement"))["status"], "pass");
  EXPECT_EQ((*CheckOf(summaries[0], "nccl-local"))["status"], "pass");
  for (int i : {1, 2}) {
    EXPECT_TRUE(summaries[i]["passed"]) << summaries[i];
    const json* placement = CheckOf(summaries[i], "placement");
    ASSERT_NE(placement, nullptr);
    EXPECT_EQ((*placement)["status"], "skip");
    EXPECT_NE((*placement)["detail"].get<std::string>().find(
                  "busy: checked when its job starts (not placed within 1 s: 0/4 nodes"),
              std::string::npos);
    EXPECT_EQ(summaries[i]["mark"], "unchanged (busy)");
  }
  EXPECT_EQ(cluster_.nodes["gpu-1"]["metadata"]["labels"]["hkimgen.io/nccl-health"], "pass");
  EXPECT_FALSE(cluster_.nodes["gpu-2"]["metadata"]["labels"].contains("hkimgen.io/nccl-health"));
  EXPECT_EQ(cluster_.deleted.size(), 2u);  // the two Pending pods, not the finished one
  EXPECT_EQ(cluster_.pods.size(), 1u);
}

TEST_F(NightProgram, ATestedNodeThatFailsIsMarkedAndTheJobFails) {
  AddNode("gpu-1", "idle");
  AddNode("gpu-2", "bad");
  AddNode("gpu-3", "busy");
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  const auto run = Run(server.port());
  EXPECT_EQ(run.status, 1) << Log();
  const json labels = cluster_.nodes["gpu-2"]["metadata"]["labels"];
  EXPECT_EQ(labels["hkimgen.io/nccl-health"], "fail");
  EXPECT_EQ(cluster_.nodes["gpu-2"]["spec"]["taints"][0]["effect"], "NoSchedule");
  EXPECT_EQ(cluster_.nodes["gpu-2"]["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"],
            "nccl-local: busbw 20 GB/s below 150");
  const auto summaries = SummaryLines(run.out);
  ASSERT_EQ(summaries.size(), 3u);
  EXPECT_FALSE(summaries[1]["passed"]);
  EXPECT_EQ(summaries[1]["mark"], "label fail + taint");
  EXPECT_TRUE(summaries[2]["passed"]);  // busy, not failed
}

const json* FabricCondition(const json& node) {
  for (const json& c : node["status"]["conditions"])
    if (c["type"] == "RdmaFabric") return &c;
  return nullptr;
}

TEST_F(NightProgram, WithTheConditionItWritesRdmaFabricBesideOrInsteadOfTheLabel) {
  AddNode("gpu-1", "idle");
  AddNode("gpu-2", "bad");
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  auto run = Run(server.port(), "HKIM_HEALTH_MARKS=both");
  EXPECT_EQ(run.status, 1) << Log();
  const json* bad = FabricCondition(cluster_.nodes["gpu-2"]);
  ASSERT_NE(bad, nullptr) << cluster_.nodes["gpu-2"] << Log();
  EXPECT_EQ((*bad)["status"], "True");
  EXPECT_EQ((*bad)["reason"], "RdmaFabricHasIssues");
  EXPECT_EQ((*bad)["message"], "night: nccl-local: busbw 20 GB/s below 150");
  EXPECT_EQ(cluster_.nodes["gpu-2"]["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  const json* good = FabricCondition(cluster_.nodes["gpu-1"]);
  ASSERT_NE(good, nullptr);
  EXPECT_EQ((*good)["status"], "False");
  EXPECT_EQ((*good)["reason"], "RdmaFabricHasNoIssues");
  const auto summaries = SummaryLines(run.out);
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[1]["mark"], "label fail + taint + condition RdmaFabric=True");

  // condition only: the label is left alone.
  AddNode("gpu-3", "bad");
  cluster_.nodes.erase("gpu-1");
  cluster_.nodes.erase("gpu-2");
  run = Run(server.port(), "HKIM_HEALTH_MARKS=condition");
  EXPECT_EQ(run.status, 1) << Log();
  EXPECT_FALSE(cluster_.nodes["gpu-3"]["metadata"]["labels"].contains("hkimgen.io/nccl-health"));
  ASSERT_NE(FabricCondition(cluster_.nodes["gpu-3"]), nullptr);
  EXPECT_EQ((*FabricCondition(cluster_.nodes["gpu-3"]))["status"], "True");
  EXPECT_EQ(SummaryLines(run.out)[0]["mark"], "condition RdmaFabric=True");
}

// The in-pod check's verdict reaches the condition through the coordinator: a workload pod's
// termination message names its node and rail (its pods have no token); a Ready pod clears.
TEST_F(NightProgram, TheInPodChecksVerdictsReachTheConditionThroughTheCoordinator) {
  AddNode("gpu-1", "idle");
  AddNode("gpu-2", "idle");
  AddNode("gpu-3", "busy");
  cluster_.workload_pods = {
      {{"metadata", {{"name", "job-0"}}},
       {"spec", {{"nodeName", "gpu-1"}}},
       {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}},
      {{"metadata", {{"name", "job-1"}}},
       {"spec", {{"nodeName", "gpu-2"}}},
       {"status",
        {{"containerStatuses",
          json::array({{{"name", "main"},
                        {"lastState",
                         {{"terminated",
                           {{"exitCode", 1},
                            {"message",
                             "node gpu-2 rail mlx5_3: 12.00 GB/s vs >= 45.00 expected "
                             "(NET/Socket)\nnode gpu-2 counters moved during the check: mlx5_3 "
                             "(net2) port 1: symbol_error +5\nnode other-team rail x: 1 GB/s\n"}}}}}}})}}}}};
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  const auto run = Run(server.port(), "HKIM_HEALTH_MARKS=condition HKIM_HEALTH_WORKLOAD_PODS=train "
                                      "HKIM_HEALTH_WORKLOAD_SELECTOR=app=job");
  EXPECT_EQ(run.status, 0) << Log();  // the night's own checks passed
  const json* two = FabricCondition(cluster_.nodes["gpu-2"]);
  ASSERT_NE(two, nullptr) << Log();
  EXPECT_EQ((*two)["status"], "True");
  EXPECT_EQ((*two)["message"],
            "pod: node gpu-2 counters moved during the check: mlx5_3 (net2) port 1: symbol_error "
            "+5; node gpu-2 rail mlx5_3: 12.00 GB/s vs >= 45.00 expected (NET/Socket)");
  const json* one = FabricCondition(cluster_.nodes["gpu-1"]);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ((*one)["status"], "False");
  EXPECT_EQ(FabricCondition(cluster_.nodes["gpu-3"]), nullptr);  // busy, named by no pod
  EXPECT_FALSE(cluster_.nodes.count("other-team"));
  EXPECT_NE(SummaryLines(run.out)[1]["mark"].get<std::string>().find(
                "in-pod check: condition RdmaFabric=True"),
            std::string::npos);
}

TEST_F(NightProgram, ExcludedAndOtherTeamsNodesAreNeverTouched) {
  AddNode("gpu-1", "idle");
  AddNode("gpu-2", "idle");
  AddNode("gpu-9", "idle");  // in the selector, but exclude_nodes
  AddNode("yunshi-1", "idle", "other-team");
  cluster_.nodes["gpu-9"]["status"]["capacity"]["nvidia.com/gpu"] = "7";  // would fail inventory
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  const auto run = Run(server.port(), "HKIM_HEALTH_EXCLUDE_NODES=gpu-9,gpu-77");
  EXPECT_EQ(run.status, 0) << Log();
  for (const RecordedRequest& r : server.requests()) {
    EXPECT_EQ(r.target.find("gpu-9"), std::string::npos) << r.method << " " << r.target;
    EXPECT_EQ(r.target.find("yunshi"), std::string::npos) << r.method << " " << r.target;
    if (r.method == "POST") EXPECT_EQ(r.body.find("gpu-9"), std::string::npos);
  }
  EXPECT_EQ(SummaryLines(run.out).size(), 2u);
  EXPECT_FALSE(cluster_.nodes["gpu-9"]["metadata"]["labels"].contains("hkimgen.io/nccl-health"));
  // include_nodes: only those of the pool.
  const auto included = Run(server.port(), "HKIM_HEALTH_INCLUDE_NODES=gpu-2");
  EXPECT_EQ(included.status, 0) << Log();
  ASSERT_EQ(SummaryLines(included.out).size(), 1u);
  EXPECT_EQ(SummaryLines(included.out)[0]["node"], "gpu-2");
}

TEST_F(NightProgram, RotationTestsTheLeastRecentlyTestedSliceAndSkipsTheRest) {
  AddNode("gpu-1", "idle", "gpu", "2026-11-20T03:17:00Z");
  AddNode("gpu-2", "idle", "gpu", "2026-11-21T03:17:00Z");
  AddNode("gpu-3", "idle");
  AddNode("gpu-4", "idle", "gpu", "2026-11-19T03:17:00Z");
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  const auto run = Run(server.port(), "HKIM_HEALTH_ROTATION_NIGHTS=2");
  EXPECT_EQ(run.status, 0) << Log();
  std::set<std::string> tested;
  for (const auto& [name, pod] : cluster_.pods) tested.insert(Cluster::PinnedNode(pod));
  EXPECT_EQ(tested, (std::set<std::string>{"gpu-3", "gpu-4"}));
  const auto summaries = SummaryLines(run.out);
  ASSERT_EQ(summaries.size(), 4u);
  EXPECT_EQ((*CheckOf(summaries[1], "placement"))["detail"],
            "not in tonight's slice (2 of 4 nodes a night); last tested 2026-11-21T03:17:00Z");
  EXPECT_EQ(summaries[1]["mark"], "unchanged");
}

TEST_F(NightProgram, AShortNodeIsMarkedFromItsStatusWithoutAPod) {
  AddNode("gpu-1", "idle");
  AddNode("gpu-2", "idle");
  cluster_.nodes["gpu-2"]["status"]["capacity"]["nvidia.com/gpu"] = "7";
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  const auto run = Run(server.port());
  EXPECT_EQ(run.status, 1) << Log();
  EXPECT_EQ(cluster_.nodes["gpu-2"]["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  EXPECT_EQ(cluster_.created, 1);  // only gpu-1 got a check pod
}

TEST_F(NightProgram, WithoutItsTemplateOrPodIdentityItSaysWhyAndExits2) {
  AddNode("gpu-1", "idle");
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& r) { return cluster_.Handle(r); });
  EXPECT_EQ(Run(server.port(), "HKIM_HEALTH_CHECK_POD=/nonexistent").status, 2);
  EXPECT_NE(Log().find("no check pod template in /nonexistent"), std::string::npos);
  EXPECT_EQ(Run(server.port(), "HKIM_POD_UID=").status, 2);
  EXPECT_NE(Log().find("HKIM_POD_UID must"), std::string::npos);
  EXPECT_EQ(cluster_.created, 0);
}

}  // namespace
}  // namespace hkim::health
