#pragma once

// IPv4 addresses and CIDR networks as users write them in profiles (ipam.range, gateway,
// routes, nv-ipam subnets): what exactly is wrong with one, in words, instead of the schema's
// regular expression.

#include <string>

namespace hkim {

/// What is wrong with `text` as an IPv4 address ("" when it is one), e.g. "the third number,
/// 300, is above 255 (each of the four numbers is 0 to 255)". inet_pton decides; this explains.
std::string Ipv4AddressProblem(const std::string& text);

/// What is wrong with `text` as an IPv4 network a.b.c.d/N ("" when it is one). `rule` gets
/// "network.address" (the address part) or "network.prefix" (the /N part).
std::string CidrProblem(const std::string& text, std::string* rule);

}  // namespace hkim
