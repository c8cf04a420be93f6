// Rails, NADs, SR-IOV resources, VF and IP capacity, subnets.

#include <algorithm>
#include <string_view>
#include <map>
#include <set>

#include "lint/rules/rules.h"
#include "model/placement.h"

namespace hkim {
namespace {

bool UsesRails(const Profile& p) { return p.UsesRails(); }

void CheckRailResourcePrefix(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!UsesRails(p) || !p.IsOpenShift()) return;
  constexpr std::string_view kPrefix = "openshift.io/";  // then [A-Za-z0-9_]+
  for (const Rail& rail : p.network.rails) {
    const std::string_view name = rail.resource_name;
    if (name.size() > kPrefix.size() && name.substr(0, kPrefix.size()) == kPrefix &&
        std::all_of(name.begin() + kPrefix.size(), name.end(), [](char ch) {
          return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                 (ch >= '0' && ch <= '9') || ch == '_';
        })) {
      continue;
    }
    std::string suggestion =
        "openshift.io/" + (rail.interface_name.empty() ? rail.name : rail.interface_name) + "rdma";
    suggestion.erase(std::remove(suggestion.begin() + 13, suggestion.end(), '-'), suggestion.end());
    r.Report(rail.pointer + "/resource_name",
             "rail '" + rail.name + "' requests '" + rail.resource_name +
                 "', but the SR-IOV Network Operator advertises resources as "
                 "openshift.io/<resourceName> with letters, digits and '_' only",
             "use the SriovNetworkNodePolicy's resource, e.g. '" + suggestion + "'");
  }
}

// An extended resource that names an SR-IOV/RDMA device pool (as opposed to cpu, memory,
// hugepages or GPUs).
bool LooksLikeRailResource(const Profile& p, const std::string& name) {
  if (name.rfind("openshift.io/", 0) == 0) return true;
  if (p.network.sriov_device_plugin &&
      name.rfind(p.network.sriov_device_plugin->resource_prefix + "/", 0) == 0 &&
      name != "nvidia.com/gpu") {
    return true;
  }
  return name.find("rdma") != std::string::npos || name.find("sriov") != std::string::npos;
}

void CheckPodResourceRail(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  std::map<std::string, int> attached;  // resource -> VFs the rails request per pod
  for (const Rail& rail : p.network.rails) {
    attached[rail.resource_name] += rail.attachments_per_pod;
  }
  std::set<std::string> reported;
  for (const auto& [section, quantities] : {std::pair{"requests", &p.workload.resource_requests},
                                            std::pair{"limits", &p.workload.resource_limits}}) {
    for (const auto& [name, quantity] : *quantities) {
      if (!LooksLikeRailResource(p, name) || reported.count(name)) continue;
      const std::string pointer =
          p.workload.pointer + "/resources/" + section + "/" + EscapeJsonPointerToken(name);
      // A rail's own resource here is model.generated-resource.
      if (attached.count(name) == 0) {
        reported.insert(name);
        std::string rails;
        for (const auto& [resource, count] : attached)
          rails += (rails.empty() ? "" : ", ") + resource;
        r.Report(pointer,
                 "the pods request '" + name +
                     "', but no rail attaches a network of that "
                     "resource" +
                     (rails.empty() ? std::string() : " (the rails use " + rails + ")") +
                     ": the device is allocated but never plugged into the pod, or the pod "
                     "stays Pending on nodes without it",
                 "remove '" + name + "' from workload.resources." + section +
                     " (hkimgen requests every rail's resource itself), or add a rail for it");
      }
    }
  }
}

void CheckRailNicCount(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!UsesRails(p)) return;
  const int per_pod = RailAttachmentsPerPod(p);
  const int nics = p.node_shape.nics_per_node;
  if (per_pod >= nics) return;  // more than the node has: lint.vf-capacity
  r.Report(p.network.pointer + "/rails",
           "each pod attaches " + std::to_string(per_pod) + " rail network(s), but node shape '" +
               p.node_shape.name + "' has " + std::to_string(nics) +
               " RDMA NIC functions: NCCL runs on " + std::to_string(per_pod) + " of " +
               std::to_string(nics) + " NICs and loses their bandwidth",
           "add a rail per NIC (or raise attachments_per_pod), or set node_shape.nics_per_node "
           "to what a pod can really be given");
}

