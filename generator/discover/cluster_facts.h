#pragma once

// discover, stage 2: the typed facts an export states about a cluster (nodes, SR-IOV node
// states, NetworkAttachmentDefinitions, nv-ipam IPPools). Each fact keeps the object and field it
// came from, so the emitted profile can say so; pods only as far as they hold GPUs or RDMA
// devices (another team's, on a GPU node). Objects of other kinds are ignored.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "discover/export_load.h"
#include "model/node_fit.h"

namespace hkim::discover {

/// Where a value came from: "Node gpu-a-1" and ".metadata.labels[nvidia.com/gpu.product]".
struct Provenance {
  std::string object;
  std::string field;
  std::string Text() const { return object + " " + field; }
};

struct NodeFacts {
  std::string name;
  SourceLocation location;  ///< where the object starts in the export
  std::map<std::string, std::string> labels;
  std::map<std::string, long long> capacity;  ///< status.capacity (or allocatable), counts only
  std::vector<std::string> taint_keys;        ///< sorted, unique (with ":effect" appended)
  std::vector<NodeTaint> taints;              ///< spec.taints with their values, in order
  std::string os_image;                       ///< status.nodeInfo.osImage
  std::string provider_id;                    ///< spec.providerID
  int gpus = 0;                               ///< nvidia.com/gpu capacity, else gpu.count label
  Provenance gpus_from;
};

struct VfFacts {
  std::string name, device_id;
  int mtu = 0;
};

/// One physical function as SriovNetworkNodeState.status.interfaces[] reports it.
struct PfFacts {
  std::string name, vendor, device_id, driver, pci_address, link_type;
  std::string link_admin_state;  ///< linkAdminState ("up"/"down"), "" when not reported
  int mtu = 0;
  int num_vfs = 0;    ///< numVfs, else the length of Vfs
  int total_vfs = 0;  ///< totalvfs: what the PF can hold (0: not reported)
  std::vector<VfFacts> vfs;
  std::string pointer;  ///< ".status.interfaces[i]"
};

struct SriovStateFacts {
  std::string node;  ///< the state is named after its node
  SourceLocation location;
  std::vector<PfFacts> interfaces;
};

/// A NAD and what its CNI config says (spec.config is a JSON string).
struct NadFacts {
  std::string name, namespace_name, resource_name;
  /// The operator object that generates and owns it (sriovnetwork.openshift.io/owner-ref: a
  /// SriovNetwork), "" when made by hand or by a bundle: an owned NAD is never adopted.
  std::string owner;
  SourceLocation location;
  std::string cni_version, cni_type, master;  ///< master: the PF the sriov/host-device plugin names
  std::vector<std::string> plugins;  ///< every CNI plugin type of its config, in chain order
  std::vector<std::string> ranges;   ///< every IPAM range or subnet of its plugins
  int mtu = 0;                                ///< from the main plugin or a tuning plugin
  std::string ipam_type, range, gateway, pool_name;
  std::vector<std::string> routes;  ///< route destinations
};

struct PoolFacts {
  std::string name, namespace_name, subnet, gateway;
  SourceLocation location;
  int per_node_block_size = 0;
};

/// A pod that holds GPUs or RDMA devices (tenants.h), where it runs.
struct PodFacts {
  std::string name, namespace_name, node;
};

struct ClusterFacts {
  std::vector<NodeFacts> nodes;  ///< sorted by name (export order is not stable)
  std::vector<PodFacts> gpu_pods;  ///< sorted by node, namespace, name
  bool pods_exported = false;      ///< the export holds Pod objects at all
  std::vector<SriovStateFacts> sriov_states;
  std::vector<NadFacts> nads;  ///< sorted by namespace, name
  std::vector<PoolFacts> pools;
  const SriovStateFacts* StateOf(const std::string& node) const;
};

/// Reads the objects' fields. A NAD whose spec.config is not JSON is reported as a warning at its
/// file:line:col and kept without CNI details; duplicate objects (the same file given twice) are
/// kept once.
ClusterFacts ExtractFacts(const ExportSet& exports, DiagnosticSink& sink);

/// "1", "8", "16k"-free integer quantities as kubectl prints counts; nullopt for others.
std::optional<long long> ParseCount(const std::string& quantity);

}  // namespace hkim::discover
