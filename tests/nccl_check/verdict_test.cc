#include "verdict.h"

#include <gtest/gtest.h>

namespace hkim::nccl_check {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

SizeResult Row(std::uint64_t bytes, double busbw, std::uint64_t wrong = 0) {
  SizeResult r;
  r.bytes = bytes;
  r.busbw_gbps = busbw;
  r.wrong_elements = wrong;
  r.first_wrong_index = wrong ? 7 : 0;
  return r;
}

CheckConfig Thresholds(double min_busbw, RequiredTransport transport) {
  CheckConfig config;
  config.min_busbw_gbps = min_busbw;
  config.at_bytes = kGiB;
  config.max_bytes = kGiB;
  config.transport = transport;
  return config;
}

const TransportReport kIb =
    ParseNcclLog("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n");
const TransportReport kSocket =
    ParseNcclLog("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0\n");
const TransportReport kMixed = ParseNcclLog(
    "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
    "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/Socket/0\n");
const TransportReport kNvlink =
    ParseNcclLog("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n");

TEST(Decide, PassesWhenBandwidthAndTransportMeetTheProfile) {
  const Verdict v = Decide(Thresholds(150, RequiredTransport::kNetIb), {Row(kGiB, 194.6)}, 16, kIb);
  EXPECT_TRUE(v.passed);
  EXPECT_TRUE(v.failures.empty());
}

TEST(Decide, FailsBelowTheMinimumWithTheNumbers) {
  const Verdict v = Decide(Thresholds(150, RequiredTransport::kAny), {Row(kGiB, 0.98)}, 16, kIb);
  EXPECT_FALSE(v.passed);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_EQ(v.failures[0],
            "bus bandwidth 0.98 GB/s at 1 GiB is below the minimum 150.00 GB/s (16 ranks, "
            "NET/IB/0/GDRDMA x1)");
}

TEST(Decide, FailsASilentTcpFallbackEvenWithPlausibleBandwidth) {
  const Verdict v = Decide(Thresholds(50, RequiredTransport::kNetIb), {Row(kGiB, 83)}, 16, kSocket);
  EXPECT_FALSE(v.passed);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_EQ(v.failures[0], "transport NET/IB is required but NCCL used NET/Socket/0 x1");
}

TEST(Decide, FailsNetIbWhenSomeConnectionsFellBackToSockets) {
  EXPECT_FALSE(
      Decide(Thresholds(0, RequiredTransport::kNetIb), {Row(kGiB, 90)}, 16, kMixed).passed);
}

// nccl.gpudirect names a mode: the gate requires GPUDirect RDMA on every IB connection; NET/IB
// without it stages every transfer through host memory.
TEST(Decide, GpuDirectRequiredFailsIbConnectionsWithoutGdrdma) {
  const TransportReport staged = ParseNcclLog(
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IB/1\n");
  EXPECT_TRUE(Decide(Thresholds(0, RequiredTransport::kNetIbGdr), {Row(kGiB, 90)}, 16, kIb).passed);
  EXPECT_TRUE(Decide(Thresholds(0, RequiredTransport::kNetIb), {Row(kGiB, 90)}, 16, staged).passed);
  const Verdict v = Decide(Thresholds(0, RequiredTransport::kNetIbGdr), {Row(kGiB, 90)}, 16, staged);
  EXPECT_FALSE(v.passed);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_EQ(v.failures[0].rfind("transport NET/IB/GDRDMA is required but NCCL used ", 0), 0u) << v.failures[0];
  EXPECT_FALSE(Decide(Thresholds(0, RequiredTransport::kNetIbGdr), {Row(kGiB, 90)}, 16, kMixed).passed);
}

TEST(Decide, FailsAnyWrongElement) {
  const Verdict v = Decide(Thresholds(0, RequiredTransport::kAny),
                           {Row(1 << 20, 10, 3), Row(kGiB, 300)}, 2, kNvlink);
  EXPECT_FALSE(v.passed);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_EQ(v.failures[0],
            "1 MiB: 3 of 262144 result elements differ from the exact sum (first at element 7)");
}

TEST(Decide, FailsWhenTheThresholdSizeWasNotMeasured) {
  const Verdict v =
      Decide(Thresholds(100, RequiredTransport::kAny), {Row(1 << 20, 300)}, 2, kNvlink);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.failures[0], "no measurement at 1 GiB, where the minimum bus bandwidth applies");
}

TEST(Decide, UnknownTransportFailsOnlyWhenOneIsRequired) {
  const TransportReport none;
  EXPECT_TRUE(Decide(Thresholds(0, RequiredTransport::kAny), {Row(kGiB, 300)}, 2, none).passed);
  EXPECT_FALSE(Decide(Thresholds(0, RequiredTransport::kP2P), {Row(kGiB, 300)}, 2, none).passed);
}

TEST(Decide, OneRankSkipsBandwidthAndTransportWithANote) {
  const Verdict v = Decide(Thresholds(150, RequiredTransport::kNetIb), {Row(kGiB, 0)}, 1, {});
  EXPECT_TRUE(v.passed);
  ASSERT_EQ(v.notes.size(), 1u);
}

// Found on the GPU machine (one H100): a one-pod gate with a threshold of 100000 GB/s passed.
TEST(Decide, OneRankInJobScopeWithAThresholdFailsBecauseNothingWasMeasured) {
  CheckConfig config = Thresholds(150, RequiredTransport::kAny);
  config.scope = Scope::kJob;
  const Verdict v = Decide(config, {Row(kGiB, 0)}, 1, {});
  EXPECT_FALSE(v.passed);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_NE(v.failures[0].find("at least two ranks"), std::string::npos);
  config.min_busbw_gbps = 0;
  EXPECT_TRUE(Decide(config, {Row(kGiB, 0)}, 1, {}).passed);  // no threshold: nothing to prove
  config.transport = RequiredTransport::kNetIb;
  EXPECT_FALSE(Decide(config, {Row(kGiB, 0)}, 1, {}).passed);
}

TEST(RequiredTransportSatisfied, FollowsTheDocumentedRules) {
  EXPECT_TRUE(RequiredTransportSatisfied(RequiredTransport::kP2P, kNvlink));
  EXPECT_FALSE(RequiredTransportSatisfied(RequiredTransport::kP2P, kIb));
  EXPECT_TRUE(RequiredTransportSatisfied(RequiredTransport::kNetSocket, kSocket));
  EXPECT_FALSE(RequiredTransportSatisfied(RequiredTransport::kNetSocket, kIb));
  EXPECT_TRUE(RequiredTransportSatisfied(RequiredTransport::kAny, kSocket));
}

}  // namespace
}  // namespace hkim::nccl_check
