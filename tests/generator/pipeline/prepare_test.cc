// RenderPreparation (pipeline/prepare.h): the set-up thread runs its warm-ups, on a thread of its
// own, and is waited for when the preparation goes.
#include "pipeline/prepare.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace hkim {
namespace {

TEST(RenderPreparation, RunsItsWarmUpsOnTheSetUpThread) {
  std::atomic<int> runs{0};
  std::thread::id ran_on;
  {
    RenderPreparation preparation({[&] {
      ran_on = std::this_thread::get_id();
      ++runs;
    }});
  }
  EXPECT_EQ(runs, 1);
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

}  // namespace
}  // namespace hkim
