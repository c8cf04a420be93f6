#include "install.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "sysfs_fixture.h"
#include "test_support.h"

namespace hkim::wrapper {
namespace {

using ::testing::ElementsAre;

using test_support::ReadFile;

mode_t Mode(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

TEST(InstallTo, CopiesItselfAndSiblingHkimProgramsKeepingModes) {
  testing::SysfsFixture dir;
  dir.WriteFile("bin/hkim-wrapper", "wrapper bytes");
  dir.WriteFile("bin/hkim-nccl-check", "check bytes");
  dir.WriteFile("bin/hkim-notes.txt", "not executable");
  dir.WriteFile("bin/other-tool", "not ours");
  ::chmod((dir.root() + "/bin/hkim-wrapper").c_str(), 0755);
  ::chmod((dir.root() + "/bin/hkim-nccl-check").c_str(), 0750);
  ::chmod((dir.root() + "/bin/other-tool").c_str(), 0755);
  std::vector<std::string> installed;
  std::string error;
  ASSERT_EQ(
      InstallTo(dir.root() + "/bin/hkim-wrapper", dir.root() + "/out/nested", &installed, &error),
      0)
      << error;
  EXPECT_THAT(installed, ElementsAre("hkim-nccl-check", "hkim-wrapper"));
  EXPECT_EQ(ReadFile(dir.root() + "/out/nested/hkim-wrapper"), "wrapper bytes\n");
  EXPECT_EQ(Mode(dir.root() + "/out/nested/hkim-wrapper"), 0755u);
  EXPECT_EQ(Mode(dir.root() + "/out/nested/hkim-nccl-check"), 0750u);
  EXPECT_EQ(Mode(dir.root() + "/out/nested/other-tool"), 0u);
  EXPECT_EQ(Mode(dir.root() + "/out/nested/hkim-notes.txt"), 0u);
}

TEST(InstallTo, UnwritableTargetIsAnError) {
  testing::SysfsFixture dir;
  dir.WriteFile("bin/hkim-wrapper", "x");
  dir.WriteFile("file", "a file, not a folder");
  std::vector<std::string> installed;
  std::string error;
  EXPECT_EQ(InstallTo(dir.root() + "/bin/hkim-wrapper", dir.root() + "/file", &installed, &error),
            2);
  EXPECT_NE(error.find("cannot create"), std::string::npos);
}

}  // namespace
}  // namespace hkim::wrapper
