// LeaveToExit (support/leave_to_exit.h): destroyed at once in a process that goes on after the
// command (tests), kept until exit in one that ends after it (hkimgen's main).
#include "support/leave_to_exit.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace hkim {
namespace {

struct CountsDestruction {
  int* destroyed;
  explicit CountsDestruction(int* counter) : destroyed(counter) {}
  CountsDestruction(CountsDestruction&& other) noexcept : destroyed(other.destroyed) {
    other.destroyed = nullptr;
  }
  ~CountsDestruction() {
    if (destroyed) ++*destroyed;
  }
};

TEST(LeaveToExit, AProcessThatGoesOnDestroysTheValueAtOnce) {
  ASSERT_FALSE(EndsAfterCommand()) << "the test binary never calls ProcessEndsAfterCommand";
  int destroyed = 0;
  CountsDestruction value(&destroyed);
  LeaveToExit(std::move(value));
  EXPECT_EQ(destroyed, 1);
}

TEST(LeaveToExit, AProcessThatEndsAfterTheCommandKeepsTheValue) {
  // In a child: the flag is the process's and stays set.
  EXPECT_EXIT(
      {
        ProcessEndsAfterCommand();
        int destroyed = 0;
        CountsDestruction value(&destroyed);
        LeaveToExit(std::move(value));
        _exit(destroyed == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace hkim
