// Model stage, second half: the cross-field checks the schema cannot express (rule ids
// "model.*"), run on the typed profile and located through the profile's source map.

#include "model/checks.h"

#include <cstdint>
#include <map>
#include <vector>
#include <set>
#include <string>
#include <utility>

#include "load/report_at.h"
#include "support/ipv4_network.h"

namespace hkim {

void ReportModelError(const LoadedProfile& loaded, DiagnosticSink& sink, const std::string& pointer,
                      const std::string& rule, const std::string& message, const std::string& fix) {
  ReportAt(loaded, pointer, Severity::kError, rule, message, fix, sink);
}

namespace {

class Checker {
 public:
  Checker(const LoadedProfile& loaded, DiagnosticSink& sink) : loaded_(loaded), sink_(sink) {}
  void Run(const Profile& p);
  int errors() const { return errors_; }

 private:
  // The rails: unique names, NADs and resources, each rail's IPAM, what a pod attaches. Returns
  // the rails' resource names (-> the rail that requests each).
  std::map<std::string, std::string> CheckRails(const Profile& p);
  void CheckWhereaboutsRail(const Profile& p, size_t i,
                            const std::vector<std::vector<size_t>>& overlaps);
  void CheckNvIpamRail(const Rail& rail);
  void CheckPlatform(const Profile& p);
  void CheckGeneratedSettings(const Profile& p,
                              const std::map<std::string, std::string>& resources);
  void CheckNccl(const Profile& p);
  void CheckHealthCheckAndTopology(const Profile& p);
  void Error(const std::string& pointer, const std::string& rule, const std::string& message,
             const std::string& fix) {
    ReportModelError(loaded_, sink_, pointer, rule, message, fix);
    ++errors_;
  }

