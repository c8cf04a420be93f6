#include "discover/address_plan.h"

#include <algorithm>
#include <map>
#include <optional>

#include "support/ipv4_network.h"

namespace hkim::discover {
namespace {

constexpr uint64_t kMinRange = 256;         // whereabouts: a /24 at least
constexpr uint64_t kMinPoolSubnet = 65536;  // nv-ipam: a /16 at least

// A private block drafted ranges are placed in, searched from `hint` (then from its start).
struct Space {
  uint32_t begin;
  int prefix;
  uint32_t hint;
};
constexpr Space kSpaces[] = {
    {0xC0A80000u, 16, 0xC0A8C800u},  // 192.168.0.0/16, from 192.168.200.0
    {0xAC100000u, 13, 0xAC100000u},  // 172.16.0.0/13 (below OpenShift's 172.30.0.0/16)
    {0x0A400000u, 10, 0x0A400000u},  // 10.64.0.0/10 (below OpenShift's 10.128.0.0/14)
};

// "192.168.200.0/21"; without the prefix when `with_prefix` is false.
std::string Text(const Ipv4Network& net, bool with_prefix = true) {
  std::string text;
  for (int shift = 24; shift >= 0; shift -= 8)
    text += std::to_string((net.address >> shift) & 0xffu) + (shift ? "." : "");
  return with_prefix ? text + "/" + std::to_string(net.prefix) : text;
}

uint64_t Pow2AtLeast(uint64_t n) {
  uint64_t size = 1;
  while (size < n && size < (uint64_t{1} << 32)) size <<= 1;
  return size;
}

int PrefixOf(uint64_t size) {
  int prefix = 32;
  while (prefix > 0 && (uint64_t{1} << (32 - prefix)) < size) --prefix;
  return prefix;
}

// The first free aligned block of `size` addresses; nullopt when every space is full or small.
std::optional<Ipv4Network> Place(uint64_t size, std::vector<Ipv4Network>& taken) {
  const int prefix = PrefixOf(size);
  for (const Space& space : kSpaces) {
    if (prefix < space.prefix) continue;
    const uint64_t begin = space.begin, end = begin + (uint64_t{1} << (32 - space.prefix));
    const uint64_t hint = space.hint & ~(size - 1);
    for (const auto& [from, to] : {std::pair{hint, end}, std::pair{begin, hint}}) {
      for (uint64_t at = from; at + size <= to; at += size) {
        const Ipv4Network net{static_cast<uint32_t>(at), prefix};
        if (std::none_of(taken.begin(), taken.end(),
                         [&](const Ipv4Network& t) { return t.Overlaps(net); })) {
          taken.push_back(net);
          return net;
        }
      }
    }
  }
  return std::nullopt;
}

std::string Plural(long long n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The pools rails share: those naming the same IPPool (nv-ipam) are one pool.
std::string PoolKey(const DiscoveredRail& rail) {
  return (rail.pool_namespace.empty() ? "network-operator" : rail.pool_namespace) + "/" +
         (rail.pool_name.empty() ? "default" : rail.pool_name);
}

}  // namespace

std::string DraftIpamType(const DiscoveredRail& rail, bool openshift) {
  if (!rail.ipam_type.empty()) return rail.ipam_type;
  return openshift ? "whereabouts" : "nv-ipam";
}

std::vector<DraftedAddresses> DraftAddresses(const DiscoveredProfile& p) {
  const long long replicas = DraftReplicas(p);
  const int namespaces = std::max<int>(1, static_cast<int>(p.namespaces.size()));
  const bool openshift = p.platform == "openshift";
  std::vector<DraftedAddresses> drafted(p.rails.size());
  // What the export states is the cluster's (and the other groups' drafts): the drafted ranges
  // keep clear of it.
  std::vector<Ipv4Network> taken;
  for (const std::string& cidr : p.exported_ranges)
    if (auto net = ParseCidr(cidr)) taken.push_back(*net);
  std::map<std::string, int> pool_attachments;  // drafted nv-ipam pool -> its rails' attachments
  for (const DiscoveredRail& rail : p.rails)
    if (DraftIpamType(rail, openshift) == "nv-ipam" && rail.from.count("pool") == 0)
      pool_attachments[PoolKey(rail)] += std::max(rail.attachments_per_pod, 1);
  std::map<std::string, DraftedAddresses> pools;  // drafted once, shared by its rails
  const long long grown = replicas + (replicas + 3) / 4;
  for (size_t i = 0; i < p.rails.size(); ++i) {
    const DiscoveredRail& rail = p.rails[i];
    DraftedAddresses& out = drafted[i];
    if (DraftIpamType(rail, openshift) == "whereabouts") {
      if (!rail.range.empty()) continue;
      const long long per_pod = std::max(rail.attachments_per_pod, 1);
      const long long needed = replicas * per_pod * namespaces;
      const long long wanted = needed + (needed + 3) / 4;
      // The network and broadcast addresses, and one for a gateway if one is added.
      const uint64_t size = std::max(kMinRange, Pow2AtLeast(static_cast<uint64_t>(wanted) + 3));
      const std::string why = Plural(replicas, "pod") + " x " + Plural(per_pod, "attachment") +
                              " x " + Plural(namespaces, "namespace") + " = " +
                              std::to_string(needed) + ", plus a quarter for growth";
      if (auto net = Place(size, taken)) {
        out.cidr = Text(*net);
        out.sized_for = std::to_string(size) + " addresses for " + why;
      } else {
        out.placed = false;
        out.cidr = "192.168." + std::to_string(200 + std::min<size_t>(i, 55)) + ".0/24";
        out.sized_for = "needs " + std::to_string(size) + " addresses (" + why +
                        "), more than the private blocks left hold: choose a range";
      }
      continue;
    }
    if (rail.from.count("pool")) continue;  // the export's IPPool
    const std::string key = PoolKey(rail);
    if (auto it = pools.find(key); it != pools.end()) {
      out = it->second;
      continue;
    }
    const int block = pool_attachments[key] + 1;  // the gateway takes one address of its block
    const uint64_t size =
        std::max(kMinPoolSubnet, Pow2AtLeast(static_cast<uint64_t>(grown) * block));
    const std::string why = Plural(replicas, "node") + " x a block of " + std::to_string(block) +
                            " (the pool's attachments and the gateway), plus a quarter for growth";
    out.block_size = block;
    if (auto net = Place(size, taken)) {
      out.cidr = Text(*net);
      out.gateway = Text(Ipv4Network{net->address + 1, 32}, false);
      out.sized_for = std::to_string(size) + " addresses for " + why;
    } else {
      out.placed = false;
      out.cidr = "192.168.0.0/16";
      out.gateway = "192.168.0.1";
      out.sized_for = "needs " + std::to_string(size) + " addresses (" + why +
                      "), more than the private blocks left hold: choose a subnet";
    }
    pools[key] = out;
  }
  return drafted;
}

}  // namespace hkim::discover
