// The nightly check wired end to end: the CronJob and the check pod ConfigMap are rendered from a
// shipped profile through the whole generator pipeline; the real `hkim-health night` runs with
// exactly the coordinator's rendered environment (its placement wait shortened) and the rendered
// check pod, against the local HTTPS API stand-in playing a pool; the stand-in "runs" each check
// pod it is asked to create by starting the real `hkim-health node` with that pod's rendered
// environment (fake hkim-wrapper / hkim-nccl-check measuring per node), and answers with the
// exit code and termination message it left. A busy node's pod stays Pending.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "fake_api_server.h"
#include "pipeline/pipeline.h"
#include "test_support.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using health::testing::CannedResponse;
using health::testing::FakeApiServer;
using health::testing::RecordedRequest;

struct Rendered {
  std::string ns;
  std::vector<std::string> coordinator_env;  // NAME=VALUE, fieldRef ones left out
  json check_pod;
};

Rendered RenderNight(const std::string& profile) {
  DiagnosticSink sink;
  LayerInputs inputs{(fs::path(HKIM_SOURCE_DIR) / "profiles" / (profile + ".yaml")).string(), {}, {}};
  auto bundle = RenderProfileLayers(inputs, sink);
  EXPECT_TRUE(bundle.has_value());
  Rendered out;
  if (!bundle) return out;
  for (const RenderedFile& file : bundle->files) {
    if (file.file_name.size() < 5 || file.file_name.compare(file.file_name.size() - 5, 5, ".yaml"))
      continue;
    YAML::Node doc = YAML::Load(file.content);
    if (!doc["kind"]) continue;
    const std::string kind = doc["kind"].as<std::string>();
    if (kind == "ConfigMap" && doc["data"]["check-pod.json"])
      out.check_pod = json::parse(doc["data"]["check-pod.json"].as<std::string>());
    if (kind != "CronJob") continue;
    out.ns = doc["metadata"]["namespace"].as<std::string>();
    for (const YAML::Node& e :
         doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["env"])
      if (e["value"]) out.coordinator_env.push_back(e["name"].as<std::string>() + "=" + e["value"].as<std::string>());
  }
  return out;
}

std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

