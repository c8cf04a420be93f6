#include "fill_pattern.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

namespace hkim::nccl_check {
namespace {

TEST(FillPattern, RankShiftsThePatternByOne) {
  EXPECT_EQ(FillPattern(0), (std::array<float, 8>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(FillPattern(1), (std::array<float, 8>{2, 3, 4, 5, 6, 7, 8, 1}));
  EXPECT_EQ(FillPattern(9), FillPattern(1));
}

TEST(FillPattern, ExpectedSumsAreTheSumOfEveryRanksPattern) {
  for (int world : {1, 2, 3, 8, 9, 17, 1000}) {
    std::array<long long, 8> total{};
    for (int r = 0; r < world; ++r) {
      const auto pattern = FillPattern(r);
      for (int k = 0; k < 8; ++k) total[k] += static_cast<long long>(pattern[k]);
    }
    const auto sums = ExpectedSums(world);
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(sums[k], static_cast<float>(total[k])) << "world " << world << " residue " << k;
    }
  }
}

std::vector<float> Result(std::size_t count, int world, std::uint64_t first_index = 0) {
  const auto sums = ExpectedSums(world);
  std::vector<float> data(count);
  for (std::size_t i = 0; i < count; ++i) data[i] = sums[(first_index + i) % 8];
  return data;
}

TEST(CountWrong, AcceptsTheExactResultAtAnyOffset) {
  for (std::uint64_t first : {0u, 3u, 4096u, 4099u}) {
    const std::vector<float> data = Result(10000, 2, first);
    EXPECT_EQ(CountWrong(data.data(), data.size(), first, ExpectedSums(2)).wrong, 0u) << first;
  }
}

TEST(CountWrong, CountsPoisonAndWrongValuesAndFindsTheFirst) {
  std::vector<float> data = Result(10000, 2, 16);
  std::memset(&data[5000], 0xFF, 10 * sizeof(float));  // NaN poison left by a missed write
  data[9000] = data[9000] + 1;
  const WrongCount wrong = CountWrong(data.data(), data.size(), 16, ExpectedSums(2));
  EXPECT_EQ(wrong.wrong, 11u);
  EXPECT_EQ(wrong.first_wrong_index, 16u + 5000u);
}

TEST(CountWrong, ARankMissingFromTheSumIsWrongAlmostEverywhere) {
  const std::vector<float> one_rank = Result(4096, 1);
  EXPECT_GT(CountWrong(one_rank.data(), one_rank.size(), 0, ExpectedSums(2)).wrong, 4000u);
}

}  // namespace
}  // namespace hkim::nccl_check
