#pragma once

// IPv4 networks in CIDR form, parsed once for every stage: the model's overlap checks, lint's
// address rules, discover's shared subnets, the cluster check's overlaps, the fleet's pools.

#include <cstdint>
#include <optional>
#include <string>

namespace hkim {

/// An IPv4 network; `prefix` 0..32.
struct Ipv4Network {
  uint32_t address = 0;  ///< host order, masked to the prefix
  int prefix = 0;

  uint64_t Size() const { return uint64_t{1} << (32 - prefix); }
  bool Overlaps(const Ipv4Network& other) const;
};

/// Parses "10.0.103.0/24": four decimal octets of 1 to 3 digits (at most 255), a prefix of 1 or 2
/// digits (at most 32), nothing else; nullopt when malformed.
std::optional<Ipv4Network> ParseCidr(const std::string& text);

}  // namespace hkim
