// The periodic check's rotation (wrapper/health/rotation.h): over `nights` consecutive days
// every node of the group gets its NCCL turn, and each night's slice is about 1/nights of it.

#include "rotation.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace hkim::health {
namespace {

std::vector<std::string> Pool(int size) {
  std::vector<std::string> nodes;
  for (int i = 0; i < size; ++i) nodes.push_back("gpu-node-" + std::to_string(1000 + i * 7));
  return nodes;
}

TEST(Rotation, DayNumberIsTheUtcDate) {
  EXPECT_EQ(UtcDayNumber(0), 0);
  EXPECT_EQ(UtcDayNumber(86399), 0);
  EXPECT_EQ(UtcDayNumber(86400), 1);
  EXPECT_EQ(UtcDayNumber(-1), -1);
  EXPECT_EQ(UtcDayNumber(1795737600), 20784);  // 2026-11-27T00:00:00Z
}

TEST(Rotation, EveryNodeWithinNightsConsecutiveDaysFromAnyStart) {
  for (int size : {1, 2, 5, 16, 33}) {
    for (int nights : {1, 2, 3, 7, 10}) {
      const std::vector<std::string> pool = Pool(size);
      for (int64_t start : {int64_t{20784}, int64_t{20785}, int64_t{20790}, int64_t{0}}) {
        std::set<std::string> reached;
        std::map<int64_t, int> per_night;
        for (int64_t day = start; day < start + nights; ++day)
          for (const std::string& node : pool)
            if (InTonightsSlice(pool, node, day, nights)) {
              reached.insert(node);
              ++per_night[day];
            }
        EXPECT_EQ(reached.size(), pool.size()) << size << " nodes, " << nights << " nights";
        // Each node once per rotation: the slices split the pool evenly (within one node).
        for (const auto& [day, count] : per_night) {
          EXPECT_LE(count, (size + nights - 1) / nights) << day;
          EXPECT_GE(count, size / nights) << day;
        }
      }
    }
  }
}

TEST(Rotation, EachNodeOncePerRotation) {
  const std::vector<std::string> pool = Pool(9);
  for (const std::string& node : pool) {
    int turns = 0;
    for (int64_t day = 20784; day < 20784 + 4; ++day) turns += InTonightsSlice(pool, node, day, 4);
    EXPECT_EQ(turns, 1) << node;
  }
}

TEST(Rotation, SliceDoesNotDependOnListOrderOrDuplicates) {
  std::vector<std::string> pool = Pool(6);
  std::vector<std::string> shuffled = {pool[3], pool[0], pool[5], pool[1], pool[4], pool[2],
                                       pool[3]};
  for (int64_t day = 20784; day < 20790; ++day)
    for (const std::string& node : pool)
      EXPECT_EQ(InTonightsSlice(pool, node, day, 3), InTonightsSlice(shuffled, node, day, 3));
}

TEST(Rotation, NightsUntilTurnCountsDownToTonight) {
  const std::vector<std::string> pool = Pool(5);
  const std::string& node = pool[2];
  const int wait = NightsUntilTurn(pool, node, 20784, 3);
  ASSERT_LT(wait, 3);
  EXPECT_TRUE(InTonightsSlice(pool, node, 20784 + wait, 3));
  for (int64_t day = 20784; day < 20784 + wait; ++day)
    EXPECT_FALSE(InTonightsSlice(pool, node, day, 3));
  // A node missing from the list still gets a turn; one night means every night.
  EXPECT_LT(NightsUntilTurn(pool, "gpu-node-late", 20784, 3), 3);
  EXPECT_TRUE(InTonightsSlice(pool, node, 20785, 1));
}

}  // namespace
}  // namespace hkim::health
