// The in-pod fabric check driven by the shipped profile: the StatefulSet is rendered from
// profiles/oke-a100.yaml through the whole generator pipeline, and hkim-health runs with exactly
// its container's command (after `hkim-wrapper --`) and environment (the NCCL env ConfigMap's
// envFrom, then the container env, which wins; downward-API values get test values). The GPU
// part is a fake hkim-nccl-check that measures "41.20 GB/s" and applies the thresholds it is
// given the way the real one does (the real one on a GPU: bench/health/device_run.sh).
//
// The contract (docs/CONTRACTS.md, "Fabric health"): `hkim-health pod -- <command>` runs the
// check, then execs the command when it passed (or under policy warn); on a failure under policy
// fail it exits 1 without starting the command and writes the reason to the termination log;
// `hkim-health ready` exits 0 once the check passed and the command was started. A build of
// hkim-health without the pod mode (it answers "mode 'pod' is unknown") skips these tests, and
// nothing else does.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "pipeline/pipeline.h"
#include "test_support.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;

// What `hkimgen render` gives the workload's main container: its command and its environment as
// NAME=VALUE, in the order Kubernetes builds it (envFrom first, env after).
struct PodRun {
  std::vector<std::string> command;
  std::vector<std::string> env;
};

PodRun RenderedPod(std::vector<std::string> set, const fs::path& script) {
  // One pod: its revision's whole set, so the check assembles at once without a peer.
  set.push_back("workload.replicas=1");
  set.push_back("workload.command={/bin/sh," + script.string() + "}");
  DiagnosticSink sink;
  LayerInputs inputs{(fs::path(HKIM_SOURCE_DIR) / "profiles/oke-a100.yaml").string(), {}, set};
  auto bundle = RenderProfileLayers(inputs, sink);
  EXPECT_TRUE(bundle.has_value());
  PodRun pod;
  if (!bundle) return pod;
  std::map<std::string, YAML::Node> configmaps;
  YAML::Node set_doc;
  for (const RenderedFile& file : bundle->files) {
    // The bundle's README.md is for people, not a manifest.
    if (file.file_name.size() < 5 || file.file_name.compare(file.file_name.size() - 5, 5, ".yaml"))
      continue;
    if (file.file_name.rfind("workload/", 0) != 0) continue;
    YAML::Node doc = YAML::Load(file.content);
    const std::string kind = doc["kind"].as<std::string>();
    if (kind == "ConfigMap") configmaps[doc["metadata"]["name"].as<std::string>()] = doc;
    if (kind == "StatefulSet") set_doc = doc;
  }
  EXPECT_TRUE(set_doc.IsDefined());
  if (!set_doc.IsDefined()) return pod;
  const YAML::Node c = set_doc["spec"]["template"]["spec"]["containers"][0];
  for (const YAML::Node& from : c["envFrom"]) {
    const YAML::Node data = configmaps[from["configMapRef"]["name"].as<std::string>()]["data"];
    for (const auto& item : data)
      pod.env.push_back(item.first.as<std::string>() + "=" + item.second.as<std::string>());
  }
  const std::string set_name = set_doc["metadata"]["name"].as<std::string>();
  for (const YAML::Node& e : c["env"]) {
    const std::string name = e["name"].as<std::string>();
    std::string value = e["value"] ? e["value"].as<std::string>() : "";
    if (name == "HKIM_NODE_NAME") value = "gpu-a100-3";
    if (name == "HKIM_POD_NAME") value = set_name + "-0";
    if (name == "HKIM_POD_REVISION") value = set_name + "-5d8f7c9b6";
    pod.env.push_back(name + "=" + value);
  }
  pod.command = c["command"].as<std::vector<std::string>>();
  return pod;
}

struct Outcome {
  int status = -1;
  std::string out, err, termination;
  bool unknown_mode = false;
};

std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Runs the pod's command from hkim-health on (the wrapper before it is the pod's, not under test)
// with the pod's env, the test's hkim-health, and the fake programs in `bin`.
Outcome RunPod(const PodRun& pod, const fs::path& bin) {
  Outcome outcome;
  size_t health = 0;
  while (health < pod.command.size() && pod.command[health].find("hkim-health") == std::string::npos)
    ++health;
  EXPECT_LT(health, pod.command.size()) << "the StatefulSet's command runs no hkim-health";
  if (health >= pod.command.size()) return outcome;
  const fs::path termination = bin / "termination-log";
  std::ofstream(termination).close();
  std::string command = "env -i PATH=/usr/bin:/bin HKIM_HEALTH_LOCALIZE=off";
  command += " HKIM_HEALTH_TERMINATION_LOG=" + Quoted(termination.string());
  // The pod's /opt/hkim/nccl is an emptyDir; here the ready file goes beside the fakes.
  command += " HKIM_HEALTH_READY_FILE=" + Quoted((bin / "fabric-ready").string());
  command += std::string(" HKIM_HEALTH_BIN=") + HKIM_HEALTH_BIN;
  for (const std::string& e : pod.env) command += " " + Quoted(e);
  command += std::string(" ") + HKIM_HEALTH_BIN + " --bin-dir " + Quoted(bin.string());
  for (size_t i = health + 1; i < pod.command.size(); ++i) command += " " + Quoted(pod.command[i]);
  const fs::path err = bin / "stderr";
  command += " 2>" + Quoted(err.string());
  const test_support::CommandRun run = test_support::RunCapturing(command);
  outcome.status = run.status;
  outcome.out = run.out;
  outcome.err = test_support::ReadFile(err);
  outcome.termination = test_support::ReadFile(termination);
  outcome.unknown_mode = outcome.status == 2 &&
                         outcome.err.find("mode 'pod' is unknown") != std::string::npos;
  return outcome;
}

class PodCheckProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = fs::path(::testing::TempDir()) / ("pod-check-profile-" + std::to_string(::getpid()));
    fs::create_directories(bin_);
    std::ofstream(bin_ / "hkim-wrapper") << "#!/bin/sh\necho 'result: RDMA fully usable'\n";
    // Measures 41.20 GB/s at the threshold size over NET/IB; judges like hkim-nccl-check.
    std::ofstream(bin_ / "hkim-nccl-check")
        << "#!/bin/sh\n"
           "min=$HKIM_NCCL_CHECK_MIN_BUSBW_GBPS at=$HKIM_NCCL_CHECK_AT_BYTES\n"
           "echo \"# scope $HKIM_NCCL_CHECK_SCOPE, $HKIM_REPLICAS pods, transport $HKIM_NCCL_CHECK_TRANSPORT required\" >&2\n"
           "echo \"  $at bytes  busbw 41.20 GB/s\" >&2\n"
           "if awk \"BEGIN{exit !(41.2 < $min)}\"; then\n"
           "  f=\"\\\"busbw 41.20 GB/s at $at bytes is below the minimum $min GB/s\\\"\"; rc=1\n"
           "  echo \"# FAIL: busbw 41.20 GB/s is below the minimum $min GB/s\" >&2\n"
           "else f=''; rc=0; fi\n"
           "echo \"{\\\"passed\\\": $([ $rc = 0 ] && echo true || echo false), \\\"failures\\\": [$f],"
           " \\\"threshold\\\": {\\\"at_bytes\\\": $at, \\\"min_busbw_gbps\\\": $min},"
           " \\\"results\\\": [{\\\"bytes\\\": $at, \\\"busbw_gbps\\\": 41.2}],"
           " \\\"transport\\\": {\\\"used\\\": [\\\"NET/IB\\\"], \\\"summary\\\": \\\"NET/IB/0/GDRDMA x16\\\"}}\"\n"
           "exit $rc\n";
    fs::permissions(bin_ / "hkim-wrapper", fs::perms::owner_all);
    fs::permissions(bin_ / "hkim-nccl-check", fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(bin_); }

  // The pod's command is `sh <bin>/command.sh`: it asks hkim-health ready from inside the pod
  // when `ready` is set, then says it ran.
  Outcome Run(const std::vector<std::string>& set, bool ready = true) {
    const fs::path script = bin_ / "command.sh";
    std::ofstream(script) << (ready ? "\"$HKIM_HEALTH_BIN\" ready || exit 3\n" : "")
                          << "echo the-command-ran\n";
    return RunPod(RenderedPod(set, script), bin_);
  }

  fs::path bin_;
};

// Whether this hkim-health knows the pod mode: `hkim-health pod` alone answers "mode 'pod' is
// unknown" (exit 2) from a build without it; any other answer means it has it, and the tests run.
bool PodModeUnknown(std::string* answer) {
  const test_support::CommandRun run = test_support::RunCapturing(
      std::string("env -i PATH=/usr/bin:/bin timeout 10 ") + HKIM_HEALTH_BIN + " pod </dev/null 2>&1");
  *answer = run.out;
  return run.status == 2 && run.out.find("mode 'pod' is unknown") != std::string::npos;
}

#define SKIP_WITHOUT_POD_MODE(outcome)                                                       \
  if (std::string answer; (outcome).unknown_mode || PodModeUnknown(&answer))                 \
  GTEST_SKIP() << "this hkim-health has no pod mode (the in-pod check's program side): "     \
               << answer << (outcome).err

TEST_F(PodCheckProfile, ThresholdBelowTheFabricPassesAndStartsTheCommand) {
  const Outcome outcome =
      Run({"fabric_health.gate.per_rail=false", "fabric_health.gate.min_busbw_gbps=30"});
  SKIP_WITHOUT_POD_MODE(outcome);
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  // The command ran after the check, and hkim-health ready said so from inside it.
  EXPECT_NE(outcome.out.find("the-command-ran"), std::string::npos) << outcome.out << outcome.err;
  EXPECT_NE(outcome.err.find("scope job, 1 pods, transport NET/IB required"), std::string::npos)
      << outcome.err;
}

TEST_F(PodCheckProfile, ThresholdAboveTheFabricEndsThePodWithoutTheCommand) {
  const Outcome outcome =
      Run({"fabric_health.gate.per_rail=false", "fabric_health.gate.min_busbw_gbps=400"});
  SKIP_WITHOUT_POD_MODE(outcome);
  EXPECT_EQ(outcome.status, 1) << outcome.err;  // the pod fails, never Ready
  EXPECT_EQ(outcome.out.find("the-command-ran"), std::string::npos) << outcome.out;
  // The pod's log: the check's table, the failure with the numbers, the summary.
  EXPECT_NE(outcome.err.find("busbw 41.20 GB/s is below the minimum 400 GB/s"), std::string::npos)
      << outcome.err;
  EXPECT_NE(outcome.out.find("HKIM_HEALTH_SUMMARY "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("below the minimum 400 GB/s"), std::string::npos) << outcome.out;
  EXPECT_FALSE(outcome.termination.empty()) << "no termination message";
}

TEST_F(PodCheckProfile, WarnModeLogsTheFailureAndStartsTheCommandAnyway) {
  const Outcome outcome = Run({"fabric_health.gate.per_rail=false",
                               "fabric_health.gate.min_busbw_gbps=400",
                               "fabric_health.gate.mode=warn"},
                              /*ready=*/false);
  SKIP_WITHOUT_POD_MODE(outcome);
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_NE(outcome.err.find("below the minimum 400 GB/s"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.out.find("the-command-ran"), std::string::npos) << outcome.out;
}

}  // namespace
}  // namespace hkim
