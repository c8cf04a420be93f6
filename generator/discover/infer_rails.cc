// Rails: which RDMA resources the group's pods can request, the PFs behind them (SR-IOV node
// states), the NADs that attach them and their IPAM (whereabouts ranges, nv-ipam IPPools).

#include <algorithm>
#include <regex>
#include <set>

#include "discover/infer.h"
#include "support/ipv4_network.h"

namespace hkim::discover {
namespace {

constexpr char kMellanox[] = "15b3";

bool IsRdmaResource(const std::string& name, const std::set<std::string>& nad_resources) {
  if (nad_resources.count(name)) return true;
  if (name.find('/') == std::string::npos || name.starts_with("nvidia.com/gpu") ||
      name.starts_with("nvidia.com/mig-") || name.starts_with("hugepages-")) {
    return false;
  }
  for (const char* hint : {"rdma", "sriov", "mlnx", "mlx", "roce", "/vf"}) {
    if (name.find(hint) != std::string::npos) return true;
  }
  return false;
}

// A DNS label from an interface or resource name (rail names must be one).
std::string RailName(const std::string& text) {
  std::string name;
  for (char c : text.substr(text.find('/') + 1)) {
    char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    name += std::isalnum(static_cast<unsigned char>(lower)) ? lower : '-';
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  while (!name.empty() && name.front() == '-') name.erase(name.begin());
  return name.substr(0, 63).empty() ? "rail" : name.substr(0, 63);
}

std::vector<const PfFacts*> RdmaPfs(const SriovStateFacts* state) {
  std::vector<const PfFacts*> pfs;
  if (state == nullptr) return pfs;
  for (const PfFacts& pf : state->interfaces) {
    if (pf.vendor == kMellanox && pf.num_vfs > 0) pfs.push_back(&pf);
  }
  return pfs;
}

std::string PfSignature(const std::vector<const PfFacts*>& pfs) {
  std::string text;
  for (const PfFacts* pf : pfs) {
    text += (text.empty() ? "" : ", ") + pf->name + " mtu " + std::to_string(pf->mtu) + " " +
            std::to_string(pf->num_vfs) + " VF";
  }
  return text.empty() ? "no Mellanox PF with VFs" : text;
}

class RailBuilder {
 public:
  RailBuilder(const ClusterFacts& facts, const SourceLocation& where, DiscoveredProfile& profile,
              DiagnosticSink& sink)
      : facts_(facts), where_(where), p_(profile), sink_(sink) {}

  void Build() {
    for (const NadFacts& nad : facts_.nads) {
      if (!nad.resource_name.empty()) nad_resources_.insert(nad.resource_name);
    }
    CheckNodeStates();
    std::map<std::string, long long> resources = GroupResources();
    for (const auto& [resource, count] : resources)
      AddResourceRail(resource, count, resources.size());
    if (p_.rails.empty()) AddPfRails();
    for (DiscoveredRail& rail : p_.rails) FillIpam(rail);
    CheckRails();
    // The workload's namespaces are never taken from the export: the namespaces that hold NADs
    // are `default` (the SR-IOV operator's) and other teams'; `--namespace` names ours.
  }

 private:
  // At `at` when the finding is about one object, else at the export as a whole.
  void Warn(const std::string& rule, const std::string& message, const std::string& fix,
            const SourceLocation& at = {}) {
    sink_.Report(Diagnostic{Severity::kWarning, at.known() ? at : where_, "", rule, message, fix});
  }

  // The reference node is the group's first node with an SR-IOV state; every other node of the
  // group should look the same.
  void CheckNodeStates() {
    std::string signature;
    for (const NodeFacts* node : p_.group.nodes) {
      const SriovStateFacts* state = facts_.StateOf(node->name);
      if (state == nullptr) continue;
      std::string mine = PfSignature(RdmaPfs(state));
      if (reference_ == nullptr) {
        reference_ = state;
        signature = mine;
      } else if (mine != signature) {
        Warn("discover.rails-differ",
             "SR-IOV node states of one group differ: " + reference_->node + " has " + signature +
                 "; " + node->name + " has " + mine,
             "make the SriovNetworkNodePolicies select every node of the group alike (the "
             "profile follows " +
                 reference_->node + ")",
             state->location);
      }
    }
    if (reference_ == nullptr) return;
    for (const PfFacts* pf : RdmaPfs(reference_)) {
      if (pf->link_type == "IB" && p_.fabric != "infiniband") {
        p_.fabric = "infiniband";
        p_.fabric_from =
            "SriovNetworkNodeState " + reference_->node + " " + pf->pointer + ".linkType = IB";
      } else if (pf->link_type == "ETH" && p_.fabric_from.empty()) {
        p_.fabric_from =
            "SriovNetworkNodeState " + reference_->node + " " + pf->pointer + ".linkType = ETH";
      }
    }
    for (const NodeFacts* node : p_.group.nodes) {
      if (facts_.StateOf(node->name) == nullptr) {
        Warn("discover.no-sriov-state",
             "node " + node->name + " of the group has no SriovNetworkNodeState",
             "check that the SR-IOV operator's config daemon runs on it", node->location);
      }
    }
  }

  // RDMA resources on the group's nodes: the smallest count any node advertises.
  std::map<std::string, long long> GroupResources() {
    std::map<std::string, long long> counts;
    std::map<std::string, size_t> carriers;
    std::map<std::string, SourceLocation> lacking;  // resource -> a node without it
    for (const NodeFacts* node : p_.group.nodes) {
      for (const auto& [name, count] : node->capacity) {
        if (!IsRdmaResource(name, nad_resources_)) continue;
        auto [it, added] = counts.emplace(name, count);
        if (!added) it->second = std::min(it->second, count);
        if (count > 0) ++carriers[name];
      }
    }
    for (const NodeFacts* node : p_.group.nodes) {
      for (const auto& [name, count] : counts) {
        auto it = node->capacity.find(name);
        if ((it == node->capacity.end() || it->second == 0) && !lacking.count(name)) {
          lacking[name] = node->location;
        }
      }
    }
    for (const auto& [name, count] : counts) {
      const size_t n = carriers[name];
      if (n != p_.group.nodes.size()) {
        Warn("discover.resource-missing",
             "only " + std::to_string(n) + " of " + std::to_string(p_.group.nodes.size()) +
                 " nodes of the group advertise " + name,
             "check the SR-IOV device plugin and the VFs on the other nodes", lacking[name]);
      }
    }
    return counts;
  }

  SourceLocation PoolLocation(const std::string& name) const {
    for (const PoolFacts& pool : facts_.pools) {
      if (pool.name == name) return pool.location;
    }
    return {};
  }

  // The NAD a rail copies its name, MTU and IPAM from: one made by hand before one an operator
  // generates (a SriovNetwork's NAD is the operator's; the bundle's copy must not be it).
  const NadFacts* NadFor(const std::string& resource) const {
    const NadFacts* owned = nullptr;
    for (const NadFacts& nad : facts_.nads) {
      if (nad.resource_name != resource) continue;
      if (nad.owner.empty()) return &nad;
      if (owned == nullptr) owned = &nad;
    }
    return owned;
  }

  // A PF is named in a resource or NAD by its interface name, often without the "np<port>"
  // suffix of the Mellanox naming scheme (ens1f0np0 -> openshift.io/ens1f0rdma).
  std::vector<const PfFacts*> PfsFor(const std::string& resource, const NadFacts* nad) const {
    std::vector<const PfFacts*> matched;
    for (const PfFacts* pf : RdmaPfs(reference_)) {
      std::string stem = pf->name;
      static const std::regex kPortSuffix("np[0-9]+$");
      stem = std::regex_replace(stem, kPortSuffix, "");
      bool named = nad != nullptr && nad->master == pf->name;
      for (const std::string& key : {pf->name, stem}) {
        named = named || resource.find(key) != std::string::npos ||
                (nad != nullptr && nad->name.find(key) != std::string::npos);
      }
      if (named) matched.push_back(pf);
    }
    return matched;
  }

  void AddResourceRail(const std::string& resource, long long count, size_t resources) {
    DiscoveredRail rail;
    rail.resource_name = resource;
    const std::string node = p_.group.nodes.front()->name;
    rail.from["resource_name"] =
        "Node " + node + " .status.capacity[" + resource + "] = " + std::to_string(count);
    const NadFacts* nad = NadFor(resource);
    std::vector<const PfFacts*> pfs = PfsFor(resource, nad);
    // One resource for every VF of the node (the Network Operator's flow): all PFs are its.
    if (pfs.empty() && resources == 1) pfs = RdmaPfs(reference_);
    if (nad != nullptr) {
      rail.nad_name = nad->name;
      rail.from["nad_name"] =
          "NetworkAttachmentDefinition " + nad->namespace_name + "/" + nad->name;
      rail.cni_version = nad->cni_version;
      rail.nad_location = nad->location;
      if (nad->mtu > 0) {
        rail.mtu_bytes = nad->mtu;
        rail.from["mtu_bytes"] = "NetworkAttachmentDefinition " + nad->name + " .spec.config mtu";
      }
    }
    if (pfs.empty() && !RdmaPfs(reference_).empty()) {
      Warn("discover.rail-pf-unknown",
           "no PF of " + reference_->node + "'s SR-IOV state is named in " + resource +
               (nad ? " or NAD " + nad->name : std::string()) + "; the rail has no interface",
           "set network.rails[].interface to the PF behind " + resource + " by hand",
           rail.nad_location);
    }
    if (pfs.size() == 1) {
      const PfFacts& pf = *pfs.front();
      rail.interface_name = pf.name;
      rail.from["interface"] = "SriovNetworkNodeState " + reference_->node + " " + pf.pointer +
                               ".name (PF " + pf.vendor + ":" + pf.device_id + ", " +
                               std::to_string(pf.num_vfs) + " VFs)";
    }
    std::set<std::string> device_ids;
    int vfs = 0;
    for (const PfFacts* pf : pfs) {
      vfs += pf->num_vfs;
      for (const VfFacts& vf : pf->vfs) {
        if (!vf.device_id.empty()) device_ids.insert(vf.device_id);
      }
      if (rail.mtu_bytes == 0 && pf->mtu > 0) {
        rail.mtu_bytes = pf->mtu;
        rail.from["mtu_bytes"] =
            "SriovNetworkNodeState " + reference_->node + " " + pf->pointer + ".mtu";
      } else if (pf->mtu > 0 && pf->mtu < rail.mtu_bytes) {
        Warn("discover.mtu",
             "rail " + resource + " uses MTU " + std::to_string(rail.mtu_bytes) + " but PF " +
                 pf->name + " on " + reference_->node + " has MTU " + std::to_string(pf->mtu),
             "raise the PF MTU in the SriovNetworkNodePolicy or lower the NAD's",
             rail.nad_location);
      }
    }
    rail.vf_device_ids.assign(device_ids.begin(), device_ids.end());
    if (!device_ids.empty())
      rail.from["device_ids"] =
          "SriovNetworkNodeState " + reference_->node + " .status.interfaces[].Vfs[].deviceID";
    // With several rails a pod takes one VF of each; with one resource it takes every VF.
    rail.attachments_per_pod =
        resources == 1 ? static_cast<int>(std::clamp<long long>(count, 1, 64)) : 1;
    rail.from["attachments_per_pod"] =
        resources == 1 ? "every " + resource + " of a node (one pod per node)"
                       : "one VF of each of the " + std::to_string(resources) + " rails";
    if (!pfs.empty() && vfs < rail.attachments_per_pod) {
      Warn("discover.too-few-vfs",
           "rail " + resource + ": the PFs behind it have " + std::to_string(vfs) + " VF(s) on " +
               reference_->node + " but one pod per node needs " +
               std::to_string(rail.attachments_per_pod),
           "raise numVfs in the SriovNetworkNodePolicy");
    }
    if (count < rail.attachments_per_pod) {
      Warn("discover.too-few-vfs",
           "rail " + resource + ": some node advertises " + std::to_string(count) +
               " but one pod per node needs " + std::to_string(rail.attachments_per_pod),
           "raise numVfs in the SriovNetworkNodePolicy or check the device plugin");
    }
    rail.name = RailName(!rail.interface_name.empty() ? rail.interface_name
                         : nad != nullptr             ? nad->name
                                                      : resource);
    p_.rails.push_back(std::move(rail));
  }

  // No resource advertised yet (device plugin not configured): a rail per PF with VFs, its
  // resource name left for the user.
  void AddPfRails() {
    for (const PfFacts* pf : RdmaPfs(reference_)) {
      DiscoveredRail rail;
      rail.name = RailName(pf->name);
      rail.interface_name = pf->name;
      rail.from["interface"] =
          "SriovNetworkNodeState " + reference_->node + " " + pf->pointer + ".name";
      rail.mtu_bytes = pf->mtu;
      if (pf->mtu > 0)
        rail.from["mtu_bytes"] =
            "SriovNetworkNodeState " + reference_->node + " " + pf->pointer + ".mtu";
      std::set<std::string> ids;
      for (const VfFacts& vf : pf->vfs) {
        if (!vf.device_id.empty()) ids.insert(vf.device_id);
      }
      rail.vf_device_ids.assign(ids.begin(), ids.end());
      p_.rails.push_back(std::move(rail));
    }
    if (!p_.rails.empty()) {
      Warn("discover.no-resource",
           "the group's nodes advertise no RDMA device-plugin resource; rails come from the "
           "SR-IOV node state of " +
               reference_->node + " and their resource names are TODOs",
           "create the SriovNetworkNodePolicies (resourceName), then export again");
    }
  }

  void FillIpam(DiscoveredRail& rail) {
    const NadFacts* nad = rail.resource_name.empty() ? nullptr : NadFor(rail.resource_name);
    if (nad == nullptr) return;
    const std::string nad_text = "NetworkAttachmentDefinition " + nad->name + " .spec.config ipam";
    if (nad->ipam_type == "whereabouts" && !nad->range.empty()) {
      rail.ipam_type = "whereabouts";
      rail.range = nad->range;
      rail.gateway = nad->gateway;
      rail.routes = nad->routes;
      rail.from["ipam"] = nad_text;
    } else if (nad->ipam_type == "nv-ipam") {
      rail.ipam_type = "nv-ipam";
      rail.pool_name = nad->pool_name.empty() ? "default" : nad->pool_name;
      rail.from["ipam"] = nad_text;
      for (const PoolFacts& pool : facts_.pools) {
        if (pool.name != rail.pool_name) continue;
        rail.pool_namespace = pool.namespace_name;
        rail.pool_subnet = pool.subnet;
        rail.pool_gateway = pool.gateway;
        rail.pool_block_size = pool.per_node_block_size;
        rail.from["pool"] = "IPPool " + pool.namespace_name + "/" + pool.name + " .spec";
        break;
      }
      if (rail.from.count("pool") == 0) {
        Warn("discover.pool-missing",
             "NAD " + nad->name + " allocates from nv-ipam pool '" + rail.pool_name +
                 "' but the export holds no IPPool of that name",
             "add ippools to the export: " + std::string(kExportCommand), nad->location);
      } else if (rail.pool_block_size > 0 && rail.pool_block_size < rail.attachments_per_pod) {
        Warn("discover.pool-block",
             "IPPool " + rail.pool_name + " reserves " + std::to_string(rail.pool_block_size) +
                 " addresses per node but a pod takes " + std::to_string(rail.attachments_per_pod),
             "raise perNodeBlockSize to at least the VFs per node", PoolLocation(rail.pool_name));
      }
    } else if (!nad->ipam_type.empty()) {
      Warn(
          "discover.ipam-type",
          "NAD " + nad->name + " uses IPAM '" + nad->ipam_type + "', which hkimgen does not render",
          "the profile uses whereabouts with a TODO range; choose the range", nad->location);
    }
  }

  void CheckRails() {
    for (size_t i = 0; i < p_.rails.size(); ++i) {
      for (size_t j = i + 1; j < p_.rails.size(); ++j) {
        const DiscoveredRail& a = p_.rails[i];
        const DiscoveredRail& b = p_.rails[j];
        auto ca = ParseCidr(a.ipam_type == "nv-ipam" ? a.pool_subnet : a.range);
        auto cb = ParseCidr(b.ipam_type == "nv-ipam" ? b.pool_subnet : b.range);
        if (ca && cb && ca->Overlaps(*cb)) {
          Warn("discover.shared-subnet",
               "rails " + a.name + " and " + b.name + " share addresses (" +
                   (a.range.empty() ? a.pool_subnet : a.range) + ", " +
                   (b.range.empty() ? b.pool_subnet : b.range) + ")",
               "give each isolated rail its own subnet (one range copied to four rails made "
               "8-node runs hang); the profile keeps them and `hkimgen validate` will object",
               b.nad_location);
        }
        if (a.mtu_bytes && b.mtu_bytes && a.mtu_bytes != b.mtu_bytes) {
          Warn("discover.mtu",
               "rails " + a.name + " and " + b.name + " have different MTUs (" +
                   std::to_string(a.mtu_bytes) + ", " + std::to_string(b.mtu_bytes) + ")",
               "use one MTU on every rail of the fabric");
        }
      }
    }
  }

  const ClusterFacts& facts_;
  const SourceLocation& where_;
  DiscoveredProfile& p_;
  DiagnosticSink& sink_;
  std::set<std::string> nad_resources_;
  const SriovStateFacts* reference_ = nullptr;
};

}  // namespace

void InferRails(const ClusterFacts& facts, const SourceLocation& where, DiscoveredProfile& profile,
                DiagnosticSink& sink) {
  RailBuilder(facts, where, profile, sink).Build();
  if (!profile.rails.empty()) {
    profile.rails_from = profile.rails.front().interface_name.empty()
                             ? "device-plugin resources in the nodes' capacity"
                             : "SR-IOV node states and device-plugin resources";
  }
}

}  // namespace hkim::discover
