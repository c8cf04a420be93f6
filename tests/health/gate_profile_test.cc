// A deliberately broken profile (a gate threshold above what the fabric gives) fails the gate,
// with the numbers in the Job's log: the gate Job is rendered from the shipped profile through
// the whole generator pipeline, its container environment is taken from the rendered YAML, and
// hkim-health gate runs with exactly that environment. The GPU part is a fake hkim-nccl-check
// that measures "41.20 GB/s" and applies the thresholds it is given the way the real one does
// (the real one on a GPU: bench/health/device_run.sh).
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

// The gate Job's container env (plain values; fieldRef ones get test values) as NAME=VALUE.
std::vector<std::string> GateEnv(const std::vector<std::string>& set) {
  DiagnosticSink sink;
  LayerInputs inputs{(fs::path(HKIM_SOURCE_DIR) / "profiles/oke-a100.yaml").string(), {}, set};
  auto bundle = RenderProfileLayers(inputs, sink);
  EXPECT_TRUE(bundle.has_value());
  std::vector<std::string> env;
  if (!bundle) return env;
  for (const RenderedFile& file : bundle->files) {
    // The bundle's README.md is for people, not a manifest.
    if (file.file_name.size() < 5 || file.file_name.compare(file.file_name.size() - 5, 5, ".yaml"))
      continue;
    YAML::Node doc = YAML::Load(file.content);
    if (doc["kind"].as<std::string>() != "Job") continue;
    for (const YAML::Node& e : doc["spec"]["template"]["spec"]["containers"][0]["env"]) {
      const std::string name = e["name"].as<std::string>();
      std::string value = e["value"] ? e["value"].as<std::string>() : "";
      if (name == "HKIM_NODE_NAME") value = "gpu-a100-3";
      if (name == "HKIM_JOB_COMPLETION_INDEX") value = "0";
      const size_t ref = value.find("$(HKIM_JOB_COMPLETION_INDEX)");
      if (ref != std::string::npos) value.replace(ref, 28, "0");
      env.push_back(name + "=" + value);
    }
  }
  return env;
}

struct Outcome {
  int status = -1;
  std::string out, err;
};

Outcome RunGate(const std::vector<std::string>& env, const fs::path& bin) {
  // One pod of the gate's two runs here: no partner for the localization (tests/health/
  // localize_test.cc covers it).
  std::string command = "env -i PATH=/usr/bin:/bin HKIM_HEALTH_LOCALIZE=off";
  for (const std::string& e : env) command += " '" + e + "'";
  const fs::path err = bin / "stderr";
  command += std::string(" ") + HKIM_HEALTH_BIN + " gate --bin-dir " + bin.string() + " 2>" + err.string();
  const test_support::CommandRun run = test_support::RunCapturing(command);
  return {run.status, run.out, test_support::ReadFile(err)};
}

class GateProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = fs::path(::testing::TempDir()) / ("gate-profile-" + std::to_string(::getpid()));
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
  fs::path bin_;
};

TEST_F(GateProfile, ThresholdBelowTheFabricPasses) {
  const Outcome outcome = RunGate(
      GateEnv({"fabric_health.gate.per_rail=false", "fabric_health.gate.min_busbw_gbps=30"}), bin_);
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_NE(outcome.err.find("gate on gpu-a100-3: PASS"), std::string::npos) << outcome.err;
}

TEST_F(GateProfile, ThresholdAboveTheFabricFailsTheGateWithTheNumbersInTheLog) {
  const Outcome outcome = RunGate(
      GateEnv({"fabric_health.gate.per_rail=false", "fabric_health.gate.min_busbw_gbps=400"}), bin_);
  EXPECT_EQ(outcome.status, 1) << outcome.err;  // the Job fails, so the sync fails
  // The Job log: the check's table, the failure with the numbers, the verdict, the summary.
  EXPECT_NE(outcome.err.find("busbw 41.20 GB/s is below the minimum 400 GB/s"), std::string::npos)
      << outcome.err;
  EXPECT_NE(outcome.err.find("scope job, 2 pods, transport NET/IB required"), std::string::npos)
      << outcome.err;
  EXPECT_NE(outcome.err.find("hkim-health: gate on gpu-a100-3: FAIL"), std::string::npos);
  EXPECT_NE(outcome.out.find("HKIM_HEALTH_SUMMARY "), std::string::npos);
  EXPECT_NE(outcome.out.find("below the minimum 400 GB/s"), std::string::npos) << outcome.out;
}

TEST_F(GateProfile, WarnModeLogsTheFailureAndLetsTheSyncGoOn) {
  const Outcome outcome = RunGate(GateEnv({"fabric_health.gate.per_rail=false",
                                           "fabric_health.gate.min_busbw_gbps=400",
                                           "fabric_health.gate.mode=warn"}),
                                  bin_);
  EXPECT_EQ(outcome.status, 0);
  EXPECT_NE(outcome.err.find("FAIL (policy warn: the sync goes on)"), std::string::npos) << outcome.err;
}

}  // namespace
}  // namespace hkim
