#include "size_range.h"

#include <gtest/gtest.h>

namespace hkim::nccl_check {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(ParseByteCount, ReadsPlainIntegersAndBinaryUnits) {
  EXPECT_EQ(ParseByteCount("1073741824"), kGiB);
  EXPECT_EQ(ParseByteCount("64M"), 64 * kMiB);
  EXPECT_EQ(ParseByteCount("64MiB"), 64 * kMiB);
  EXPECT_EQ(ParseByteCount("1g"), kGiB);
  EXPECT_EQ(ParseByteCount("8K"), 8192u);
  EXPECT_EQ(ParseByteCount("512B"), 512u);
}

TEST(ParseByteCount, RejectsEverythingElse) {
  EXPECT_FALSE(ParseByteCount(""));
  EXPECT_FALSE(ParseByteCount("-1"));
  EXPECT_FALSE(ParseByteCount("1.5G"));
  EXPECT_FALSE(ParseByteCount("12Q"));
  EXPECT_FALSE(ParseByteCount("1 G"));
  EXPECT_FALSE(ParseByteCount("G"));
  EXPECT_FALSE(ParseByteCount("99999999999999999999"));
  EXPECT_FALSE(ParseByteCount("17179869184G"));  // overflows 64 bits once scaled
}

TEST(FormatByteCount, UsesTheLargestWholeUnit) {
  EXPECT_EQ(FormatByteCount(kGiB), "1 GiB");
  EXPECT_EQ(FormatByteCount(64 * kMiB), "64 MiB");
  EXPECT_EQ(FormatByteCount(3 * kMiB / 2), "1536 KiB");
  EXPECT_EQ(FormatByteCount(1000), "1000 B");
}

TEST(MakeSizeSweep, DoublesFromMinToMaxLikeNcclTests) {
  const auto sizes = MakeSizeSweep(kMiB, kGiB, 0, 4);
  ASSERT_EQ(sizes.size(), 11u);
  EXPECT_EQ(sizes.front(), kMiB);
  EXPECT_EQ(sizes[6], 64 * kMiB);
  EXPECT_EQ(sizes.back(), kGiB);
}

TEST(MakeSizeSweep, AddsMaxAndTheThresholdSizeWhenOffTheLadder) {
  const auto sizes = MakeSizeSweep(kMiB, 5 * kMiB, 3 * kMiB, 4);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{kMiB, 2 * kMiB, 3 * kMiB, 4 * kMiB, 5 * kMiB}));
}

TEST(MakeSizeSweep, RoundsToWholeElementsAndDropsDuplicates) {
  EXPECT_EQ(MakeSizeSweep(6, 10, 0, 4), (std::vector<std::uint64_t>{4, 8}));
  EXPECT_EQ(MakeSizeSweep(1, 1, 0, 4), (std::vector<std::uint64_t>{4}));
}

TEST(MakeSizeSweep, IsEmptyForAnEmptyRange) {
  EXPECT_TRUE(MakeSizeSweep(2 * kMiB, kMiB, 0, 4).empty());
  EXPECT_TRUE(MakeSizeSweep(0, kMiB, 0, 4).empty());
}

TEST(MakeSizeSweep, IgnoresAThresholdOutsideTheRange) {
  EXPECT_EQ(MakeSizeSweep(kMiB, 2 * kMiB, 8 * kMiB, 4),
            (std::vector<std::uint64_t>{kMiB, 2 * kMiB}));
}

}  // namespace
}  // namespace hkim::nccl_check
