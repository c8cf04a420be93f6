// Plan stage, network: the OKE NicClusterPolicy (SR-IOV device plugin, nv-ipam) and nv-ipam
// IPPools, and each rail's NetworkAttachmentDefinition in every workload namespace.

#include <algorithm>
#include <utility>
#include <vector>

#include "plan/builder.h"
#include "model/sriov_policy.h"

namespace hkim::plan {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

void PlanIpPools(PlanBuilder& b) {
  const Profile& p = b.profile();
  std::vector<std::pair<std::string, std::string>> pools_done;
  for (const Rail& rail : p.network.rails) {
    if (rail.ipam.type != IpamType::kNvIpam || !rail.ipam.pool) continue;
    const NvIpamPool& pool = *rail.ipam.pool;
    const auto key = std::make_pair(pool.namespace_name, pool.name);
    if (std::find(pools_done.begin(), pools_done.end(), key) != pools_done.end()) continue;
    pools_done.push_back(key);
    PlannedObject& object = b.Add("oke/ippool.yaml.mustache", "nv-ipam.nvidia.com/v1alpha1",
                                  "IPPool", pool.name, pool.namespace_name, kWaveClusterAccess, true);
    object.context["subnet"] = pool.subnet;
    object.context["per_node_block_size"] = pool.per_node_block_size;
    object.context["has_gateway"] = !pool.gateway.empty();
    object.context["gateway"] = pool.gateway;
    json selector = json::array();
    for (const auto& [key, value] : p.node_shape.node_selector)
      selector.push_back(json{{"key", key}, {"value", value}});
    object.context["has_node_selector"] = !selector.empty();
    object.context["node_selector"] = selector;
    object.source_pointer = pool.pointer;
    NeedNodeLabels(object, p.node_shape.node_selector, NodeSelectorPointer, "its nodeSelector");
  }
}

// The CNI configuration of a rail's NAD (a JSON document stored as a string in the NAD); keys in
// the order CNI documentation and the Barcelona NADs use.
ordered_json NadConfig(const Profile& p, const Rail& rail) {
  ordered_json ipam;
  if (rail.ipam.type == IpamType::kWhereabouts) {
    ipam = {{"type", "whereabouts"}, {"range", rail.ipam.range}};
    if (!rail.ipam.gateway.empty()) ipam["gateway"] = rail.ipam.gateway;
    if (!rail.ipam.routes.empty()) {
      ordered_json routes = ordered_json::array();
      for (const std::string& dst : rail.ipam.routes) routes.push_back(ordered_json{{"dst", dst}});
      ipam["routes"] = routes;
    }
  } else {
    ipam = {{"type", "nv-ipam"}, {"poolName", rail.ipam.pool ? rail.ipam.pool->name : ""}};
  }
  if (p.IsOpenShift()) {
    // The sriov plugin as in the NADs that worked on Barcelona (k8s/network-attachments/base).
    // Where the bundle's SriovNetworkPoolConfig puts the nodes' RDMA subsystem in exclusive
    // netns mode, only the rdma CNI moves a VF's RDMA device into its pod: it is chained after
    // the sriov plugin (what an SriovNetwork's metaPlugins renders), and the SR-IOV Network
    // Operator installs it (its RDMA_CNI_IMAGE, origin-rdma-cni on OpenShift). Otherwise the
    // cluster keeps its RDMA mode (shared by default) and the config is the sriov plugin alone.
    ordered_json sriov = ordered_json::object();
    sriov["type"] = "sriov";
    sriov["mtu"] = rail.mtu_bytes;
    sriov["vlan"] = rail.vlan;
    sriov["spoofchk"] = rail.spoof_check ? "on" : "off";
    sriov["trust"] = rail.trust ? "on" : "off";
    sriov["vlanQoS"] = 0;
    sriov["link_state"] = "enable";
    sriov["logLevel"] = "info";
    sriov["ipam"] = ipam;
    ordered_json config = ordered_json::object();
    config["cniVersion"] = rail.cni_version;
    config["name"] = rail.nad_name;
    if (!NadsChainRdma(p)) {
      for (auto& [key, value] : sriov.items()) config[key] = value;
      return config;
    }
    config["plugins"] = ordered_json::array({sriov, ordered_json{{"type", "rdma"}}});
    return config;
  }
  // OKE: sriov + tuning (ARP sysctls, MTU) + rdma + sbr, as oci-hpc-oke's oci-rdma-sriov.
  ordered_json sriov = {{"type", "sriov"},
                        {"name", "sriov-network"},
                        {"spoofchk", rail.spoof_check ? "on" : "off"},
                        {"ipam", ipam}};
  if (rail.vlan) sriov["vlan"] = rail.vlan;
  ordered_json tuning = {{"type", "tuning"},
                         {"sysctl",
                          {{"net.ipv4.conf.all.arp_announce", "2"},
                           {"net.ipv4.conf.all.arp_filter", "1"},
                           {"net.ipv4.conf.all.arp_ignore", "1"},
                           {"net.ipv4.conf.all.rp_filter", "0"},
                           {"net.ipv4.conf.all.accept_local", "1"}}},
                         {"mtu", rail.mtu_bytes}};
  ordered_json config = ordered_json::object();
  config["cniVersion"] = rail.cni_version;
  config["name"] = rail.nad_name;
  config["plugins"] = ordered_json::array(
      {sriov, tuning, ordered_json{{"type", "rdma"}}, ordered_json{{"type", "sbr"}}});
  return config;
}

/// What the NAD's CNI configuration (as built above) needs on the node: every plugin `type` of
/// the chain and its IPAM `type`, and, for the RDMA CNI, the RDMA subsystem in exclusive
/// network-namespace mode (BRINGUP-FACTS §7: it moves the VF's RDMA device into the pod).
void NeedCniChain(PlannedObject& nad, const ordered_json& config, const Rail& rail) {
  const ordered_json plugins =
      config.contains("plugins") ? config["plugins"] : ordered_json::array({config});
  for (const ordered_json& plugin : plugins) {
    const std::string type = plugin.value("type", "");
    Needs(nad, CapabilityKind::kCniPlugin, type, rail.pointer,
          "CNI plugin " + type + " chained in its config");
    if (type == "rdma")
      Needs(nad, CapabilityKind::kRdmaNetns, "exclusive", rail.pointer,
            "the RDMA CNI works only in exclusive RDMA netns mode");
    if (plugin.contains("ipam")) {
      const std::string ipam = plugin["ipam"].value("type", "");
      Needs(nad, CapabilityKind::kCniPlugin, ipam, rail.ipam.pointer + "/type",
            "IPAM plugin " + ipam + " of its config");
    }
  }
}

}  // namespace

void PlanClusterNetwork(PlanBuilder& b) {
  const Profile& p = b.profile();
  if (p.IsOpenShift() || !b.Rdma() || !p.network.sriov_device_plugin) return;
  // The NicClusterPolicy is planned with the operators (plan/operators/oke.cc).
  PlanIpPools(b);
}

void PlanNamespaceNetwork(PlanBuilder& b, const std::string& ns) {
  const Profile& p = b.profile();
  if (!b.Rdma()) return;
  for (const Rail& rail : p.network.rails) {
    PlannedObject& nad =
        b.Add("common/nad.yaml.mustache", "k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition",
              rail.nad_name, ns, kWaveNamespaceAccess, !p.IsOpenShift());
    nad.context["resource_name"] = rail.resource_name;
    const ordered_json config = NadConfig(p, rail);
    nad.context["config"] = config.dump(2) + "\n";
    nad.source_pointer = rail.pointer;
    NeedCniChain(nad, config, rail);
  }
}

}  // namespace hkim::plan
