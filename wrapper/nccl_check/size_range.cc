#include "size_range.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace hkim::nccl_check {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<std::uint64_t> ParseByteCount(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  const std::string unit = Lower(text.substr(digits));
  std::uint64_t scale = 0;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (unit == "k" || unit == "kib") {
    scale = std::uint64_t{1} << 10;
  } else if (unit == "m" || unit == "mib") {
    scale = std::uint64_t{1} << 20;
  } else if (unit == "g" || unit == "gib") {
    scale = std::uint64_t{1} << 30;
  } else {
    return std::nullopt;
  }
  if (value > std::numeric_limits<std::uint64_t>::max() / scale) return std::nullopt;
  return value * scale;
}

std::string FormatByteCount(std::uint64_t bytes) {
  constexpr std::uint64_t kKiB = std::uint64_t{1} << 10;
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
  if (bytes >= kGiB && bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " B";
}

std::vector<std::uint64_t> MakeSizeSweep(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                         std::uint64_t extra_bytes, std::uint64_t element_bytes) {
  std::vector<std::uint64_t> sizes;
  if (min_bytes == 0 || min_bytes > max_bytes || element_bytes == 0) return sizes;
  const auto align = [element_bytes](std::uint64_t bytes) {
    return std::max(element_bytes, bytes - bytes % element_bytes);
  };
  for (std::uint64_t size = min_bytes; size <= max_bytes; size *= 2) {
    sizes.push_back(align(size));
    if (size > max_bytes / 2) break;
  }
  sizes.push_back(align(max_bytes));
  if (extra_bytes != 0 && extra_bytes >= min_bytes && extra_bytes <= max_bytes) {
    sizes.push_back(align(extra_bytes));
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace hkim::nccl_check
