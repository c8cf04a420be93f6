#include "support/ipv4_network.h"

#include <algorithm>

namespace hkim {
namespace {

uint32_t Mask(int prefix) { return prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix); }

// Reads 1 to `max_digits` decimal digits at `at`, no larger than `max`; advances `at`.
bool ReadNumber(const std::string& text, size_t& at, size_t max_digits, unsigned max,
                unsigned& value) {
  size_t digits = 0;
  value = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9' && digits < max_digits) {
    value = value * 10 + static_cast<unsigned>(text[at] - '0');
    ++at;
    ++digits;
  }
  return digits > 0 && value <= max && !(at < text.size() && text[at] >= '0' && text[at] <= '9');
}

}  // namespace

bool Ipv4Network::Overlaps(const Ipv4Network& other) const {
  const uint32_t mask = Mask(std::min(prefix, other.prefix));
  return (address & mask) == (other.address & mask);
}

std::optional<Ipv4Network> ParseCidr(const std::string& text) {
  size_t at = 0;
  uint32_t address = 0;
  for (int octet = 0; octet < 4; ++octet) {
    unsigned value = 0;
    if (!ReadNumber(text, at, 3, 255, value)) return std::nullopt;
    address = (address << 8) | value;
    const char want = octet < 3 ? '.' : '/';
    if (at >= text.size() || text[at] != want) return std::nullopt;
    ++at;
  }
  unsigned prefix = 0;
  if (!ReadNumber(text, at, 2, 32, prefix) || at != text.size()) return std::nullopt;
  Ipv4Network net;
  net.prefix = static_cast<int>(prefix);
  net.address = address & Mask(net.prefix);
  return net;
}

}  // namespace hkim
