#pragma once

// Model part of fabric-aware placement (profile section `scheduling`): Kueue
// topology-aware scheduling of the workload's StatefulSet. Read by model/model.cc through
// ReadScheduling; planned by plan/scheduling.cc; templates in templates/kueue/.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "load/load.h"
#include "support/diagnostics.h"

namespace hkim {

struct Profile;

/// OCI's RDMA fabric levels, outermost first, as OCI labels the nodes of a cluster network
/// (oracle-quickstart/oci-hpc-oke terraform/files/kueue/topology.yaml).
inline constexpr const char* kOciHpcIslandLabel = "oci.oraclecloud.com/rdma.hpc_island_id";
inline constexpr const char* kOciNetworkBlockLabel = "oci.oraclecloud.com/rdma.network_block_id";
inline constexpr const char* kOciLocalBlockLabel = "oci.oraclecloud.com/rdma.local_block_id";
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

enum class TopologyPlacement { kRequired, kPreferred };
const char* ToString(TopologyPlacement value);  ///< "required", "preferred"

/// scheduling.kueue with every default applied.
struct KueueScheduling {
  std::vector<std::string> levels;  ///< node labels, outermost first
  bool levels_set = false;          ///< the profile names them (else the platform's default)
  std::string level;                ///< the level the job's pods share; one of levels
  TopologyPlacement placement = TopologyPlacement::kRequired;
  std::string queue;          ///< LocalQueue name (every namespace)
  std::string cluster_queue;  ///< ClusterQueue, ResourceFlavor and Topology name
  std::string api_version;    ///< kueue.x-k8s.io/v1beta2 or v1beta1, from the Kueue release
  std::string pointer = "/scheduling/kueue";

  /// The pod template annotation that names `level`.
  std::string TopologyAnnotation() const {
    return placement == TopologyPlacement::kRequired ? "kueue.x-k8s.io/podset-required-topology"
                                                     : "kueue.x-k8s.io/podset-preferred-topology";
  }
};

struct Scheduling {
  std::optional<KueueScheduling> kueue;
  std::string pointer = "/scheduling";
};

/// The kueue.x-k8s.io API version to render for a Kueue release ("v0.19.2"): v1beta2 from v0.15
/// (served from v0.15, storage from v0.16: kubernetes-sigs/kueue #7304, #8020), v1beta1 on
/// v0.14 (topology-aware scheduling beta and on by default); nullopt before v0.14 or for a
/// version that does not parse.
std::optional<std::string> KueueApiVersion(const std::string& kueue_version);

/// Reads the schema-valid `scheduling` section (`section` absent: no scheduling) into
/// `profile.scheduling`, applying the platform's defaults (the profile's cluster, workload and
/// operators are read already). Reports model.scheduling-* errors located through `loaded`;
/// returns their number.
int ReadScheduling(const nlohmann::json* section, const LoadedProfile& loaded,
                   DiagnosticSink& sink, Profile& profile);

}  // namespace hkim