json Node(const std::string& name, const std::string& resource) {
  const json counts = {{"nvidia.com/gpu", "8"}, {resource, "16"}};
  return {{"metadata", {{"name", name}, {"resourceVersion", "1"}}},
          {"spec", json::object()},
          {"status",
           {{"capacity", counts},
            {"allocatable", counts},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

class NightProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("night-profile-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "bin");
    fs::create_directories(dir_ / "sa");
    std::ofstream(dir_ / "bin/hkim-wrapper") << "#!/bin/sh\necho 'result: RDMA fully usable'\n";
    // Measures by node: a "slow" node's GPUs give 20 GB/s, the others 180; judged against the
    // rendered HKIM_NCCL_CHECK_MIN_BUSBW_GBPS like hkim-nccl-check.
    std::ofstream(dir_ / "bin/hkim-nccl-check")
        << "#!/bin/sh\n"
           "case $HKIM_NODE_NAME in *slow*) bw=20;; *) bw=180;; esac\n"
           "min=$HKIM_NCCL_CHECK_MIN_BUSBW_GBPS\n"
           "if awk \"BEGIN{exit !($bw < $min)}\"; then rc=1; p=false; f=\"\\\"busbw $bw GB/s is "
           "below the minimum $min GB/s\\\"\"; else rc=0; p=true; f=''; fi\n"
           "echo \"{\\\"passed\\\": $p, \\\"failures\\\": [$f], \\\"results\\\": []}\"\n"
           "exit $rc\n";
    fs::permissions(dir_ / "bin/hkim-wrapper", fs::perms::owner_all);
    fs::permissions(dir_ / "bin/hkim-nccl-check", fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The check pod as a kubelet would run it: its rendered env (HKIM_NODE_NAME from the node it
  // is pinned to), the real hkim-health node; the termination message it leaves.
  json RunCheckPod(const json& pod, const std::string& node) {
    std::string command = "env -i PATH=/usr/bin:/bin HKIM_NODE_NAME=" + node;
    for (const json& e : pod["spec"]["containers"][0]["env"])
      if (e.contains("value")) command += " " + Quote(e["name"].get<std::string>() + "=" + e["value"].get<std::string>());
    const fs::path log = dir_ / ("termination-" + node);
    command += " HKIM_HEALTH_TERMINATION_LOG=" + log.string() + " " + HKIM_HEALTH_BIN +
               " node --bin-dir " + (dir_ / "bin").string() + " > /dev/null 2>&1";
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    json out = pod;
    out["spec"]["nodeName"] = node;
    out["status"] = {{"phase", code == 0 ? "Succeeded" : "Failed"},
                     {"containerStatuses",
                      json::array({{{"name", pod["spec"]["containers"][0]["name"]},
                                    {"state", {{"terminated", {{"exitCode", code},
                                                               {"message", test_support::ReadFile(log)}}}}}}})}};
    return out;
  }

  fs::path dir_;
};

TEST_F(NightProfile, TheRenderedCoordinatorSkipsBusyNodesAndMarksFromTheRenderedCheckPods) {
  const Rendered night = RenderNight("oke-h100");
  ASSERT_TRUE(night.check_pod.is_object());
  ASSERT_FALSE(night.coordinator_env.empty());
  std::ofstream(dir_ / "check-pod.json") << night.check_pod.dump();
  const std::string resource = "nvidia.com/sriov_rdma_vf";
  std::map<std::string, json> nodes = {{"h100-busy", Node("h100-busy", resource)},
                                       {"h100-good", Node("h100-good", resource)},
                                       {"h100-slow", Node("h100-slow", resource)}};
  std::map<std::string, json> pods;
  const std::string pods_path = "/api/v1/namespaces/" + night.ns + "/pods";
  FakeApiServer server((dir_ / "sa").string(), "tok", [&](const RecordedRequest& r) -> CannedResponse {
    if (r.method == "GET" && r.target.rfind("/api/v1/nodes?labelSelector=", 0) == 0) {
      json items = json::array();
      for (const auto& [name, node] : nodes) items.push_back(node);
      return {200, json{{"items", items}}.dump()};
    }
    if (r.target.rfind("/api/v1/nodes/", 0) == 0) {
      json& node = nodes.at(r.target.substr(14));
      if (r.method == "PATCH") node.merge_patch(json::parse(r.body));
      return {200, node.dump()};
    }
    if (r.method == "POST" && r.target == pods_path) {
      json pod = json::parse(r.body);
      const std::string node = pod["metadata"]["annotations"]["hkimgen.io/health-node"];
      pod["metadata"]["name"] = pod["metadata"]["generateName"].get<std::string>() + node;
      if (node == "h100-busy") {  // the job holds its GPUs: the scheduler finds no room
        json pending = pod;
        pending["status"] = {{"phase", "Pending"},
                             {"conditions", json::array({{{"type", "PodScheduled"},
                                                          {"status", "False"},
                                                          {"reason", "Unschedulable"}}})}};
        pods[pod["metadata"]["name"]] = pending;
      } else {
        pods[pod["metadata"]["name"]] = RunCheckPod(pod, node);
      }
      return {201, pod.dump()};
    }
    if (r.method == "GET" && r.target.rfind(pods_path + "?", 0) == 0) {
      json items = json::array();
      for (const auto& [name, pod] : pods) items.push_back(pod);
      return {200, json{{"items", items}}.dump()};
    }
    if (r.method == "DELETE") {
      pods.erase(r.target.substr(pods_path.size() + 1));
      return {200, "{}"};
    }
    return {404, "{}"};
  });
  std::string command = "env -i PATH=/usr/bin:/bin KUBERNETES_SERVICE_HOST=127.0.0.1 "
                        "KUBERNETES_SERVICE_PORT=" + std::to_string(server.port());
  for (const std::string& e : night.coordinator_env) command += " " + Quote(e);
  command += " HKIM_POD_NAME=coord HKIM_POD_UID=uid-7 HKIM_POD_NAMESPACE=" + night.ns +
             " HKIM_HEALTH_CHECK_POD=" + (dir_ / "check-pod.json").string() +
             " HKIM_HEALTH_PLACEMENT_TIMEOUT_S=1 HKIM_HEALTH_POLL_S=0.05 " + HKIM_HEALTH_BIN +
             " night --service-account-dir " + (dir_ / "sa").string() + " 2>" +
             (dir_ / "stderr").string();
  const test_support::CommandRun run = test_support::RunCapturing(command);
  EXPECT_EQ(run.status, 1) << test_support::ReadFile(dir_ / "stderr");  // the slow node failed
  auto label = [&](const std::string& node) {
    return nodes[node]["metadata"].value("labels", json::object()).value("hkimgen.io/nccl-health", "-");
  };
  EXPECT_EQ(label("h100-good"), "pass");
  EXPECT_EQ(label("h100-slow"), "fail");
  EXPECT_EQ(label("h100-busy"), "-");  // busy: not marked
  EXPECT_EQ(nodes["h100-slow"]["spec"]["taints"][0]["key"], "hkimgen.io/nccl-health");  // taint: true
  EXPECT_NE(nodes["h100-slow"]["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"]
                .get<std::string>()
                .find("below the minimum 100 GB/s"),
            std::string::npos);
  EXPECT_NE(run.out.find("busy: checked when its job starts"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace hkim
