#pragma once

// discover, for the emitter: addresses for the rails whose export states none (no NAD range, no
// IPPool). Each is sized to what will attach to it (the draft's pods x the rail's attachments x
// the namespaces, plus a quarter for growth) and placed apart from the other rails and from the
// ranges the export states (and the ranges drafted for the cluster's other groups, which
// DiscoverDrafts adds to them), in private blocks: 192.168.0.0/16 first (from 192.168.200.0), then
// 172.16.0.0/13, then 10.64.0.0/10 (none of them OpenShift's or OKE's default networks).

#include <string>
#include <vector>

#include "discover/infer.h"

namespace hkim::discover {

/// The IPAM a rail's draft uses: the NAD's (whereabouts or nv-ipam), else whereabouts on
/// OpenShift and nv-ipam elsewhere.
std::string DraftIpamType(const DiscoveredRail& rail, bool openshift);

/// What a rail's drafted addresses are, when the export states none.
struct DraftedAddresses {
  std::string
      cidr;  ///< the whereabouts range or the nv-ipam pool's subnet; "" when the export has it
  std::string gateway;  ///< nv-ipam pool drafted here: its subnet's first address
  int block_size =
      0;  ///< nv-ipam pool drafted here: every attachment of its rails, plus the gateway
  /// Why this size (for a TODO comment): "2048 addresses: 1503 pods x 1 attachment x 1 namespace,
  /// plus a quarter"; or, when no private block is left for it, the size it needs.
  std::string sized_for;
  bool placed = true;  ///< false: no private block holds it; `cidr` is a /24 that is too small
};

/// One per rail of `profile`, in order, for the draft's replicas (DraftReplicas) and namespaces.
std::vector<DraftedAddresses> DraftAddresses(const DiscoveredProfile& profile);

}  // namespace hkim::discover
