#include "fill_pattern.h"

#include <cstring>
#include <vector>

namespace hkim::nccl_check {

std::array<float, kPatternPeriod> FillPattern(int rank) {
  std::array<float, kPatternPeriod> pattern{};
  for (std::size_t i = 0; i < kPatternPeriod; ++i) {
    pattern[i] = static_cast<float>(((i + static_cast<std::size_t>(rank)) & 7) + 1);
  }
  return pattern;
}

std::array<float, kPatternPeriod> ExpectedSums(int world) {
  std::array<float, kPatternPeriod> sums{};
  for (int residue = 0; residue < 8; ++residue) {
    // sum over r of ((residue + r) mod 8) + 1: whole cycles add 36, the rest one by one.
    long long total = static_cast<long long>(world / 8) * 36;
    for (int r = 0; r < world % 8; ++r) total += ((residue + r) & 7) + 1;
    sums[static_cast<std::size_t>(residue)] = static_cast<float>(total);
  }
  return sums;
}

WrongCount CountWrong(const float* data, std::size_t count, std::uint64_t first_index,
                      const std::array<float, kPatternPeriod>& expected) {
  // The expected slice, built once per call and compared with memcmp: most results are right,
  // and memcmp runs at memory speed; the element loop only runs over a slice that differs.
  constexpr std::size_t kBlock = 4096;  // elements, a multiple of the period
  std::vector<float> reference(kBlock);
  const std::size_t shift = first_index % kPatternPeriod;
  for (std::size_t i = 0; i < kBlock; ++i) reference[i] = expected[(shift + i) % kPatternPeriod];
  WrongCount result;
  for (std::size_t start = 0; start < count; start += kBlock) {
    const std::size_t n = count - start < kBlock ? count - start : kBlock;
    if (std::memcmp(data + start, reference.data(), n * sizeof(float)) == 0) continue;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::memcmp(&data[start + i], &reference[i], sizeof(float)) == 0) continue;
      if (result.wrong == 0) result.first_wrong_index = first_index + start + i;
      ++result.wrong;
    }
  }
  return result;
}

}  // namespace hkim::nccl_check
