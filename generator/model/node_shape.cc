// Model part, node shape: selector, include/exclude node lists, tolerations and the PCIe topology
// (preset or custom).

#include "model/reader.h"
#include "model/topology.h"

namespace hkim {

void ModelBuilder::ReadTopology(const json& topology, const std::string& pointer,
                                Profile& profile) {
  NodeTopology& out = profile.node_shape.topology;
  const std::string preset = String(topology, "preset");
  const json* numa = Child(topology, "numa_nodes");
  if (!preset.empty() && numa) {
    Error(pointer + "/numa_nodes", "model.topology-preset-and-custom",
          "a topology has both a preset and numa_nodes", "remove either `preset` or `numa_nodes`");
    return;
  }
  if (!preset.empty()) {
    if (preset == "none") {
      out = NodeTopology{};
      out.preset = "none";
    } else if (auto found = TopologyPreset(preset)) {
      out = *found;
      // The profile's word (checked with NCCL_TOPO_DUMP_FILE on its nodes) beats the preset's.
      out.verified = Boolean(topology, "verified", out.verified);
    } else {
      Error(pointer + "/preset", "model.topology-preset",
            "unknown topology preset '" + preset + "'",
            "use one of the presets listed in the schema");
      return;
    }
    out.pointer = pointer;
    return;
  }
  if (!numa) {
    out = NodeTopology{};
    out.preset = "none";
    out.pointer = pointer;
    return;
  }
  out = NodeTopology{};
  out.preset = "custom";
  out.pointer = pointer;
  out.cpu_vendor = profile.node_shape.cpu_vendor;
  const json* gpu = Child(topology, "gpu");
  const json* nic = Child(topology, "nic");
  if (!gpu || !nic) {
    Error(pointer, "model.topology-identity",
          "a custom topology needs `gpu` (pci_device, sm) and `nic` (pci_device, speed_mbps)",
          "add gpu: {pci_device: \"0x2330\", sm: 90} and nic: {pci_device: \"0x1021\", "
          "speed_mbps: 400000}");
    return;
  }
  out.gpu_pci_device = String(*gpu, "pci_device");
  out.gpu_sm = static_cast<int>(Integer(*gpu, "sm", 0));
  out.nic_pci_device = String(*nic, "pci_device");
  out.nic_speed_mbps = Integer(*nic, "speed_mbps", 0);
  // A description the user wrote is theirs to vouch for; verified: false keeps it unshipped.
  out.verified = Boolean(topology, "verified", true);
  for (const json& n : *numa) {
    NumaNode node;
    node.id = static_cast<int>(Integer(n, "id", 0));
    node.cpu_affinity = String(n, "cpu_affinity");
    if (const json* switches = Child(n, "pcie_switches")) {
      for (const json& s : *switches) {
        PcieSwitch sw;
        sw.bus_id = String(s, "bus_id");
        sw.gpu_bus_ids = Strings(s, "gpus");
        if (const json* nics = Child(s, "nics")) {
          for (const json& x : *nics) {
            sw.nics.push_back(TopologyNic{String(x, "bus_id"), Strings(x, "rdma_devices")});
          }
        }
        node.pcie_switches.push_back(std::move(sw));
      }
    }
    out.numa_nodes.push_back(std::move(node));
  }
  for (const std::string& problem : CheckTopology(out)) {
    Error(pointer + "/numa_nodes", "model.topology", problem,
          "give every GPU, NIC and RDMA device its own address or name");
  }
}

void ModelBuilder::ReadNodeShape(const json& shape, Profile& profile) {
  NodeShape& out = profile.node_shape;
  out.pointer = "/node_shape";
  out.name = String(shape, "name");
  out.gpus_per_node = static_cast<int>(Integer(shape, "gpus_per_node", 0));
  out.nics_per_node = static_cast<int>(Integer(shape, "nics_per_node", 0));
  out.cpu_vendor =
      String(shape, "cpu_vendor", "intel") == "amd" ? CpuVendor::kAmd : CpuVendor::kIntel;
  // The schema allows only the three words; absent means unknown, treated as enforcing.
  const std::string selinux = String(shape, "selinux");
  out.selinux_set = !selinux.empty();
  out.selinux = selinux == "permissive" ? SelinuxMode::kPermissive
                : selinux == "disabled" ? SelinuxMode::kDisabled
                                        : SelinuxMode::kEnforcing;
  out.node_selector = StringMap(shape, "node_selector");
  out.include_nodes = Strings(shape, "include_nodes");
  out.exclude_nodes = Strings(shape, "exclude_nodes");
  if (const json* tolerations = Child(shape, "tolerations")) {
    int i = 0;
    for (const json& t : *tolerations) {
      Toleration tol;
      tol.key = String(t, "key");
      tol.operator_name = String(t, "operator", "Equal");
      tol.value = String(t, "value");
      tol.effect = String(t, "effect");
      tol.pointer = "/node_shape/tolerations/" + std::to_string(i++);
      if (tol.operator_name == "Exists" && !tol.value.empty()) {
        Error(tol.pointer + "/value", "model.toleration-exists-value",
              "a toleration with operator Exists cannot have a value",
              "remove `value` or use operator Equal");
      }
      out.tolerations.push_back(std::move(tol));
    }
  }
  out.topology.preset = "none";
  out.topology.pointer = "/node_shape/topology";
  if (const json* topology = Child(shape, "topology")) {
    ReadTopology(*topology, "/node_shape/topology", profile);
  }
}

}  // namespace hkim
