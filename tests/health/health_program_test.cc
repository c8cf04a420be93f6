// hkim-health end to end without a GPU or a cluster: the real binary, fake hkim-wrapper and
// hkim-nccl-check scripts in its bin folder (recorded outputs), and the local HTTPS API
// stand-in. Checks what is marked on which node and what the summary says.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "fake_api_server.h"
#include "summary_lines.h"
#include "test_support.h"

namespace hkim::health {
namespace {

using nlohmann::json;
using testing::CannedResponse;
using testing::FakeApiServer;
using testing::RecordedRequest;

std::string TempDir() {
  std::string pattern = ::testing::TempDir() + "hkim-health-prog.XXXXXX";
  return ::mkdtemp(pattern.data());
}

void Script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
}

json Node(const std::string& name, const std::string& gpus) {
  return {{"metadata", {{"name", name}, {"resourceVersion", "1"}}},
          {"spec", json::object()},
          {"status",
           {{"capacity", {{"nvidia.com/gpu", gpus}}},
            {"allocatable", {{"nvidia.com/gpu", gpus}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

using ProgramRun = test_support::CommandRun;

ProgramRun RunHealth(const std::string& command) { return test_support::RunCapturing(command); }


class HealthProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    bin_ = dir_ + "/bin";
    ::mkdir(bin_.c_str(), 0755);
    sa_ = dir_ + "/sa";
    ::mkdir(sa_.c_str(), 0755);
    Script(bin_ + "/hkim-wrapper", "echo 'result: RDMA fully usable'\n");
  }
  std::string Command(int port, const std::string& extra = "") const {
    return "KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=" + std::to_string(port) +
           " HKIM_NODE_NAME=gpu-1 HKIM_POD_NAME=health-0 HKIM_HEALTH_EXPECT_GPUS=8"
           " HKIM_HEALTH_NODE_SELECTOR=pool=gpu HKIM_HEALTH_TAINT=true " + extra + " " +
           HKIM_HEALTH_BIN + " node --bin-dir " + bin_ + " --service-account-dir " + sa_ +
           " 2>" + dir_ + "/stderr";
  }
  std::string dir_, bin_, sa_;
};

// A recorded hkim-nccl-check run below the profile's minimum.
const char* kSlowRecord =
    R"({"passed": false, "failures": ["busbw 20.00 GB/s at 1G is below the minimum 150.00 GB/s"],
        "results": [{"bytes": 1073741824, "busbw_gbps": 20.0}],
        "threshold": {"at_bytes": 1073741824, "min_busbw_gbps": 150.0},
        "transport": {"summary": "NET/Socket/0 x8"}})";

TEST_F(HealthProgram, SlowNodeIsLabelledAndTaintedAndASevenGpuNodeIsMarkedToo) {
  Script(bin_ + "/hkim-nccl-check", std::string("cat <<'EOF'\n") + kSlowRecord + "\nEOF\nexit 1\n");
  std::vector<RecordedRequest> patches;
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& request) {
    if (request.method == "PATCH") return CannedResponse{200, "{}"};
    if (request.target == "/api/v1/nodes/gpu-1") return CannedResponse{200, Node("gpu-1", "8").dump()};
    if (request.target == "/api/v1/nodes/gpu-2") return CannedResponse{200, Node("gpu-2", "7").dump()};
    return CannedResponse{200, json{{"items", {Node("gpu-1", "8"), Node("gpu-2", "7")}}}.dump()};
  });
  const ProgramRun run = RunHealth(Command(server.port()));
  EXPECT_EQ(run.status, 0) << run.out;
  const std::vector<json> summaries = SummaryLines(run.out);
  ASSERT_EQ(summaries.size(), 2u) << run.out;
  EXPECT_EQ(summaries[0]["node"], "gpu-2");
  EXPECT_EQ(summaries[0]["checks"][0]["failures"][0],
            "node gpu-2 registers 7 of 8 GPUs (nvidia.com/gpu capacity)");
  EXPECT_EQ(summaries[1]["node"], "gpu-1");
  EXPECT_EQ(summaries[1]["passed"], false);
  EXPECT_EQ(summaries[1]["mark"], "label fail + taint");

  std::map<std::string, json> patch_of;
  for (const RecordedRequest& request : server.requests())
    if (request.method == "PATCH") patch_of[request.target] = json::parse(request.body);
  ASSERT_EQ(patch_of.size(), 2u);
  const json& own = patch_of["/api/v1/nodes/gpu-1"];
  EXPECT_EQ(own["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  EXPECT_EQ(own["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"],
            "nccl-local: busbw 20.00 GB/s at 1G is below the minimum 150.00 GB/s");
  EXPECT_EQ(own["spec"]["taints"][0]["effect"], "NoSchedule");
  EXPECT_EQ(patch_of["/api/v1/nodes/gpu-2"]["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
}

TEST_F(HealthProgram, HealthyNodeGetsItsMarkRemovedOnlyAfterTwoPasses) {
  Script(bin_ + "/hkim-nccl-check",
         "echo '{\"passed\": true, \"failures\": [], \"transport\": {\"summary\": \"NVLink\"}}'\n");
  json tainted = Node("gpu-1", "8");
  tainted["metadata"]["labels"]["hkimgen.io/nccl-health"] = "fail";
  tainted["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"] = "node gpu-1: 12 GB/s vs >= 45 expected";
  tainted["spec"]["taints"] = {{{"key", "hkimgen.io/nccl-health"}, {"value", "fail"}, {"effect", "NoSchedule"}}};
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& request) {
    if (request.method == "PATCH") return CannedResponse{200, "{}"};
    if (request.target == "/api/v1/nodes/gpu-1") return CannedResponse{200, tainted.dump()};
    return CannedResponse{200, json{{"items", {tainted}}}.dump()};
  });
  // First pass: counted, the node stays marked (a flaky node passes once).
  ProgramRun run = RunHealth(Command(server.port()));
  EXPECT_EQ(run.status, 0) << run.out;
  json patch = json::parse(server.requests().back().body);
  EXPECT_EQ(patch["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  EXPECT_EQ(patch["metadata"]["annotations"]["hkimgen.io/nccl-health-passes"], "1");
  EXPECT_FALSE(patch.contains("spec"));
  EXPECT_EQ(SummaryLines(run.out).back()["mark"], "label fail kept (healing 1/2 passes)");
  // Second consecutive pass: released.
  tainted["metadata"]["annotations"]["hkimgen.io/nccl-health-passes"] = "1";
  run = RunHealth(Command(server.port()));
  patch = json::parse(server.requests().back().body);
  EXPECT_EQ(patch["metadata"]["labels"]["hkimgen.io/nccl-health"], "pass");
  EXPECT_TRUE(patch["spec"]["taints"].is_null());
  EXPECT_EQ(SummaryLines(run.out).back()["mark"], "label pass");
  // HKIM_HEALTH_RELEASE_AFTER=3 (the profile's release_after_passes): still healing.
  run = RunHealth(Command(server.port(), "HKIM_HEALTH_RELEASE_AFTER=3"));
  EXPECT_EQ(SummaryLines(run.out).back()["mark"], "label fail kept (healing 2/3 passes)");
}

TEST_F(HealthProgram, ShortNodeFailsFastWithoutRunningNccl) {
  Script(bin_ + "/hkim-nccl-check", "touch " + dir_ + "/nccl-ran\nexit 0\n");
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& request) {
    if (request.method == "PATCH") return CannedResponse{200, "{}"};
    if (request.target == "/api/v1/nodes/gpu-1") return CannedResponse{200, Node("gpu-1", "7").dump()};
    return CannedResponse{200, json{{"items", {Node("gpu-1", "7")}}}.dump()};
  });
  const ProgramRun run = RunHealth(Command(server.port()));
  EXPECT_EQ(run.status, 0);
  const json summary = SummaryLines(run.out).back();
  EXPECT_EQ(summary["checks"].size(), 1u);
  EXPECT_EQ(summary["checks"][0]["name"], "inventory");
  EXPECT_FALSE(std::ifstream(dir_ + "/nccl-ran").good());
}

// The rotation: with 2 nights, of a 2-node group exactly one node runs NCCL tonight
// (whichever the date picks); the other checks its inventory, leaves its mark alone, exits 0.
TEST_F(HealthProgram, RotationRunsNcclOnlyOnTonightsSliceOfTheGroup) {
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& request) {
    if (request.method == "PATCH") return CannedResponse{200, "{}"};
    if (request.target == "/api/v1/nodes/gpu-1") return CannedResponse{200, Node("gpu-1", "8").dump()};
    if (request.target == "/api/v1/nodes/gpu-2") return CannedResponse{200, Node("gpu-2", "8").dump()};
    return CannedResponse{200, json{{"items", {Node("gpu-2", "8"), Node("gpu-1", "8")}}}.dump()};
  });
  int ran = 0;
  for (const std::string node : {"gpu-1", "gpu-2"}) {
    Script(bin_ + "/hkim-nccl-check", "touch " + dir_ + "/nccl-" + node +
           "\necho '{\"passed\": true, \"failures\": [], \"transport\": {\"summary\": \"NVLink\"}}'\n");
    const size_t before = server.requests().size();
    const ProgramRun run =
        RunHealth(Command(server.port(), "HKIM_NODE_NAME=" + node + " HKIM_HEALTH_ROTATION_NIGHTS=2"));
    EXPECT_EQ(run.status, 0) << run.out;
    const bool nccl = std::ifstream(dir_ + "/nccl-" + node).good();
    ran += nccl;
    bool patched = false;
    for (size_t i = before; i < server.requests().size(); ++i)
      patched |= server.requests()[i].method == "PATCH";
    EXPECT_EQ(patched, nccl) << node << ": only tonight's node writes its mark";
    std::ifstream err(dir_ + "/stderr");
    const std::string log((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    EXPECT_NE(log.find("rotation: night "), std::string::npos) << log;
  }
  EXPECT_EQ(ran, 1);
}

TEST_F(HealthProgram, GateFailsUnderPolicyFailAndPassesUnderWarn) {
  Script(bin_ + "/hkim-nccl-check", std::string("cat <<'EOF'\n") + kSlowRecord + "\nEOF\nexit 1\n");
  const std::string gate = "HKIM_NODE_NAME=gpu-1 HKIM_POD_NAME=gate-0 " + std::string(HKIM_HEALTH_BIN) +
                           " gate --bin-dir " + bin_ + " 2>/dev/null";
  const ProgramRun fail = RunHealth("HKIM_HEALTH_POLICY=fail " + gate);
  EXPECT_EQ(fail.status, 1);
  EXPECT_EQ(SummaryLines(fail.out).at(0)["checks"][1]["name"], "nccl-job");
  EXPECT_EQ(RunHealth("HKIM_HEALTH_POLICY=warn " + gate).status, 0);
}

TEST_F(HealthProgram, TcpModeGateDoesNotHoldMissingRdmaAgainstTheNode) {
  Script(bin_ + "/hkim-wrapper", "echo 'result: RDMA NOT fully usable (tcp, 0 problem(s))'\nexit 1\n");
  Script(bin_ + "/hkim-nccl-check", "echo '{\"passed\": true, \"failures\": []}'\n");
  const std::string gate = "HKIM_NODE_NAME=gpu-1 HKIM_HEALTH_POLICY=fail " + std::string(HKIM_HEALTH_BIN) +
                           " gate --bin-dir " + bin_ + " 2>/dev/null";
  EXPECT_EQ(RunHealth(gate).status, 1);  // rdma mode: the diagnosis fails the gate
  const ProgramRun tcp = RunHealth("HKIM_MODE=tcp " + gate);
  EXPECT_EQ(tcp.status, 0);
  EXPECT_EQ(SummaryLines(tcp.out).at(0)["checks"][0]["status"], "skip");
}

// The gate's localization end to end: four real hkim-health processes (the gate's pods, all on
// 127.0.0.1), a fake hkim-nccl-check that is slow in every group holding node gpu-2 (the group's
// members meet in a file named after the group's rendezvous name).
TEST_F(HealthProgram, GateLocalizationNamesTheSlowNodeInSummaryAndTerminationMessage) {
  const std::string groups = dir_ + "/groups";
  ::mkdir(groups.c_str(), 0755);
  Script(bin_ + "/hkim-nccl-check",
         "if [ \"$HKIM_REPLICAS\" = 4 ]; then\n"
         "  echo '{\"passed\":false,\"failures\":[\"bus bandwidth 9.00 GB/s is below 45\"]}'; exit 1\n"
         "fi\n"
         "g=" + groups + "/${HKIM_POD_NAME%-*}\n"
         "echo $HKIM_NODE_NAME >> $g\n"
         "i=0; while [ $(wc -l < $g) -lt $HKIM_REPLICAS ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done\n"
         "if grep -q gpu-2 $g; then\n"
         "  echo '{\"passed\":false,\"failures\":[\"slow\"],\"results\":[{\"bytes\":1024,\"busbw_gbps\":9.0}],"
         "\"threshold\":{\"at_bytes\":1024},\"transport\":{\"summary\":\"NET/Socket x2\"}}'; exit 1\n"
         "fi\n"
         "echo '{\"passed\":true,\"failures\":[],\"results\":[{\"bytes\":1024,\"busbw_gbps\":50.0}],"
         "\"threshold\":{\"at_bytes\":1024},\"transport\":{\"summary\":\"NET/IB x2\"}}'\n");
  const int port = 30000 + static_cast<int>(::getpid() % 20000);
  std::string command = "(";
  for (int i = 0; i < 4; ++i) {
    command += "HKIM_NODE_NAME=gpu-" + std::to_string(i) + " HKIM_POD_NAME=gate-" + std::to_string(i) +
               " HKIM_REPLICAS=4 MASTER_ADDR=127.0.0.1 HKIM_RENDEZVOUS_PORT=" + std::to_string(port) +
               " HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=45 HKIM_NCCL_CHECK_AT_BYTES=1024 HKIM_HEALTH_PAIR_TIMEOUT_S=20"
               " HKIM_HEALTH_TERMINATION_LOG=" + dir_ + "/term-" + std::to_string(i) + " " +
               HKIM_HEALTH_BIN + " gate --bin-dir " + bin_ + " > " + dir_ + "/out-" + std::to_string(i) +
               " 2>" + dir_ + "/log-" + std::to_string(i) + " & ";
  }
  command += "wait)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  for (int i = 0; i < 4; ++i) {
    std::ifstream out(dir_ + "/out-" + std::to_string(i));
    const std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
    const std::vector<json> summaries = SummaryLines(text);
    ASSERT_EQ(summaries.size(), 1u) << text;
    const json& summary = summaries[0];
    EXPECT_EQ(summary["localization"]["rounds"], 3) << summary.dump();
    ASSERT_EQ(summary["suspects"].size(), 1u) << summary.dump();
    EXPECT_EQ(summary["suspects"][0]["node"], "gpu-2");
    EXPECT_EQ(summary["suspects"][0]["pod"], "gate-2");
    EXPECT_EQ(summary["suspects"][0]["busbw_gbps"], 9.0);
    EXPECT_EQ(summary["suspects"][0]["expected_gbps"], 45.0);
    EXPECT_EQ(summary["suspects"][0]["transport"], "NET/Socket x2");
    std::ifstream term(dir_ + "/term-" + std::to_string(i));
    std::string line;
    std::getline(term, line);
    EXPECT_EQ(line, "node gpu-2: 9.0 GB/s vs >= 45 expected (NET/Socket x2)");
  }
}

TEST_F(HealthProgram, WithoutAnApiTheRunSaysSoAndExits2) {
  Script(bin_ + "/hkim-nccl-check", "echo '{\"passed\": true}'\n");
  const ProgramRun run = RunHealth("env -u KUBERNETES_SERVICE_HOST HKIM_NODE_NAME=gpu-1 " +
                            std::string(HKIM_HEALTH_BIN) + " node --bin-dir " + bin_ +
                            " --service-account-dir " + sa_ + " 2>/dev/null");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(SummaryLines(run.out).back()["mark"], "not marked: no Kubernetes API");
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool Exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

// `hkim-health pod -- sh -c ...` whose command writes the pod's name (from its environment) to
// dir/exec; the ready file is dir/ready.
std::string PodCommand(const std::string& dir, const std::string& bin, const std::string& env) {
  return "HKIM_NODE_NAME=gpu-1 HKIM_HEALTH_READY_FILE=" + dir + "/ready HKIM_HEALTH_TERMINATION_LOG=" +
         dir + "/term HKIM_HEALTH_POLICY=fail " + env + " " + HKIM_HEALTH_BIN + " pod --bin-dir " + bin +
         " -- sh -c 'echo $HKIM_POD_NAME > " + dir + "/exec' 2>" + dir + "/stderr";
}

// A pod restarted alone (HKIM_REPLICAS=4, nobody on rank 0's port): after the assembly timeout
// it runs the local checks, says so, writes the ready file and execs the command.
TEST_F(HealthProgram, PodAloneRunsTheLocalChecksSaysSoAndExecsTheCommand) {
  Script(bin_ + "/hkim-nccl-check",
         "echo \"$@\" >> " + dir_ + "/ran\necho '{\"passed\": true, \"failures\": []}'\n");
  const int port = 33000 + static_cast<int>(::getpid() % 9000) * 3;
  const auto start = std::chrono::steady_clock::now();
  const ProgramRun run = RunHealth(PodCommand(
      dir_, bin_,
      "HKIM_POD_NAME=train-2 HKIM_REPLICAS=4 MASTER_ADDR=127.0.0.1 HKIM_RENDEZVOUS_PORT=" +
          std::to_string(port) + " HKIM_HEALTH_ASSEMBLE_TIMEOUT_S=1 HKIM_HEALTH_PER_RAIL=true"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.status, 0) << ReadText(dir_ + "/stderr");
  EXPECT_LT(seconds, 5);
  const std::vector<json> summaries = SummaryLines(run.out);
  ASSERT_EQ(summaries.size(), 1u) << run.out;
  EXPECT_EQ(summaries[0]["mode"], "pod");
  EXPECT_EQ(summaries[0]["checks"][1]["name"], "nccl-job");
  EXPECT_EQ(summaries[0]["checks"][1]["status"], "skip");
  EXPECT_EQ(summaries[0]["checks"][1]["detail"],
            "ran alone: the pod set did not assemble within 1 s (the other pods are running)");
  EXPECT_EQ(summaries[0]["checks"][2]["name"], "nccl-local");
  EXPECT_EQ(summaries[0]["checks"][3]["name"], "per-rail");
  EXPECT_EQ(ReadText(dir_ + "/ran"), "--scope local --json -\n--scope local --per-rail --json -\n");
  EXPECT_EQ(ReadText(dir_ + "/exec"), "train-2\n");  // the command ran, with the environment
  EXPECT_EQ(ReadText(dir_ + "/ready"), summaries[0]["time"].get<std::string>() + "\n");
}

TEST_F(HealthProgram, PodFailingUnderPolicyFailIsNotReadyAndDoesNotExec) {
  Script(bin_ + "/hkim-nccl-check", std::string("cat <<'EOF'\n") + kSlowRecord + "\nEOF\nexit 1\n");
  std::ofstream(dir_ + "/ready") << "stale\n";  // left by the container's previous run
  const ProgramRun run = RunHealth(PodCommand(dir_, bin_, "HKIM_POD_NAME=train-0 HKIM_REPLICAS=1"));
  EXPECT_EQ(run.status, 1);
  EXPECT_FALSE(Exists(dir_ + "/ready"));
  EXPECT_FALSE(Exists(dir_ + "/exec"));
  EXPECT_EQ(ReadText(dir_ + "/term"),
            "fabric check failed, no suspect: gpu-1: nccl-local: busbw 20.00 GB/s at 1G is below "
            "the minimum 150.00 GB/s\n");
  const ProgramRun probe = RunHealth("HKIM_HEALTH_READY_FILE=" + dir_ + "/ready " +
                                     std::string(HKIM_HEALTH_BIN) + " ready");
  EXPECT_EQ(probe.status, 1);
  EXPECT_EQ(probe.out, "fabric not ready: " + dir_ +
                           "/ready does not exist (the in-pod check has not passed)\n");
  // Policy warn: the same failure is reported, and the pod goes on.
  const ProgramRun warn =
      RunHealth(PodCommand(dir_, bin_, "HKIM_POD_NAME=train-0 HKIM_REPLICAS=1 HKIM_HEALTH_POLICY=warn"));
  EXPECT_EQ(warn.status, 0);
  EXPECT_EQ(SummaryLines(warn.out).at(0)["passed"], false);
  EXPECT_TRUE(Exists(dir_ + "/exec"));
  const ProgramRun ready = RunHealth("HKIM_HEALTH_READY_FILE=" + dir_ + "/ready " +
                                     std::string(HKIM_HEALTH_BIN) + " ready");
  EXPECT_EQ(ready.status, 0);
  EXPECT_EQ(ready.out, "");
}

// The pod's own VF counters: read before and after its checks; a failed check names the device
// (and its pod interface, the rail's attachment) whose error counters moved.
TEST_F(HealthProgram, PodFailureNamesTheDeviceWhoseErrorCountersMoved) {
  const std::string sys = dir_ + "/sys";
  for (const std::string dev : {"mlx5_3", "mlx5_4"}) {
    const std::string port = sys + "/" + dev + "/ports/1";
    ASSERT_EQ(std::system(("mkdir -p " + port + "/counters " + port + "/hw_counters " + sys + "/" +
                           dev + "/device/net/" + (dev == "mlx5_3" ? "net2" : "net3"))
                              .c_str()),
              0);
    std::ofstream(port + "/state") << "4: ACTIVE\n";
    std::ofstream(port + "/counters/symbol_error") << "7\n";
    std::ofstream(port + "/counters/port_xmit_data") << "100\n";
    std::ofstream(port + "/hw_counters/rnr_nak_retry_err") << "0\n";
  }
  // The all-reduce: traffic on both, errors on mlx5_3 only.
  const std::string c3 = sys + "/mlx5_3/ports/1", c4 = sys + "/mlx5_4/ports/1";
  Script(bin_ + "/hkim-nccl-check",
         "echo 12 > " + c3 + "/counters/symbol_error\necho 2 > " + c3 +
             "/hw_counters/rnr_nak_retry_err\necho 900 > " + c3 +
             "/counters/port_xmit_data\necho 900 > " + c4 + "/counters/port_xmit_data\n" +
             std::string("cat <<'EOF'\n") + kSlowRecord + "\nEOF\nexit 1\n");
  const ProgramRun run = RunHealth(PodCommand(
      dir_, bin_, "HKIM_POD_NAME=train-0 HKIM_REPLICAS=1 HKIM_HEALTH_SYSFS=" + sys));
  EXPECT_EQ(run.status, 1) << ReadText(dir_ + "/stderr");
  EXPECT_EQ(ReadText(dir_ + "/term"),
            "fabric check failed, no suspect: gpu-1: nccl-local: busbw 20.00 GB/s at 1G is below "
            "the minimum 150.00 GB/s\nnode gpu-1 counters moved during the check: mlx5_3 (net2) "
            "port 1: rnr_nak_retry_err +2, symbol_error +5\n");
  const json summary = SummaryLines(run.out).at(0);
  EXPECT_EQ(summary["counters"]["devices"], 2);
  ASSERT_EQ(summary["counters"]["moved"].size(), 1u);
  EXPECT_EQ(summary["counters"]["moved"][0]["netdev"], "net2");
  EXPECT_EQ(summary["counters"]["moved"][0]["deltas"]["symbol_error"], 5);
  EXPECT_NE(ReadText(dir_ + "/stderr").find("moved: mlx5_3 (net2) port 1"), std::string::npos);
}

TEST_F(HealthProgram, PodModeNeedsACommandAndOnlyPodModeTakesOne) {
  EXPECT_EQ(RunHealth(std::string(HKIM_HEALTH_BIN) + " pod 2>/dev/null").status, 2);
  EXPECT_EQ(RunHealth(std::string(HKIM_HEALTH_BIN) + " gate -- true 2>/dev/null").status, 2);
}

// The whole set in pod mode: four processes, a fake check that is slow in every group holding
// gpu-2. Every pod names gpu-2, none is ready, none runs the command.
TEST_F(HealthProgram, PodSetWithASlowNodeNamesItAndNoPodExecs) {
  const std::string groups = dir_ + "/groups";
  ::mkdir(groups.c_str(), 0755);
  Script(bin_ + "/hkim-nccl-check",
         "if [ \"$HKIM_REPLICAS\" = 4 ]; then\n"
         "  echo '{\"passed\":false,\"failures\":[\"bus bandwidth 9.00 GB/s is below 45\"]}'; exit 1\n"
         "fi\n"
         "g=" + groups + "/${HKIM_POD_NAME%-*}\n"
         "echo $HKIM_NODE_NAME >> $g\n"
         "i=0; while [ $(wc -l < $g) -lt $HKIM_REPLICAS ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done\n"
         "if grep -q gpu-2 $g; then\n"
         "  echo '{\"passed\":false,\"failures\":[\"slow\"],\"results\":[{\"bytes\":1024,\"busbw_gbps\":9.0}],"
         "\"threshold\":{\"at_bytes\":1024},\"transport\":{\"summary\":\"NET/Socket x2\"}}'; exit 1\n"
         "fi\n"
         "echo '{\"passed\":true,\"failures\":[],\"results\":[{\"bytes\":1024,\"busbw_gbps\":50.0}],"
         "\"threshold\":{\"at_bytes\":1024},\"transport\":{\"summary\":\"NET/IB x2\"}}'\n");
  const int port = 30000 + static_cast<int>(::getpid() % 9000) * 3;
  std::string command = "(";
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    ::mkdir((dir_ + "/p" + n).c_str(), 0755);
    command += "(HKIM_NODE_NAME=gpu-" + n + " HKIM_POD_NAME=train-" + n +
               " HKIM_REPLICAS=4 MASTER_ADDR=127.0.0.1 HKIM_RENDEZVOUS_PORT=" + std::to_string(port) +
               " HKIM_POD_REVISION=rev-a HKIM_HEALTH_ASSEMBLE_TIMEOUT_S=30 HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=45 HKIM_NCCL_CHECK_AT_BYTES=1024"
               " HKIM_HEALTH_PAIR_TIMEOUT_S=20 HKIM_HEALTH_POLICY=fail HKIM_HEALTH_READY_FILE=" + dir_ +
               "/p" + n + "/ready HKIM_HEALTH_TERMINATION_LOG=" + dir_ + "/p" + n + "/term " +
               HKIM_HEALTH_BIN + " pod --bin-dir " + bin_ + " -- touch " + dir_ + "/p" + n +
               "/exec > " + dir_ + "/p" + n + "/out 2>" + dir_ + "/p" + n + "/log; echo $? > " +
               dir_ + "/p" + n + "/rc) & ";
  }
  command += "wait)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  for (int i = 0; i < 4; ++i) {
    const std::string p = dir_ + "/p" + std::to_string(i);
    const std::vector<json> summaries = SummaryLines(ReadText(p + "/out"));
    ASSERT_EQ(summaries.size(), 1u) << ReadText(p + "/log");
    EXPECT_EQ(summaries[0]["mode"], "pod");
    ASSERT_EQ(summaries[0]["suspects"].size(), 1u) << summaries[0].dump();
    EXPECT_EQ(summaries[0]["suspects"][0]["node"], "gpu-2");
    EXPECT_EQ(ReadText(p + "/rc"), "1\n");
    EXPECT_FALSE(Exists(p + "/ready"));
    EXPECT_FALSE(Exists(p + "/exec"));
    EXPECT_EQ(ReadText(p + "/term"), "node gpu-2: 9.0 GB/s vs >= 45 expected (NET/Socket x2)\n");
  }
}

// A check's record of unexpected shapes (strings for numbers, a number for the transport) is
// read with those fields absent, never an abort of hkim-health: its exit status 1 is the verdict.
TEST_F(HealthProgram, ARecordOfTheWrongShapeIsReportedNotAnAbort) {
  Script(bin_ + "/hkim-nccl-check",
         "echo '{\"passed\":false,\"failures\":[1],\"results\":[{\"bytes\":\"x\",\"busbw_gbps\":\"fast\"}],"
         "\"threshold\":{\"at_bytes\":\"1G\",\"min_busbw_gbps\":\"x\"},\"transport\":{\"summary\":7}}'\nexit 1\n");
  const ProgramRun run = RunHealth("HKIM_NODE_NAME=gpu-1 HKIM_HEALTH_POLICY=fail " +
                                   std::string(HKIM_HEALTH_BIN) + " gate --bin-dir " + bin_ +
                                   " 2>/dev/null");
  EXPECT_EQ(run.status, 1);
  const std::vector<json> summaries = SummaryLines(run.out);
  ASSERT_EQ(summaries.size(), 1u) << run.out;
  EXPECT_EQ(summaries[0]["checks"][1]["status"], "fail");
}

// A failure whose reason crosses the annotation's 1000 bytes inside "é": the node is marked
// (hkim-health aborted here before), the reason cut before the character.
TEST_F(HealthProgram, AReasonCutThroughAMultiByteCharacterStillMarksTheNode) {
  const std::string failure = std::string(987, 'a') + "\xc3\xa9\xc3\xa9";  // "nccl-local: " is 12
  Script(bin_ + "/hkim-nccl-check",
         "echo '{\"passed\":false,\"failures\":[\"" + failure + "\"]}'\nexit 1\n");
  FakeApiServer server(sa_, "tok", [&](const RecordedRequest& request) {
    if (request.method == "PATCH") return CannedResponse{200, "{}"};
    if (request.target == "/api/v1/nodes/gpu-1") return CannedResponse{200, Node("gpu-1", "8").dump()};
    return CannedResponse{200, json{{"items", {Node("gpu-1", "8")}}}.dump()};
  });
  const ProgramRun run = RunHealth(Command(server.port()));
  EXPECT_EQ(run.status, 0) << ReadText(dir_ + "/stderr");
  EXPECT_EQ(SummaryLines(run.out).back()["mark"], "label fail + taint");
  const json patch = json::parse(server.requests().back().body);
  EXPECT_EQ(patch["metadata"]["annotations"]["hkimgen.io/nccl-health-reason"],
            "nccl-local: " + std::string(987, 'a'));
}

}  // namespace
}  // namespace hkim::health