  const LoadedProfile& loaded_;
  DiagnosticSink& sink_;
  int errors_ = 0;
};

bool CidrsOverlap(const std::string& left, const std::string& right) {
  const std::optional<Ipv4Network> a = ParseCidr(left), b = ParseCidr(right);
  return a && b && a->Overlaps(*b);
}

// Which whereabouts rails' ranges overlap which (both ways), to report each collision once.
std::vector<std::vector<size_t>> RangeOverlaps(const Profile& p) {
  std::vector<std::vector<size_t>> overlaps(p.network.rails.size());
  for (size_t i = 0; i < p.network.rails.size(); ++i) {
    const Rail& a = p.network.rails[i];
    if (a.ipam.type != IpamType::kWhereabouts || a.ipam.range.empty()) continue;
    for (size_t j = 0; j < p.network.rails.size(); ++j) {
      const Rail& b = p.network.rails[j];
      if (j != i && b.ipam.type == IpamType::kWhereabouts && !b.ipam.range.empty() &&
          CidrsOverlap(a.ipam.range, b.ipam.range))
        overlaps[i].push_back(j);
    }
  }
  return overlaps;
}

void Checker::Run(const Profile& p) {
  if (p.workload.gpus_per_pod > p.node_shape.gpus_per_node) {
    Error("/workload/gpus_per_pod", "model.gpus-per-pod",
          "gpus_per_pod (" + std::to_string(p.workload.gpus_per_pod) +
              ") is more than node_shape.gpus_per_node (" +
              std::to_string(p.node_shape.gpus_per_node) + "); the pods can never be scheduled",
          "lower gpus_per_pod to at most " + std::to_string(p.node_shape.gpus_per_node));
  }

  const std::map<std::string, std::string> resources = CheckRails(p);
  CheckPlatform(p);
  CheckGeneratedSettings(p, resources);
  CheckNccl(p);
  CheckHealthCheckAndTopology(p);
}

std::map<std::string, std::string> Checker::CheckRails(const Profile& p) {
  std::map<std::string, std::string> rail_names, nad_names, resources;
  int attachments = 0;
  const std::vector<std::vector<size_t>> overlaps = RangeOverlaps(p);
  for (size_t i = 0; i < p.network.rails.size(); ++i) {
    const Rail& rail = p.network.rails[i];
    if (!rail_names.emplace(rail.name, rail.pointer).second) {
      Error(rail.pointer + "/name", "model.duplicate-rail",
            "rail name '" + rail.name + "' is also used by " + rail_names[rail.name],
            "give every rail its own name");
    }
    if (!nad_names.emplace(rail.nad_name, rail.pointer).second) {
      Error(rail.pointer + "/nad_name", "model.duplicate-nad",
            "NetworkAttachmentDefinition '" + rail.nad_name + "' is also defined by " +
                nad_names[rail.nad_name],
            "give every rail its own nad_name (or rail name)");
    }
    if (!resources.emplace(rail.resource_name, rail.pointer).second) {
      Error(rail.pointer + "/resource_name", "model.duplicate-resource",
            "resource '" + rail.resource_name + "' is also requested by " +
                resources[rail.resource_name],
            "use one rail with attachments_per_pod > 1 for several VFs of one resource");
    }
    attachments += rail.attachments_per_pod;
    if (rail.ipam.type == IpamType::kWhereabouts) {
      CheckWhereaboutsRail(p, i, overlaps);
    } else {
      CheckNvIpamRail(rail);
    }
  }
  if (p.workload.mode == WorkloadMode::kRdma) {
    if (p.network.rails.empty()) {
      Error("/network", "model.rdma-without-rails",
            "workload.mode is rdma but network.rails is empty",
            "describe the rails, or set workload.mode: tcp");
    }
    if (attachments > p.node_shape.nics_per_node) {
      Error("/network/rails", "model.too-many-attachments",
            "a pod attaches " + std::to_string(attachments) + " rail interfaces but a node has " +
                std::to_string(p.node_shape.nics_per_node) + " (node_shape.nics_per_node)",
            "lower attachments_per_pod or raise nics_per_node");
    }
  }
  return resources;
}

void Checker::CheckWhereaboutsRail(const Profile& p, size_t i,
                                   const std::vector<std::vector<size_t>>& overlaps) {
  const Rail& rail = p.network.rails[i];
  if (rail.ipam.range.empty()) {
    Error(rail.ipam.pointer, "model.ipam-range", "a whereabouts rail needs an ipam.range",
          "add range: 10.0.103.0/24 (one subnet per rail)");
  }
  if (rail.ipam.pool) {
    Error(rail.ipam.pointer + "/pool", "model.ipam-pool", "ipam.pool is for nv-ipam only",
          "remove pool, or set type: nv-ipam");
  }
  // Report each collision once, at the rail that causes it: a rail overlapping more rails
  // than its partner does (one widened range: at that range, not at the 7 it covers), and
  // between equals (copies of one range) at the later one, naming the earlier.
  const std::vector<size_t>& mine = overlaps[i];
  std::vector<size_t> blamed;
  for (size_t j : mine) {
    if (overlaps[j].size() < mine.size() || (overlaps[j].size() == mine.size() && j < i))
      blamed.push_back(j);
  }
  if (!blamed.empty()) {
    const Rail& other = p.network.rails[blamed.front()];
    std::string more;
    for (size_t k = 1; k < blamed.size(); ++k)
      more += (k == 1 ? "" : ", ") + ("'" + p.network.rails[blamed[k]].name + "'");
    Error(rail.ipam.pointer + "/range", "model.ipam-overlap",
          "range " + rail.ipam.range + " overlaps " + other.ipam.range + " of rail '" +
              other.name + "'" +
              (blamed.size() > 1 ? " and the ranges of rails " + more : std::string()) +
              "; two rails sharing addresses made 8-node runs hang",
          "give every rail its own subnet");
  }
}

void Checker::CheckNvIpamRail(const Rail& rail) {
  if (!rail.ipam.pool) {
    Error(rail.ipam.pointer, "model.ipam-pool", "an nv-ipam rail needs an ipam.pool",
          "add pool: {name: default, subnet: 192.168.0.0/16, per_node_block_size: 100}");
  } else if (rail.ipam.pool->per_node_block_size < rail.attachments_per_pod) {
    Error(rail.ipam.pool->pointer + "/per_node_block_size", "model.ipam-block-size",
          "per_node_block_size " + std::to_string(rail.ipam.pool->per_node_block_size) +
              " is smaller than the " + std::to_string(rail.attachments_per_pod) +
              " addresses one pod takes",
          "raise per_node_block_size to at least " + std::to_string(rail.attachments_per_pod));
  }
  if (!rail.ipam.range.empty()) {
    Error(rail.ipam.pointer + "/range", "model.ipam-range",
          "ipam.range is for whereabouts; nv-ipam takes its subnet from the pool",
          "move the subnet to ipam.pool.subnet");
  }
}

void Checker::CheckPlatform(const Profile& p) {
  // The planners render every rail as an Ethernet SR-IOV network (the sriov CNI with VLAN and
  // spoof check, RoCE GIDs): an InfiniBand rail needs the SR-IOV operator's
  // SriovIBNetwork/ib-sriov CNI (no VLAN, a GUID per VF), which nothing renders yet.
  if (p.network.fabric == Fabric::kInfiniBand && !p.network.rails.empty()) {
    Error("/network/fabric", "model.fabric-infiniband",
          "network.fabric: infiniband is not rendered yet: the rails' NADs would be Ethernet "
          "SR-IOV networks (type sriov, VLAN and spoof check), which give a pod no usable "
          "InfiniBand port",
          "use fabric: roce-v2 where the rails are Ethernet (RoCE) ConnectX ports; InfiniBand "
          "rails (the SR-IOV operator's ib-sriov networks) are not supported yet");
  }
  if (!p.IsOpenShift()) {
    if (!p.network.rails.empty() && !p.network.sriov_device_plugin) {
      Error("/network", "model.sriov-device-plugin",
            "on " + std::string(ToString(p.platform)) +
                " the rails' resource comes from the NicClusterPolicy, but "
                "network.sriov_device_plugin is missing",
            "add sriov_device_plugin: {resource_name: sriov_rdma_vf, device_ids: [\"101e\"]}");
    }
    if (p.network.sriov_device_plugin) {
      const std::string resource = p.network.sriov_device_plugin->ExtendedResourceName();
      for (const Rail& rail : p.network.rails) {
        if (rail.resource_name != resource) {
          Error(rail.pointer + "/resource_name", "model.resource-mismatch",
                "rail resource '" + rail.resource_name + "' is not the device plugin's resource '" +
                    resource + "'",
                "set resource_name: " + resource);
        }
      }
    }
    if (p.security.memlock_strategy == MemlockStrategy::kSysResourceScc) {
      Error("/security/memlock_strategy", "model.memlock-platform",
            "sys-resource-scc needs an OpenShift SCC; " + std::string(ToString(p.platform)) +
                " has none",
            "use crio-ulimits (CRI-O default_ulimits on the node pool) or privileged");
    }
    if (p.network.rdma_netns == RdmaNetns::kShared) {
      Error("/network/rdma_netns", "model.rdma-netns-platform",
            "the " + std::string(ToString(p.platform)) +
                " bundle's NADs chain the rdma CNI (sriov, tuning, rdma, sbr, as OCI's own), which "
                "needs exclusive mode; shared is the OpenShift bundle's (NADs without the rdma CNI)",
            "use exclusive (the VF DaemonSet switches the nodes) or already-exclusive");
    }
    if (p.iommu.policy == IommuPolicy::kPassthrough) {
      Error("/iommu/policy", "model.iommu-platform",
            "iommu passthrough is rendered as a MachineConfig, which only OpenShift has",
            "set the kernel arguments in the node image and use already-configured");
    }
  } else {
    if (p.network.sriov_device_plugin || p.network.nv_ipam) {
      Error(p.network.sriov_device_plugin ? "/network/sriov_device_plugin" : "/network/nv_ipam",
            "model.openshift-network-operator",
            "sriov_device_plugin and nv_ipam render a NicClusterPolicy, used on oke/kubernetes; "
            "on OpenShift the SR-IOV Network Operator provides the resources",
            "remove it, or set cluster.platform: oke");
    }
  }
}

// Requests and variables the generator sets itself must not also come from the profile.
void Checker::CheckGeneratedSettings(const Profile& p,
                                     const std::map<std::string, std::string>& resources) {
  for (const auto* map : {&p.workload.resource_requests, &p.workload.resource_limits}) {
    const char* which = map == &p.workload.resource_requests ? "requests" : "limits";
    for (const auto& [name, value] : *map) {
      if (name == "nvidia.com/gpu" || resources.count(name)) {
        Error("/workload/resources/" + std::string(which) + "/" + EscapeJsonPointerToken(name),
              "model.generated-resource",
              "'" + name + "' is set by hkimgen from gpus_per_pod and the rails",
              "remove it from workload.resources");
      }
    }
  }
  for (const auto& [name, value] : p.workload.env) {
    if (name == "MASTER_ADDR" || name == "MASTER_PORT" || name.rfind("HKIM_", 0) == 0) {
      Error("/workload/env/" + EscapeJsonPointerToken(name), "model.reserved-env",
            "'" + name + "' is set by hkimgen (pod runtime contract)",
            "remove it from workload.env");
    }
  }
}

void Checker::CheckNccl(const Profile& p) {
  if (p.network.fabric == Fabric::kInfiniBand && p.nccl.gid_policy == GidPolicy::kIndex) {
    Error("/nccl/gid_policy", "model.gid-infiniband",
          "NCCL_IB_GID_INDEX selects a RoCE GID; on an InfiniBand fabric NCCL uses GID 0",
          "use gid_policy: auto (or fabric: roce-v2 if the rails are RoCE)");
  }
  if (p.nccl.gid_policy == GidPolicy::kIndex && !p.nccl.gid_index) {
    Error("/nccl/gid_policy", "model.gid-index", "gid_policy is index but gid_index is missing",
          "add gid_index: 3, or use gid_policy: auto");
  }
  if (p.nccl.gid_policy == GidPolicy::kAuto && p.nccl.gid_index) {
    Error("/nccl/gid_index", "model.gid-index",
          "gid_index is set but gid_policy is auto, so it would be ignored",
          "set gid_policy: index, or remove gid_index");
  }
  for (const auto& [name, value] : p.nccl.extra_env) {
    static const std::set<std::string> kTyped = {
        "NCCL_IB_GID_INDEX", "NCCL_IB_TC",         "NCCL_IB_SL",
        "NCCL_IB_TIMEOUT",   "NCCL_IB_RETRY_CNT",  "NCCL_IB_QPS_PER_CONNECTION",
        "NCCL_CROSS_NIC",    "NCCL_NET_GDR_LEVEL", "NCCL_DMABUF_ENABLE",
        "NCCL_IB_HCA",       "NCCL_SOCKET_IFNAME", "NCCL_SOCKET_NTHREADS",
        "NCCL_DEBUG",        "NCCL_TOPO_FILE",     "NCCL_IB_SPLIT_DATA_ON_QPS",
        "NCCL_IB_DISABLE"};
    if (kTyped.count(name) || name.rfind("HKIM_", 0) == 0) {
      Error("/nccl/extra_env/" + EscapeJsonPointerToken(name), "model.extra-env-typed",
            "'" + name + "' has its own setting (or is set by hkimgen); extra_env would hide it",
            "use the nccl setting for it instead of extra_env");
    }
  }
}

void Checker::CheckHealthCheckAndTopology(const Profile& p) {
  if (p.health_check.at_bytes > p.health_check.max_bytes) {
    Error("/health_check/at_bytes", "model.health-check-size",
          "at_bytes is larger than max_bytes, so the threshold size is never tried",
          "make max_bytes at least at_bytes");
  }
  if (p.workload.mode == WorkloadMode::kTcp && p.health_check.transport.rfind("NET/IB", 0) == 0) {
    Error("/health_check/transport", "model.health-check-transport",
          "tcp mode disables IB, so a check requiring NET/IB always fails",
          "use transport NET/Socket or any");
  }
  if (p.workload.mode == WorkloadMode::kRdma && p.node_shape.topology.preset != "none" &&
      !p.node_shape.topology.empty()) {
    int gpus = 0;
    for (const NumaNode& n : p.node_shape.topology.numa_nodes)
      for (const PcieSwitch& s : n.pcie_switches) gpus += static_cast<int>(s.gpu_bus_ids.size());
    if (gpus != p.node_shape.gpus_per_node) {
      Error(p.node_shape.topology.pointer, "model.topology-gpus",
            "the topology describes " + std::to_string(gpus) + " GPUs but gpus_per_node is " +
                std::to_string(p.node_shape.gpus_per_node),
            "pick the preset of this shape, or describe every GPU");
    }
  }
}

}  // namespace

int CheckProfile(const Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink) {
  Checker checker(loaded, sink);
  checker.Run(profile);
  return checker.errors();
}

}  // namespace hkim
