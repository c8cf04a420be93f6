#include "health_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "sysfs_fixture.h"

namespace hkim::wrapper {
namespace {

using ::testing::HasSubstr;

// A stand-in for hkim-nccl-check: checks it got the job's environment, exits with `status`.
std::string FakeCheck(const testing::SysfsFixture& dir, int status) {
  std::string path = dir.root() + "/hkim-nccl-check";
  std::ofstream(path) << "#!/bin/sh\n[ \"$NCCL_IB_HCA\" = \"=mlx5_6\" ] || exit 99\nexit " << status
                      << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(HealthCheck, ParsesTheContractValues) {
  HealthCheckMode mode;
  EXPECT_TRUE(ParseHealthCheckMode("", &mode));
  EXPECT_EQ(mode, HealthCheckMode::kOff);
  EXPECT_TRUE(ParseHealthCheckMode("warn", &mode));
  EXPECT_EQ(mode, HealthCheckMode::kWarn);
  EXPECT_TRUE(ParseHealthCheckMode("fail", &mode));
  EXPECT_EQ(mode, HealthCheckMode::kFail);
  EXPECT_FALSE(ParseHealthCheckMode("yes", &mode));
}

TEST(HealthCheck, PassingCheckProceeds) {
  testing::SysfsFixture dir;
  auto r = RunHealthCheck(HealthCheckMode::kFail, FakeCheck(dir, 0), {"NCCL_IB_HCA==mlx5_6"});
  EXPECT_TRUE(r.ran);
  EXPECT_TRUE(r.proceed);
  EXPECT_EQ(r.status, 0);
}

TEST(HealthCheck, FailModeStopsWithTheChecksStatus) {
  testing::SysfsFixture dir;
  auto r = RunHealthCheck(HealthCheckMode::kFail, FakeCheck(dir, 3), {"NCCL_IB_HCA==mlx5_6"});
  EXPECT_FALSE(r.proceed);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.message,
              HasSubstr("failed with status 3 (HKIM_NCCL_CHECK=fail); the job is not started"));
}

TEST(HealthCheck, WarnModeGoesOn) {
  testing::SysfsFixture dir;
  auto r = RunHealthCheck(HealthCheckMode::kWarn, FakeCheck(dir, 3), {"NCCL_IB_HCA==mlx5_6"});
  EXPECT_TRUE(r.proceed);
  EXPECT_EQ(r.status, 3);
  EXPECT_THAT(r.message, HasSubstr("starting the job anyway"));
}

TEST(HealthCheck, MissingProgramFollowsThePolicy) {
  auto fail = RunHealthCheck(HealthCheckMode::kFail, "/nonexistent/hkim-nccl-check", {});
  EXPECT_FALSE(fail.proceed);
  EXPECT_EQ(fail.exit_code, 127);
  EXPECT_THAT(fail.message, HasSubstr("missing or not executable"));
  auto warn = RunHealthCheck(HealthCheckMode::kWarn, "/nonexistent/hkim-nccl-check", {});
  EXPECT_TRUE(warn.proceed);
  EXPECT_FALSE(warn.ran);
}

TEST(HealthCheck, OffDoesNothing) {
  auto r = RunHealthCheck(HealthCheckMode::kOff, "/nonexistent/hkim-nccl-check", {});
  EXPECT_TRUE(r.proceed);
  EXPECT_FALSE(r.ran);
  EXPECT_TRUE(r.message.empty());
}

}  // namespace
}  // namespace hkim::wrapper
