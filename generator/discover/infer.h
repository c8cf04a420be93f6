#pragma once

// discover, stage 3: from cluster facts to the profile they imply. Every inferred value carries
// the object and field it came from; what an export cannot tell is left empty for the emitter to
// fill with a safe default and a TODO. Inconsistencies are warnings on the sink.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "discover/cluster_facts.h"

namespace hkim::discover {

/// GPU nodes that share a GPU product and an instance type.
struct NodeGroup {
  std::string gpu_product;              ///< nvidia.com/gpu.product, "" when unlabelled
  std::string instance_type;            ///< node.kubernetes.io/instance-type, "" when unlabelled
  std::vector<const NodeFacts*> nodes;  ///< sorted by name
  int gpus_per_node = 0;                ///< the most common count in the group
  /// "NVIDIA-H100-80GB-HBM3 on BM.GPU.H100.8 (3 nodes: a, b, c)".
  std::string Describe() const;
};

struct DiscoveredRail {
  std::string name, interface_name, nad_name, resource_name;
  int attachments_per_pod = 1;
  int mtu_bytes = 0;  ///< 0: unknown
  std::string cni_version;
  std::string ipam_type;  ///< whereabouts | nv-ipam | "" (unknown)
  std::string range, gateway;
  std::vector<std::string> routes;
  std::string pool_name, pool_namespace, pool_subnet, pool_gateway;
  int pool_block_size = 0;
  std::vector<std::string> vf_device_ids;   ///< sorted, from the SR-IOV state or none
  SourceLocation nad_location;              ///< the NAD's, for warnings (unknown without one)
  std::map<std::string, std::string> from;  ///< profile field -> provenance (absent: unknown)
};

/// An operator the export shows running (discover/adopt.h).
struct FoundOperator {
  std::string key;      ///< operators.<key>
  std::string version;  ///< from the CSV name ("v25.10.1"), "" when unknown
  std::string from;     ///< the object that shows it
};

/// What of the platform the cluster runs already, so that the draft adopts it (adopt.h).
struct Adoption {
  bool operators_visible = false;  ///< the export holds CSVs or operator CRs at all
  std::vector<FoundOperator> operators;
  std::string openshift_version, openshift_version_from;  ///< "4.20"
  /// Node policies that advertise the rails' resources (by resource, "openshift.io/x").
  std::map<std::string, std::string> policies;
  std::string rdma_netns, rdma_netns_from;  ///< shared | already-exclusive; "" unknown
  std::string pool_role, pool_from;         ///< the GPU nodes' custom role with a pool
  std::vector<std::string> kernel_args;     ///< IOMMU arguments the pool boots with
  std::string kernel_args_from;
};

/// A node of the group the draft leaves out (node_shape.exclude_nodes).
struct ExcludedNode {
  std::string host;  ///< its kubernetes.io/hostname label (the node name without one)
  /// "GPU or RDMA pods of namespace b-ts-data-agent-0a0cee run there, not the workload's"
  std::string why;
};

struct DiscoveredProfile {
  std::string platform;  ///< openshift | oke | kubernetes
  std::string platform_from;
  NodeGroup group;
  std::vector<NodeGroup> other_groups;
  std::string cpu_vendor, cpu_vendor_from;  ///< amd | intel | "" (unknown)
  std::string selector_key, selector_value, selector_from;
  std::vector<std::string> taints;  ///< "key:effect" on every node of the group
  std::vector<ExcludedNode> excluded;  ///< another team's nodes of the group, sorted by host
  bool pods_exported = false;          ///< the export holds Pods: other teams' jobs could be seen
  std::vector<DiscoveredRail> rails;
  std::string rails_from;
  /// CNI plugin type -> the first NAD of the export, not an operator's, whose config uses it
  /// ("NetworkAttachmentDefinition ml/roce-vf"): what a precondition may cite as showing the
  /// plugin on the cluster; an export of Nodes only holds none.
  std::map<std::string, std::string> cni_used_by;
  /// Every NAD range and IPPool subnet the export holds, and with one profile per group the
  /// ranges drafted for the groups before this one: the drafted ranges keep clear of them.
  std::vector<std::string> exported_ranges;
  std::string fabric = "roce-v2", fabric_from;  ///< infiniband when the PFs' linkType is IB
  std::vector<std::string> namespaces;          ///< --namespace; empty: a TODO placeholder
  std::string namespaces_from;
  Adoption adoption;  ///< OpenShift: what runs already (adopt.h)
};

/// Infers the profile of the largest GPU node group (with `all_groups`, one profile per group,
/// largest first). Reports an error and returns none when the export holds no GPU node;
/// warnings for what is inconsistent. `where` locates findings about the export as a whole;
/// `namespaces` are the workload's (--namespace): their pods are not another team's.
std::vector<DiscoveredProfile> Infer(const ClusterFacts& facts, const SourceLocation& where,
                                     bool all_groups, const std::vector<std::string>& namespaces,
                                     DiagnosticSink& sink);

/// A node's kubernetes.io/hostname label, what node_shape.exclude_nodes names (its name without
/// one).
std::string HostOf(const NodeFacts& node);

/// Taints the draft neither tolerates nor reads as a node's owner: the node lifecycle's
/// (node.kubernetes.io/*, node.cloudprovider*), which come and go, and hkimgen's own health
/// taint (hkimgen.io/*), which the workload avoids on purpose.
bool TransientTaint(const std::string& key);

/// The pods the draft runs: one per node of the group that is not excluded, at most
/// kMaxDraftReplicas (the schema's maximum for one job).
inline constexpr long long kMaxDraftReplicas = 4096;
long long DraftReplicas(const DiscoveredProfile& profile);

/// Nodes of `profile.group` that are another team's, into `profile.excluded`, each reason one
/// `discover.other-team` warning naming the nodes: GPU or RDMA pods of a namespace that is not
/// one of `namespaces` nor the platform's (unless that namespace runs on most of the group), a
/// taint most of the group lacks that the draft does not tolerate, an owner mark (a label or
/// taint whose key ends in team, tenant, owner, dedicated, reserved or project) whose value is
/// not most nodes', a name whose last word is not most nodes'. Never every node of the group:
/// then none is excluded and the warning says so. Part of Infer, in its own file.
void InferOtherTeams(const ClusterFacts& facts, const std::vector<std::string>& namespaces,
                     DiscoveredProfile& profile, DiagnosticSink& sink);

/// Rails of `profile.group` (SR-IOV states, device-plugin resources, NADs, IPPools) and the
/// workload namespaces; part of Infer, in its own file.
void InferRails(const ClusterFacts& facts, const SourceLocation& where, DiscoveredProfile& profile,
                DiagnosticSink& sink);

}  // namespace hkim::discover
