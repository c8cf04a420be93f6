#include "nccl_conf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace hkim::wrapper {
namespace {

using ::testing::HasSubstr;

using test_support::ReadFile;

class NcclConfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/hkim-nccl-conf-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(dir_ + "/home");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  bool HasRule(const Findings& findings, const std::string& rule) {
    for (const Finding& f : findings)
      if (f.rule == rule) return true;
    return false;
  }
  std::string dir_;
};

TEST_F(NcclConfTest, FileIsNameValueLinesThatNcclReadsWithoutStrayVariables) {
  const std::string text = FormatNcclConf({{"NCCL_IB_HCA", "=mlx5_6,mlx5_7"},
                                           {"NCCL_IB_GID_INDEX", "3"}});
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> variables;
  while (std::getline(lines, line))
    if (line.find('=') != std::string::npos) variables.push_back(line);
  // NCCL's parser takes every line with '=' as NAME=VALUE, comments included.
  EXPECT_THAT(variables, ::testing::ElementsAre("NCCL_IB_GID_INDEX=3", "NCCL_IB_HCA==mlx5_6,mlx5_7"));
}

TEST_F(NcclConfTest, WritesTheDecisionsWhenAbsentAndLinksHomeForOldNccl) {
  NcclConfRequest request{dir_ + "/nccl.conf", dir_ + "/home", {{"NCCL_IB_GID_INDEX", "3"}}};
  Findings findings = PublishNcclConf(request);
  EXPECT_TRUE(HasRule(findings, "conf.written"));
  EXPECT_TRUE(HasRule(findings, "conf.home-linked"));
  EXPECT_THAT(ReadFile(dir_ + "/nccl.conf"), HasSubstr("\nNCCL_IB_GID_INDEX=3\n"));
  EXPECT_EQ(ReadFile(dir_ + "/home/.nccl.conf"), ReadFile(dir_ + "/nccl.conf"));
}

TEST_F(NcclConfTest, LeavesAnExistingFileAloneAndSaysSo) {
  std::ofstream(dir_ + "/nccl.conf") << "NCCL_DEBUG=INFO\n";
  std::ofstream(dir_ + "/home/.nccl.conf") << "NCCL_DEBUG=WARN\n";
  Findings findings =
      PublishNcclConf({dir_ + "/nccl.conf", dir_ + "/home", {{"NCCL_IB_GID_INDEX", "3"}}});
  EXPECT_TRUE(HasRule(findings, "conf.exists"));
  EXPECT_EQ(ReadFile(dir_ + "/nccl.conf"), "NCCL_DEBUG=INFO\n");
  EXPECT_EQ(ReadFile(dir_ + "/home/.nccl.conf"), "NCCL_DEBUG=WARN\n");
}

TEST_F(NcclConfTest, AnUnwritableFolderIsAWarningNotACrash) {
  Findings findings =
      PublishNcclConf({dir_ + "/missing/nccl.conf", dir_ + "/home", {{"NCCL_IB_GID_INDEX", "3"}}});
  EXPECT_TRUE(HasRule(findings, "conf.not-written"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/home/.nccl.conf"));
}

TEST_F(NcclConfTest, NothingWithoutNcclConfFile) {
  EXPECT_TRUE(PublishNcclConf({"", dir_ + "/home", {{"A", "1"}}}).empty());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/home/.nccl.conf"));
}

}  // namespace
}  // namespace hkim::wrapper
