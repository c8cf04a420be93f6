// Network values read as addresses (the schema only checks their form): a network written with
// host bits set (10.0.103.5/24), and a gateway that is not inside its rail's subnet.
#include <arpa/inet.h>

#include "lint/rules/rules.h"

namespace hkim {
namespace {

std::string Dotted(uint32_t address) {
  in_addr a{htonl(address)};
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}

// The address part of "a.b.c.d/N" in host order, with its host bits (nullopt when malformed;
// the schema reports that).
std::optional<uint32_t> AddressOf(const std::string& text) {
  in_addr a{};
  if (inet_pton(AF_INET, text.substr(0, text.find('/')).c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

void CheckNetwork(const std::string& cidr, const std::string& pointer, LintReporter& r) {
  std::optional<Ipv4Network> net = ParseCidr(cidr);
  std::optional<uint32_t> address = AddressOf(cidr);
  if (!net || !address || *address == net->address) return;
  const std::string network = Dotted(net->address) + "/" + std::to_string(net->prefix);
  r.Report(pointer,
           "'" + cidr + "' has host bits set: the network of that address and prefix is " +
               network,
           "write the network address: " + network);
}

void CheckGateway(const std::string& gateway, const std::string& gateway_pointer,
                  const std::string& cidr, LintReporter& r) {
  if (gateway.empty()) return;
  std::optional<Ipv4Network> net = ParseCidr(cidr);
  std::optional<Ipv4Network> host = ParseCidr(gateway + "/32");
  if (!net || !host || net->Overlaps(*host)) return;
  const std::string network = Dotted(net->address) + "/" + std::to_string(net->prefix);
  r.Report(gateway_pointer,
           "the gateway " + gateway + " is outside its subnet " + network +
               ": pods could not reach it",
           "use an address inside " + network + " (e.g. " + Dotted(net->address + 1) +
               "), or fix the subnet");
}

void CheckHostBits(const LintContext& c, LintReporter& r) {
  for (const Rail& rail : c.profile.network.rails) {
    if (!rail.ipam.range.empty()) CheckNetwork(rail.ipam.range, rail.ipam.pointer + "/range", r);
    for (size_t i = 0; i < rail.ipam.routes.size(); ++i) {
      CheckNetwork(rail.ipam.routes[i], rail.ipam.pointer + "/routes/" + std::to_string(i), r);
    }
    if (rail.ipam.pool) CheckNetwork(rail.ipam.pool->subnet, rail.ipam.pool->pointer + "/subnet", r);
  }
}

void CheckGatewayInside(const LintContext& c, LintReporter& r) {
  for (const Rail& rail : c.profile.network.rails) {
    CheckGateway(rail.ipam.gateway, rail.ipam.pointer + "/gateway", rail.ipam.range, r);
    if (rail.ipam.pool) {
      CheckGateway(rail.ipam.pool->gateway, rail.ipam.pool->pointer + "/gateway",
                   rail.ipam.pool->subnet, r);
    }
  }
}

}  // namespace

std::vector<LintRule> AddressLintRules() {
  return {
      {"lint.gateway-outside", Severity::kError, "every gateway lies inside its subnet",
       CheckGatewayInside},
      {"lint.host-bits", Severity::kError,
       "networks (ranges, routes, nv-ipam subnets) are written as network addresses",
       CheckHostBits},
  };
}

}  // namespace hkim
