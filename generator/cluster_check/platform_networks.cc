// The rails' ranges against the cluster's own networks as the export states them: the
// nodes' addresses (the machine network; on OKE, the VCN's subnets), their pod CIDRs, and on
// OpenShift the cluster and service networks of its Network config. A pod's route for a rail's
// range sends traffic for any of these out the rail instead of the primary network. Lint can only
// compare with the platforms' defaults (lint.platform-network-overlap); this reads the real ones.

#include <optional>
#include <set>

#include "cluster_check/findings.h"
#include "discover/json_at.h"
#include "support/ipv4_network.h"

namespace hkim::cluster_check {
namespace {

using discover::At;
using nlohmann::json;

const ObjectId kNetworkConfig{"config.openshift.io", "Network", "", "cluster"};

// One rail's range, parsed once, and the profile field it comes from (lint's pointer).
struct RailRange {
  const Rail* rail;
  std::string text, pointer;
  Ipv4Network network;
};

std::vector<RailRange> RailRanges(const Profile& p) {
  std::vector<RailRange> ranges;
  for (const Rail& rail : p.network.rails) {
    const bool nv = rail.ipam.type == IpamType::kNvIpam && rail.ipam.pool;
    const std::string& text = nv ? rail.ipam.pool->subnet : rail.ipam.range;
    const std::optional<Ipv4Network> network = ParseCidr(text);
    if (!network) continue;
    ranges.push_back({&rail, text,
                      nv ? rail.ipam.pool->pointer + "/subnet" : rail.ipam.pointer + "/range",
                      *network});
  }
  return ranges;
}

std::string Of(const RailRange& range) {
  return "rail " + range.rail->name + "'s " + range.text;
}

// Node addresses and pod CIDRs. Findings about one rail fold over the nodes (the object names the
// node and its address, the message does not), so a 10,000-node VCN in a rail's range is one error.
void CheckNodes(const std::vector<RailRange>& ranges, const ClusterExport& cluster,
                Findings& findings) {
  bool any_address = false;
  std::set<std::string> seen;  // a node exported twice (the same file given twice) counts once
  for (const discover::ExportObject* node : OfKind(cluster, "Node")) {
    if (!seen.insert(node->name).second) continue;
    const json& object = *node->json;
    for (const json& address : At(object, {"status", "addresses"})) {
      any_address = true;
      const std::string type = Str(At(address, {"type"}));
      if (type != "InternalIP" && type != "ExternalIP") continue;
      const std::string ip = Str(At(address, {"address"}));
      const std::optional<Ipv4Network> host = ParseCidr(ip + "/32");  // IPv6: not a rail's
      if (!host) continue;
      for (const RailRange& range : ranges) {
        if (!range.network.Overlaps(*host)) continue;
        findings.Add(Severity::kError, "cluster.platform-network-overlap", range.pointer,
                     Where(cluster, *node) + " " + type + " " + ip,
                     "an address inside " + Of(range) +
                         ", so a pod's route for the rail sends its traffic to the node out the "
                         "rail instead of the cluster network",
                     "give the rail a range outside the nodes' network (no node's InternalIP or "
                     "ExternalIP in it; on OKE, outside the VCN's subnets)");
      }
    }
    std::set<std::string> cidrs;
    for (const json& cidr : At(object, {"spec", "podCIDRs"})) cidrs.insert(Str(cidr));
    cidrs.insert(Str(At(object, {"spec", "podCIDR"})));
    for (const std::string& cidr : cidrs) {
      const std::optional<Ipv4Network> pods = ParseCidr(cidr);
      if (!pods) continue;
      for (const RailRange& range : ranges) {
        if (!range.network.Overlaps(*pods)) continue;
        findings.Add(Severity::kError, "cluster.platform-network-overlap", range.pointer,
                     Where(cluster, *node) + " podCIDR " + cidr,
                     "a pod network that overlaps " + Of(range) +
                         ", so the rail's route captures traffic to pods on the cluster network",
                     "give the rail a range outside the cluster's pod network (the nodes' "
                     "podCIDRs)");
      }
    }
  }
  // podCIDR is optional (OVN-Kubernetes and OCI's VCN-native CNI leave it unset); every node
  // the kubelet registered has addresses, so none at all means the export dropped them.
  if (!any_address && !seen.empty())
    findings.NotExported("Node .status.addresses", "the nodes' addresses against the rails' ranges");
}

// OpenShift's Network config: spec (what was asked) and status (what runs) name the same
// networks; each CIDR is compared once.
void CheckNetworkConfig(const std::vector<RailRange>& ranges, const ClusterExport& cluster,
                        Findings& findings) {
  auto it = cluster.by_id.find(kNetworkConfig);
  if (it == cluster.by_id.end()) {
    findings.NotExported("Network (config.openshift.io)",
                         "the cluster's pod and service networks against the rails' ranges");
    return;
  }
  const json& object = *it->second->json;
  std::set<std::pair<std::string, std::string>> networks;  // CIDR, field
  for (const char* part : {"spec", "status"}) {
    for (const json& entry : At(object, {part, "clusterNetwork"}))
      networks.insert({Str(At(entry, {"cidr"})), "clusterNetwork"});
    for (const json& entry : At(object, {part, "serviceNetwork"}))
      networks.insert({Str(entry), "serviceNetwork"});
  }
  for (const auto& [cidr, field] : networks) {
    const std::string what = field == "clusterNetwork" ? "pod network" : "service network";
    const std::optional<Ipv4Network> theirs = ParseCidr(cidr);
    if (!theirs) continue;  // IPv6 or malformed: no IPv4 rail can overlap it
    for (const RailRange& range : ranges) {
      if (!range.network.Overlaps(*theirs)) continue;
      findings.Add(Severity::kError, "cluster.platform-network-overlap", range.pointer,
                   Where(cluster, *it->second),
                   "the cluster's " + what + " " + cidr + " (" + field + ") overlaps " + Of(range) +
                       ", so the rail's route captures the platform's own traffic",
                   "give the rail a range outside " + cidr + ", the cluster's " + what);
    }
  }
}

}  // namespace

void CheckPlatformNetworks(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  const std::vector<RailRange> ranges = RailRanges(p);
  if (ranges.empty()) return;
  CheckNodes(ranges, cluster, findings);
  if (p.IsOpenShift()) CheckNetworkConfig(ranges, cluster, findings);
}

}  // namespace hkim::cluster_check
