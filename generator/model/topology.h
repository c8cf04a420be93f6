#pragma once

// NCCL topology XML (NCCL_TOPO_FILE) generated from a description of the node: which GPUs and
// NICs share a PCIe switch under which CPU. Presets describe the shipped shapes; profiles can
// describe their own (schemas/profile.schema.json, node_shape.topology).

#include <optional>
#include <string>
#include <vector>

#include "model/model.h"

namespace hkim {

/// Names of the built-in shape descriptions, sorted ("BM.GPU.H100.8", ...; not "none").
std::vector<std::string> TopologyPresetNames();

/// The built-in description called `name`, or nullopt for an unknown name. Facts: FACTS.md §6.3
/// (oci-hpc-oke topology files at 3c67f9ba) and the Barcelona part §1-2 for barcelona-h100-cx7.
/// The OKE presets are `verified` (taken from OCI's real files); barcelona-h100-cx7 is not.
std::optional<NodeTopology> TopologyPreset(const std::string& name);

/// Renders `topology` as an NCCL topology XML document (`<system version="1">`, one `<cpu>` per
/// NUMA node, a bridge per PCIe switch with one downstream port per GPU/NIC, `<gpu>` and
/// `<nic><net/></nic>` leaves). Deterministic: elements appear in description order. Returns an
/// empty string for an empty topology.
std::string RenderTopologyXml(const NodeTopology& topology);

/// Problems with a description that the schema cannot see (duplicate PCI addresses or RDMA
/// device names, downstream port addresses that collide); one message per problem.
std::vector<std::string> CheckTopology(const NodeTopology& topology);

}  // namespace hkim
