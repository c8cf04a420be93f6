#pragma once
// The data the check all-reduces, and how a result is checked, on the host: no device kernel is
// needed (inputs are written with copies, results read back and compared here).
//
// Rank r's element i is ((i + r) mod 8) + 1, so every partial sum is a whole number of at most
// 4.5 x ranks, exactly representable in float32 (24-bit significand) for up to 3.7 million ranks,
// whatever order NCCL adds the ranks in. The result at i depends only on i mod 8 and the world.

#include <array>
#include <cstddef>
#include <cstdint>

namespace hkim::nccl_check {

/// Elements in one period of the pattern (32 bytes).
inline constexpr std::size_t kPatternPeriod = 8;

/// Rank `rank`'s input at residues 0..7.
std::array<float, kPatternPeriod> FillPattern(int rank);

/// The exact all-reduce sum of the fill pattern at each residue i mod 8 for `world` ranks.
std::array<float, kPatternPeriod> ExpectedSums(int world);

/// Wrong elements of a result slice and the lowest wrong index.
struct WrongCount {
  std::uint64_t wrong = 0;
  std::uint64_t first_wrong_index = 0;  ///< meaningful when wrong > 0
};

/// Compares `data[0..count)`, which holds result elements first_index.., bit for bit with
/// `expected[(first_index + i) % 8]`. NaN (the poison) never matches a whole number, so untouched
/// elements count as wrong.
WrongCount CountWrong(const float* data, std::size_t count, std::uint64_t first_index,
                      const std::array<float, kPatternPeriod>& expected);

}  // namespace hkim::nccl_check