struct Pool {
  std::string label;    // "rail 'eno5np0' range 10.0.103.0/24"
  std::string pointer;  // where the range/subnet is written
  std::string cidr;
  std::string gateway;
  std::vector<const Rail*> rails;
  int per_node_block = 0;  // nv-ipam only
  bool nv_ipam = false;
};

// One address pool per whereabouts range or nv-ipam IPPool (rails naming the same pool share it).
std::vector<Pool> AddressPools(const Profile& p) {
  std::vector<Pool> pools;
  std::map<std::string, size_t> by_key;
  for (const Rail& rail : p.network.rails) {
    Pool pool;
    std::string key;
    if (rail.ipam.type == IpamType::kNvIpam && rail.ipam.pool) {
      pool.nv_ipam = true;
      pool.cidr = rail.ipam.pool->subnet;
      pool.gateway = rail.ipam.pool->gateway;
      pool.per_node_block = rail.ipam.pool->per_node_block_size;
      pool.pointer = rail.ipam.pool->pointer + "/subnet";
      pool.label = "IPPool '" + rail.ipam.pool->name + "' (" + pool.cidr + ")";
      key = "pool:" + rail.ipam.pool->namespace_name + "/" + rail.ipam.pool->name;
    } else {
      pool.cidr = rail.ipam.range;
      pool.gateway = rail.ipam.gateway;
      pool.pointer = rail.ipam.pointer + "/range";
      pool.label = "range " + pool.cidr + " of rail '" + rail.name + "'";
      key = "rail:" + rail.name;
    }
    if (pool.cidr.empty()) continue;
    auto it = by_key.find(key);
    if (it != by_key.end()) {
      pools[it->second].rails.push_back(&rail);
      continue;
    }
    pool.rails.push_back(&rail);
    by_key[key] = pools.size();
    pools.push_back(std::move(pool));
  }
  return pools;
}

bool InNetwork(const Ipv4Network& net, const std::string& address) {
  auto host = ParseCidr(address + "/32");
  return host && net.Overlaps(*host);
}

void CheckIpPoolCapacity(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!UsesRails(p)) return;
  const int namespaces = std::max<int>(1, static_cast<int>(p.namespaces.size()));
  for (const Pool& pool : AddressPools(p)) {
    auto net = ParseCidr(pool.cidr);
    if (!net) continue;
    int per_pod = 0;
    for (const Rail* rail : pool.rails) per_pod += rail->attachments_per_pod;
    if (pool.nv_ipam) {
      if (pool.per_node_block <= 0) continue;
      // nv-ipam hands every node a block of per_node_block_size addresses from the subnet.
      const uint64_t blocks = net->Size() / static_cast<uint64_t>(pool.per_node_block);
      const uint64_t nodes = static_cast<uint64_t>(p.workload.replicas);
      if (blocks >= nodes) continue;
      r.Report(pool.pointer,
               pool.label + " holds " + std::to_string(blocks) + " per-node blocks of " +
                   std::to_string(pool.per_node_block) + " addresses, but the workload runs on " +
                   std::to_string(nodes) + " nodes: pods on the other nodes get no address",
               "use a subnet of at least " + std::to_string(nodes * pool.per_node_block) +
                   " addresses, or a smaller per_node_block_size (at least " +
                   std::to_string(per_pod * kPodsPerNode) + ")");
      continue;
    }
    // whereabouts: every address of the range but the network and broadcast addresses (and
    // the gateway), shared by the NAD of every namespace.
    uint64_t usable = net->prefix >= 31 ? net->Size() : net->Size() - 2;
    if (auto gw = ParseCidr(pool.gateway + "/32"); gw && net->Overlaps(*gw) && usable > 0) --usable;
    const uint64_t needed = static_cast<uint64_t>(p.workload.replicas) * per_pod * namespaces;
    if (usable >= needed) continue;
    r.Report(pool.pointer,
             pool.label + " has " + std::to_string(usable) + " usable addresses, but " +
                 std::to_string(p.workload.replicas) + " replicas x " + std::to_string(per_pod) +
                 " attachment(s) x " + std::to_string(namespaces) + " namespace(s) need " +
                 std::to_string(needed) + ": the last pods fail to start (no IP)",
             "widen the range to hold at least " + std::to_string(needed) + " addresses");
  }
}

