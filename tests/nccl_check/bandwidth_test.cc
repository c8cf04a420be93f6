#include "bandwidth.h"

#include <gtest/gtest.h>

namespace hkim::nccl_check {
namespace {

TEST(Bandwidth, AlgorithmBandwidthIsBytesOverTimeInGBps) {
  EXPECT_DOUBLE_EQ(AlgorithmBandwidthGBps(1'000'000'000, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(AlgorithmBandwidthGBps(1 << 30, 1.0), 1.073741824);
  EXPECT_EQ(AlgorithmBandwidthGBps(100, 0), 0);
}

TEST(Bandwidth, AllReduceBusFactorIsTwoTimesNMinusOneOverN) {
  EXPECT_EQ(AllReduceBusFactor(1), 0);
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(2), 1.0);
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(4), 1.5);
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(8), 1.75);
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(16), 1.875);
}

TEST(Bandwidth, BusBandwidthScalesAlgorithmBandwidth) {
  EXPECT_DOUBLE_EQ(AllReduceBusBandwidthGBps(100, 8), 175);
  EXPECT_EQ(AllReduceBusBandwidthGBps(100, 1), 0);
}

// The nccl-tests row "1073741824 268435456 float sum -1 6553.6 163.84 286.72" for 8 ranks.
TEST(Bandwidth, SetTimesMatchesAnNcclTestsRow) {
  SizeResult result;
  result.bytes = 1073741824;
  result.iterations = 20;
  SetTimes(result, 20 * 6553.6e-6, 8);
  EXPECT_NEAR(result.time_us, 6553.6, 1e-6);
  EXPECT_NEAR(result.algbw_gbps, 163.84, 0.01);
  EXPECT_NEAR(result.busbw_gbps, 286.72, 0.01);
}

}  // namespace
}  // namespace hkim::nccl_check
