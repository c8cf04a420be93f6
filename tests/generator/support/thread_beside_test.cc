// ThreadBeside (support/thread_beside.h): runs its body, is waited for when destroyed, and
// leaves the thread free to run on every core the process may use.
#include "support/thread_beside.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace hkim {
namespace {

TEST(ThreadBeside, DestroyingItWaitsForTheBody) {
  std::atomic<bool> done{false};
  {
    ThreadBeside thread([&done] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      done = true;
    });
  }
  EXPECT_TRUE(done);
}

TEST(ThreadBeside, TheBodyMayRunOnEveryCoreTheCreatorMay) {
  cpu_set_t creator;
  ASSERT_EQ(sched_getaffinity(0, sizeof creator, &creator), 0);
  cpu_set_t body{};
  int read = -1;
  { ThreadBeside thread([&] { read = sched_getaffinity(0, sizeof body, &body); }); }
  ASSERT_EQ(read, 0);
  EXPECT_TRUE(CPU_EQUAL(&creator, &body)) << CPU_COUNT(&body) << " cores of " << CPU_COUNT(&creator);
}

TEST(ThreadBeside, ACreatorOnOneCoreStillGetsItsThread) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  const int here = sched_getcpu();
  ASSERT_GE(here, 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(here, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  int ran_on = -1;
  { ThreadBeside thread([&ran_on] { ran_on = sched_getcpu(); }); }
  sched_setaffinity(0, sizeof all, &all);
  EXPECT_EQ(ran_on, here);
}

}  // namespace
}  // namespace hkim
