#include "check_config.h"

#include <gtest/gtest.h>

#include <map>

namespace hkim::nccl_check {
namespace {

EnvLookup Env(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ReadEnvironment, ReadsTheWholeContract) {
  CheckConfig config;
  std::vector<ConfigError> errors;
  ReadEnvironment(Env({{"HKIM_NCCL_CHECK", "warn"},
                       {"HKIM_NCCL_CHECK_SCOPE", "job"},
                       {"HKIM_NCCL_CHECK_MIN_BUSBW_GBPS", "150.5"},
                       {"HKIM_NCCL_CHECK_AT_BYTES", "268435456"},
                       {"HKIM_NCCL_CHECK_MAX_BYTES", "1G"},
                       {"HKIM_NCCL_CHECK_TRANSPORT", "NET/IB"},
                       {"HKIM_REPLICAS", "4"},
                       {"HKIM_POD_NAME", "train-llama-3"},
                       {"MASTER_ADDR", "train-llama-0.train.ml.svc.cluster.local"},
                       {"HKIM_RENDEZVOUS_PORT", "29651"}}),
                  config, errors);
  FinishConfig(config, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(config.policy, Policy::kWarn);
  EXPECT_EQ(config.scope, Scope::kJob);
  EXPECT_DOUBLE_EQ(config.min_busbw_gbps, 150.5);
  EXPECT_EQ(config.at_bytes, 268435456u);
  EXPECT_EQ(config.max_bytes, std::uint64_t{1} << 30);
  EXPECT_EQ(config.transport, RequiredTransport::kNetIb);
  EXPECT_EQ(config.replicas, 4);
  EXPECT_EQ(config.ordinal, 3);
  EXPECT_EQ(config.rendezvous_port, 29651);
}

TEST(ReadEnvironment, DefaultsWhenNothingIsSet) {
  CheckConfig config;
  std::vector<ConfigError> errors;
  ReadEnvironment(Env({}), config, errors);
  FinishConfig(config, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(config.scope, Scope::kLocal);
  EXPECT_EQ(config.at_bytes, config.max_bytes);
  EXPECT_EQ(config.rendezvous_port, kDefaultRendezvousPort);
  EXPECT_EQ(config.transport, RequiredTransport::kAny);
}

TEST(ReadEnvironment, ReportsEachBadValueWithItsFix) {
  CheckConfig config;
  std::vector<ConfigError> errors;
  ReadEnvironment(Env({{"HKIM_NCCL_CHECK_MIN_BUSBW_GBPS", "fast"},
                       {"HKIM_NCCL_CHECK_TRANSPORT", "RoCE"},
                       {"HKIM_RENDEZVOUS_PORT", "70000"}}),
                  config, errors);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(FormatConfigError(errors[0]),
            "hkim-nccl-check: error: HKIM_NCCL_CHECK_MIN_BUSBW_GBPS='fast' is not a non-negative "
            "number\nfix: give the minimum bus bandwidth in GB/s (1e9 B/s), e.g. 150\n");
  EXPECT_EQ(errors[1].message,
            "HKIM_NCCL_CHECK_TRANSPORT='RoCE' is not one of any, NET/IB, NET/IB/GDRDMA, NET/Socket, P2P");
  EXPECT_EQ(errors[2].name, "HKIM_RENDEZVOUS_PORT");
}

TEST(FinishConfig, JobScopeNeedsAnOrdinalBelowReplicasAndMasterAddr) {
  CheckConfig config;
  std::vector<ConfigError> errors;
  ReadEnvironment(
      Env({{"HKIM_NCCL_CHECK_SCOPE", "job"}, {"HKIM_REPLICAS", "2"}, {"HKIM_POD_NAME", "train-2"}}),
      config, errors);
  FinishConfig(config, errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].message, "pod ordinal 2 (from 'train-2') is not below HKIM_REPLICAS=2");
  EXPECT_EQ(errors[1].name, "MASTER_ADDR");
}

TEST(FinishConfig, RejectsAThresholdSizeAboveTheLargestSize) {
  CheckConfig config;
  std::vector<ConfigError> errors;
  ReadEnvironment(Env({{"HKIM_NCCL_CHECK_AT_BYTES", "2G"}, {"HKIM_NCCL_CHECK_MAX_BYTES", "1G"}}),
                  config, errors);
  FinishConfig(config, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].name, "HKIM_NCCL_CHECK_AT_BYTES");
}

TEST(PodOrdinal, IsTheNumericSuffix) {
  EXPECT_EQ(PodOrdinal("train-12"), 12);
  EXPECT_EQ(PodOrdinal("a-b-0"), 0);
  EXPECT_FALSE(PodOrdinal("train"));
  EXPECT_FALSE(PodOrdinal("train-"));
  EXPECT_FALSE(PodOrdinal("train-1a"));
  EXPECT_EQ(PodSet("a-b-0"), "a-b");
  EXPECT_EQ(PodSet("train"), "train");
}

TEST(IterationsFor, DependsOnlyOnTheSizeWithinBounds) {
  EXPECT_EQ(IterationsFor(std::uint64_t{1} << 20), 100);
  EXPECT_EQ(IterationsFor(std::uint64_t{256} << 20), 16);
  EXPECT_EQ(IterationsFor(std::uint64_t{1} << 30), 10);
  EXPECT_EQ(IterationsFor(std::uint64_t{8} << 30), 10);
}

TEST(PlanIterations, KeepsTheBySizeCountOnAFastLink) {
  // 2x H200 over NVLink: 512 MiB took 1.7 ms, so 1 GiB (predicted 3.4 ms) keeps its 10 calls.
  EXPECT_EQ(PlanIterations(std::uint64_t{1} << 30, std::uint64_t{512} << 20, 1.7e-3, 0.25), 10);
  EXPECT_EQ(PlanIterations(std::uint64_t{1} << 20, 0, 0, 0.25), 100);
}

TEST(PlanIterations, CutsASlowLinkToTheBudgetButRunsAtLeastOnce) {
  // TCP at ~3 GB/s: 32 MiB took 11.6 ms, so 64 MiB is predicted at 23.3 ms -> 10 calls in 0.25 s.
  EXPECT_EQ(PlanIterations(std::uint64_t{64} << 20, std::uint64_t{32} << 20, 11.64e-3, 0.25), 10);
  // 1 GiB predicted at 0.37 s: one call.
  EXPECT_EQ(PlanIterations(std::uint64_t{1} << 30, std::uint64_t{512} << 20, 0.186, 0.25), 1);
}

}  // namespace
}  // namespace hkim::nccl_check
