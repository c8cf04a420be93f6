// Network values read as addresses (the schema only checks their form): a network written with
// host bits set (10.0.103.5/24), a gateway that is not inside its rail's subnet, and a rail
// subnet inside the platform's own default networks.
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

// The networks a platform uses by default for its own traffic: a rail subnet inside one routes
// RDMA traffic into the SDN (or hands out addresses it uses). OpenShift: install-config's
// clusterNetwork 10.128.0.0/14 and serviceNetwork 172.30.0.0/16, OVN-Kubernetes' internal join
// (100.64.0.0/16) and transit (100.88.0.0/16) subnets (OCP "Configuring the OVN-Kubernetes
// network plugin"). OKE: the flannel pods CIDR 10.244.0.0/16 and services CIDR 10.96.0.0/16
// (OCI "Network Resource Configuration for Cluster Creation").
struct PlatformNetwork {
  const char* cidr;
  const char* what;
};
constexpr PlatformNetwork kOpenShiftNetworks[] = {
    {"10.128.0.0/14", "OpenShift's default cluster (pod) network"},
    {"172.30.0.0/16", "OpenShift's default service network"},
    {"100.64.0.0/16", "OVN-Kubernetes' internal join subnet"},
    {"100.88.0.0/16", "OVN-Kubernetes' internal transit subnet"}};
constexpr PlatformNetwork kOkeNetworks[] = {
    {"10.244.0.0/16", "OKE's default pods CIDR"},
    {"10.96.0.0/16", "OKE's default services CIDR"}};

void CheckPlatformOverlap(const std::string& cidr, const std::string& pointer, const Profile& p,
                          LintReporter& r) {
  std::optional<Ipv4Network> mine = ParseCidr(cidr);
  if (!mine) return;
  auto check = [&](const PlatformNetwork& n) {
    std::optional<Ipv4Network> theirs = ParseCidr(n.cidr);
    if (!theirs || !mine->Overlaps(*theirs)) return;
    r.Report(pointer,
             "'" + cidr + "' overlaps " + n.what + " " + n.cidr +
                 ": the rail's addresses would collide with the platform's own traffic (routes "
                 "into the SDN, addresses its pods or services use)",
             "give the rail a subnet outside the cluster's pod, service and node networks; if "
             "this cluster was installed with other networks, accept the warning "
             "(accept_warnings) naming them");
  };
  if (p.IsOpenShift()) {
    for (const PlatformNetwork& n : kOpenShiftNetworks) check(n);
  } else {
    for (const PlatformNetwork& n : kOkeNetworks) check(n);
  }
}

void CheckPlatformNetworks(const LintContext& c, LintReporter& r) {
  for (const Rail& rail : c.profile.network.rails) {
    if (!rail.ipam.range.empty())
      CheckPlatformOverlap(rail.ipam.range, rail.ipam.pointer + "/range", c.profile, r);
    if (rail.ipam.pool)
      CheckPlatformOverlap(rail.ipam.pool->subnet, rail.ipam.pool->pointer + "/subnet", c.profile, r);
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
      {"lint.platform-network-overlap", Severity::kWarning,
       "rail subnets stay out of the platform's default pod, service and SDN networks",
       CheckPlatformNetworks},
  };
}

}  // namespace hkim
