#include "cli.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hkim::wrapper {
namespace {

using ::testing::ElementsAre;

TEST(CommandLine, OptionsThenCommandAfterDoubleDash) {
  Options o;
  std::string error;
  ASSERT_TRUE(ParseCommandLine(
      {"--sysfs-root", "/tmp/x", "--on-no-rdma=tcp", "--", "torchrun", "--nnodes", "2"}, {}, &o,
      &error))
      << error;
  EXPECT_EQ(o.sysfs_root, "/tmp/x");
  EXPECT_EQ(o.on_no_rdma, Policy::kTcp);
  EXPECT_THAT(o.command, ElementsAre("torchrun", "--nnodes", "2"));
}

TEST(CommandLine, EnvironmentGivesDefaultsAndFlagsWin) {
  Options o;
  std::string error;
  ASSERT_TRUE(ParseCommandLine({"--on-no-rdma", "fail", "--print-env"},
                               {{"HKIM_ON_NO_RDMA", "tcp"}, {"HKIM_SYSFS_ROOT", "/fx"}}, &o,
                               &error));
  EXPECT_EQ(o.on_no_rdma, Policy::kFail);
  EXPECT_EQ(o.sysfs_root, "/fx");
  Options o2;
  ASSERT_TRUE(ParseCommandLine({"--check"}, {{"HKIM_ON_NO_RDMA", "tcp"}}, &o2, &error));
  EXPECT_EQ(o2.on_no_rdma, Policy::kTcp);
}

TEST(CommandLine, UsageErrorsSayWhat) {
  Options o;
  std::string error;
  EXPECT_FALSE(ParseCommandLine({"--on-no-rdma", "maybe", "--", "true"}, {}, &o, &error));
  EXPECT_EQ(error, "--on-no-rdma maybe: expected fail or tcp");
  EXPECT_FALSE(ParseCommandLine({"--bogus"}, {}, &o, &error));
  EXPECT_EQ(error, "unknown option --bogus (see --help)");
  EXPECT_FALSE(ParseCommandLine({"--sysfs-root"}, {}, &o, &error));
  EXPECT_EQ(error, "--sysfs-root needs a value");
  EXPECT_FALSE(ParseCommandLine({}, {}, &o, &error));
  EXPECT_FALSE(ParseCommandLine({"--", "true"}, {{"HKIM_ON_NO_RDMA", "sometimes"}}, &o, &error));
  EXPECT_EQ(error, "HKIM_ON_NO_RDMA=sometimes is not fail or tcp");
}

TEST(CommandLine, CommandWithoutDoubleDashStartsAtTheFirstWord) {
  Options o;
  std::string error;
  ASSERT_TRUE(ParseCommandLine({"-q", "python", "-c", "1"}, {}, &o, &error));
  EXPECT_TRUE(o.quiet);
  EXPECT_THAT(o.command, ElementsAre("python", "-c", "1"));
}

}  // namespace
}  // namespace hkim::wrapper
