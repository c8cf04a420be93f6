#include "check_outcomes.h"

#include <gtest/gtest.h>

namespace hkim::health {
namespace {

ChildResult Child(int status, std::string output) {
  ChildResult child;
  child.started = true;
  child.status = status;
  child.output = std::move(output);
  return child;
}

// A record as hkim-nccl-check --json writes it (trimmed to the keys the summary reads).
const char* kFailedRecord = R"({
  "failures": ["busbw 41.20 GB/s at 1G is below the minimum 300.00 GB/s"],
  "passed": false,
  "results": [{"bytes": 1048576, "busbw_gbps": 3.1}, {"bytes": 1073741824, "busbw_gbps": 41.2}],
  "threshold": {"at_bytes": 1073741824, "min_busbw_gbps": 300.0, "transport": "NET/IB"},
  "transport": {"summary": "NET/IB/0/GDRDMA x16 [mlx5_0:1/RoCE]"}
})";

TEST(CheckOutcomes, FailedNcclRecordKeepsNumbersAndFailures) {
  const CheckOutcome outcome = NcclOutcome("nccl-job", Child(1, kFailedRecord));
  EXPECT_EQ(outcome.status, "fail");
  EXPECT_EQ(outcome.detail, "busbw 41.20 GB/s (min 300.00), NET/IB/0/GDRDMA x16 [mlx5_0:1/RoCE]");
  EXPECT_DOUBLE_EQ(outcome.numbers["busbw_gbps"].get<double>(), 41.2);
  ASSERT_EQ(outcome.failures.size(), 1u);
  EXPECT_NE(outcome.failures[0].find("below the minimum"), std::string::npos);
  EXPECT_FALSE(outcome.fixes.empty());
}

TEST(CheckOutcomes, NoGpuIsAnError) {
  EXPECT_EQ(NcclOutcome("nccl-local", Child(3, "")).status, "error");
}

TEST(CheckOutcomes, PassWithoutRecordIsAnError) {
  EXPECT_EQ(NcclOutcome("nccl-local", Child(0, "not json")).status, "error");
}

TEST(CheckOutcomes, TimedOutChildIsAnErrorWithTheReason) {
  ChildResult child = Child(137, "");
  child.timed_out = true;
  child.error = "hkim-nccl-check did not finish within 900 s";
  const CheckOutcome outcome = NcclOutcome("nccl-job", child);
  EXPECT_EQ(outcome.status, "error");
  EXPECT_EQ(outcome.failures[0], child.error);
}

TEST(CheckOutcomes, PerRailRecordCountsBadRails) {
  const CheckOutcome outcome = NcclOutcome("per-rail", Child(1, R"({"failures": ["rail mlx5_1 down"],
    "rails": [{"device": "mlx5_0", "status": "pass"}, {"device": "mlx5_1", "status": "down"}]})"));
  EXPECT_EQ(outcome.detail, "2 rail(s), 1 bad");
  EXPECT_EQ(outcome.numbers["rails"].size(), 2u);
}

TEST(CheckOutcomes, DiagnosisErrorsAndFixesAreCollected) {
  const CheckOutcome outcome = DiagnosisOutcome(Child(1,
      "hkim-wrapper: rdma, 2 device(s)\n"
      "mlx5_3: error: port 1 is DOWN [device.port-down]\n"
      "  fix: check the cable and the switch port\n"
      "memlock: warning: low [memlock.low]\n"
      "  fix: not an error fix\n"
      "result: RDMA NOT fully usable (rdma, 1 problem(s))\n"));
  EXPECT_EQ(outcome.status, "fail");
  EXPECT_EQ(outcome.failures, std::vector<std::string>{"mlx5_3: error: port 1 is DOWN [device.port-down]"});
  EXPECT_EQ(outcome.fixes, std::vector<std::string>{"check the cable and the switch port"});
  EXPECT_EQ(outcome.detail, "RDMA NOT fully usable (rdma, 1 problem(s))");
}

TEST(CheckOutcomes, InventoryOutcomeCarriesTheNumbers) {
  InventoryResult inventory;
  inventory.passed = false;
  inventory.failures = {"node a registers 7 of 8 GPUs (nvidia.com/gpu capacity)"};
  inventory.numbers["nvidia.com/gpu"] = "7/8 (allocatable 7)";
  const CheckOutcome outcome = InventoryOutcome(inventory);
  EXPECT_EQ(outcome.status, "fail");
  EXPECT_EQ(outcome.detail, "nvidia.com/gpu 7/8 (allocatable 7)");
}

}  // namespace
}  // namespace hkim::health
