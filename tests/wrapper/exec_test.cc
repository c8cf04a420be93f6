#include "exec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hkim::wrapper {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(BuildEnvironment, AddsDecidedVariablesAndReplacesEmptyOnes) {
  auto env = BuildEnvironment({"PATH=/bin", "NCCL_IB_HCA=", "HOME=/root"},
                              {{"NCCL_IB_HCA", "=mlx5_6"}, {"NCCL_IB_DISABLE", "0"}});
  EXPECT_THAT(env,
              ElementsAre("PATH=/bin", "HOME=/root", "NCCL_IB_DISABLE=0", "NCCL_IB_HCA==mlx5_6"));
}

TEST(RunChild, PassesTheEnvironmentAndReturnsTheStatus) {
  std::string error;
  EXPECT_EQ(RunChild({"/bin/sh", "-c", "test \"$HKIM_X\" = yes && exit 7"}, {"HKIM_X=yes"}, &error),
            7);
  EXPECT_EQ(RunChild({"/bin/sh", "-c", "kill -TERM $$"}, {}, &error), 128 + 15);
}

TEST(RunChild, MissingProgramIs127) {
  std::string error;
  EXPECT_EQ(RunChild({"/nonexistent/hkim-prog"}, {}, &error), kExitNotFound);
  EXPECT_THAT(error, HasSubstr("cannot run '/nonexistent/hkim-prog': no such file or directory"));
}

}  // namespace
}  // namespace hkim::wrapper
