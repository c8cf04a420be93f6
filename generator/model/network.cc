// Model part, network: rails with their IPAM, the SR-IOV device plugin and nv-ipam (OKE).

#include "model/reader.h"

namespace hkim {

void ModelBuilder::ReadNetwork(const json& network, Profile& profile) {
  Network& out = profile.network;
  out.fabric =
      String(network, "fabric", "roce-v2") == "infiniband" ? Fabric::kInfiniBand : Fabric::kRoceV2;
  const std::string netns = String(network, "rdma_netns", "");
  out.rdma_netns_set = !netns.empty();
  out.rdma_netns = netns == "shared"              ? RdmaNetns::kShared
                   : netns == "already-exclusive" ? RdmaNetns::kAlreadyExclusive
                                                  : RdmaNetns::kExclusive;
  if (const json* rails = Child(network, "rails")) {
    int i = 0;
    for (const json& r : *rails) {
      Rail rail;
      rail.pointer = "/network/rails/" + std::to_string(i++);
      rail.name = String(r, "name");
      rail.interface_name = String(r, "interface");
      rail.nad_name = String(r, "nad_name", rail.name + "-network");
      rail.resource_name = String(r, "resource_name");
      rail.rdma_device_hint = String(r, "rdma_device_hint");
      rail.attachments_per_pod = static_cast<int>(Integer(r, "attachments_per_pod", 1));
      rail.mtu_bytes = static_cast<int>(Integer(r, "mtu_bytes", 9000));
      rail.vlan = static_cast<int>(Integer(r, "vlan", 0));
      rail.spoof_check = Boolean(r, "spoof_check", false);
      rail.trust = Boolean(r, "trust", true);
      rail.cni_version = String(r, "cni_version", "1.0.0");
      const json empty = json::object();
      const json* ipam = Child(r, "ipam");
      const json& i_json = ipam ? *ipam : empty;
      rail.ipam.pointer = rail.pointer + "/ipam";
      rail.ipam.type = String(i_json, "type", "whereabouts") == "nv-ipam" ? IpamType::kNvIpam
                                                                          : IpamType::kWhereabouts;
      rail.ipam.range = String(i_json, "range");
      rail.ipam.gateway = String(i_json, "gateway");
      rail.ipam.routes = Strings(i_json, "routes");
      if (const json* pool = Child(i_json, "pool")) {
        NvIpamPool p;
        p.pointer = rail.ipam.pointer + "/pool";
        p.name = String(*pool, "name");
        p.namespace_name = String(*pool, "namespace", "network-operator");
        p.subnet = String(*pool, "subnet");
        p.per_node_block_size = static_cast<int>(Integer(*pool, "per_node_block_size", 0));
        p.gateway = String(*pool, "gateway");
        rail.ipam.pool = std::move(p);
      }
      out.rails.push_back(std::move(rail));
    }
  }
  if (const json* plugin = Child(network, "sriov_device_plugin")) {
    SriovDevicePlugin p;
    p.pointer = "/network/sriov_device_plugin";
    p.resource_prefix = String(*plugin, "resource_prefix", p.resource_prefix);
    p.resource_name = String(*plugin, "resource_name");
    p.vendor_ids = Strings(*plugin, "vendor_ids", p.vendor_ids);
    p.device_ids = Strings(*plugin, "device_ids");
    p.drivers = Strings(*plugin, "drivers", p.drivers);
    p.repository = String(*plugin, "repository", p.repository);
    p.image = String(*plugin, "image", p.image);
    p.version = String(*plugin, "version", p.version);
    out.sriov_device_plugin = std::move(p);
  }
  if (const json* ipam = Child(network, "nv_ipam")) {
    NvIpamController c;
    c.pointer = "/network/nv_ipam";
    c.repository = String(*ipam, "repository", c.repository);
    c.image = String(*ipam, "image", c.image);
    c.version = String(*ipam, "version", c.version);
    c.enable_webhook = Boolean(*ipam, "enable_webhook", false);
    out.nv_ipam = std::move(c);
  }
}

}  // namespace hkim