void CheckNvIpamBlockSize(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!UsesRails(p)) return;
  for (const Pool& pool : AddressPools(p)) {
    if (!pool.nv_ipam || pool.per_node_block <= 0) continue;
    int per_node = 0;
    for (const Rail* rail : pool.rails) per_node += rail->attachments_per_pod * kPodsPerNode;
    // The gateway, when it falls in a node's block, takes one of its addresses.
    auto net = ParseCidr(pool.cidr);
    const int gateway_slot = net && !pool.gateway.empty() && InNetwork(*net, pool.gateway) ? 1 : 0;
    if (pool.per_node_block >= per_node + gateway_slot) continue;
    // One rail's own attachments not fitting is model.ipam-block-size; this rule adds rails
    // sharing a pool and the gateway's address.
    bool single_rail_overflows = false;
    for (const Rail* rail : pool.rails) {
      single_rail_overflows |= pool.per_node_block < rail->attachments_per_pod;
    }
    if (single_rail_overflows) continue;
    const Rail& rail = *pool.rails.front();
    r.Report(rail.ipam.pool->pointer + "/per_node_block_size",
             pool.label + " reserves " + std::to_string(pool.per_node_block) +
                 " addresses per node, but a node's pod attaches " + std::to_string(per_node) +
                 " interfaces from it" + (gateway_slot ? " (plus the gateway)" : "") +
                 ": the last VFs get no address and the pod fails to start",
             "set per_node_block_size to at least " + std::to_string(per_node + gateway_slot));
  }
}

void CheckSubnetOverlap(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!UsesRails(p)) return;
  std::vector<Pool> pools = AddressPools(p);
  for (size_t j = 0; j < pools.size(); ++j) {
    auto b = ParseCidr(pools[j].cidr);
    if (!b) continue;
    for (size_t i = 0; i < j; ++i) {
      // Two whereabouts ranges are model.ipam-overlap; this rule adds the nv-ipam pools.
      if (!pools[i].nv_ipam && !pools[j].nv_ipam) continue;
      auto a = ParseCidr(pools[i].cidr);
      if (!a || !a->Overlaps(*b)) continue;
      const bool same = a->address == b->address && a->prefix == b->prefix;
      r.Report(pools[j].pointer,
               pools[j].label + (same ? " is the same as " : " overlaps ") + pools[i].label + " (" +
                   WhereIs(c, pools[i].pointer) +
                   "): two rails hand out addresses from one network, so routes and RoCE GIDs "
                   "collide (2-node runs work, 8-node runs hang after \"Connected all rings\")",
               "give every rail its own subnet, e.g. one /24 per rail");
      break;  // one report per pool
    }
  }
}

}  // namespace

std::vector<LintRule> NetworkLintRules() {
  return {
      {"lint.rail-resource-prefix", Severity::kError,
       "OpenShift: rail resources are openshift.io/<name> as the SR-IOV Network Operator "
       "advertises them",
       CheckRailResourcePrefix},
      {"lint.pod-resource-rail", Severity::kError,
       "every SR-IOV/RDMA resource in workload.resources has a rail (NAD) that attaches it",
       CheckPodResourceRail},
      {"lint.rail-nic-count", Severity::kWarning,
       "the rails use every RDMA NIC function of the node shape", CheckRailNicCount},
      {"lint.ip-pool-capacity", Severity::kError,
       "each rail's IP range (or nv-ipam pool) has an address for every pod attachment",
       CheckIpPoolCapacity},
      {"lint.nv-ipam-block-size", Severity::kError,
       "nv-ipam per-node blocks hold every VF of a node", CheckNvIpamBlockSize},
      {"lint.subnet-overlap", Severity::kError, "rails do not share or overlap subnets",
       CheckSubnetOverlap},
  };
}

}  // namespace hkim
