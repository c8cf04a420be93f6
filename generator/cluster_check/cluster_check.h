#pragma once

// `--cluster EXPORT`: a profile (and the bundle it plans) compared with a live cluster's export,
// the same read-only `kubectl get … -o json` that `discover` reads. Each mismatch is reported at
// the profile line it concerns and names the cluster object (`Node/gpu-r2-n01`) with its place
// in the export; a per-node table says what each GPU node has. Reads nothing from disk.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "discover/cluster_facts.h"
#include "discover/export_load.h"
#include "model/node_fit.h"
#include "load/load.h"
#include "model/model.h"
#include "plan/plan.h"
#include "support/diagnostics.h"
#include "support/diagnostics_format.h"
#include "support/object_id.h"

namespace hkim::cluster_check {

/// A loaded export: its objects, the facts discover reads from them, and an index of every
/// object by its identity (for takeover) and of the kinds it holds (a check whose
/// kind the export lacks says so instead of failing).
/// Objects the checks look up by identity.
inline constexpr const char* kMachineConfigGroup = "machineconfiguration.openshift.io";
inline const ObjectId kClusterVersion{"config.openshift.io", "ClusterVersion", "", "version"};

struct ClusterExport {
  discover::ExportSet set;
  discover::ClusterFacts facts;
  std::map<ObjectId, const discover::ExportObject*> by_id;
  std::set<std::string> kinds;
  std::string label;  ///< the first input's name, for messages
};

/// Parses the exports (errors to `sink`, located in the export); nullptr when none parsed.
/// `sources` receives the exports' lines for the formatter.
std::unique_ptr<ClusterExport> LoadClusterExport(std::vector<discover::ExportInput> inputs,
                                                 DiagnosticSink& sink,
                                                 SourceTexts* sources = nullptr);

/// One node of the cluster as one profile sees it.
struct NodeRow {
  std::string node;
  int gpus = 0;
  bool picked = false;
  int rails_ok = 0, rails_total = 0;
  std::vector<std::string> rails_missing;  ///< "rail0: ens1f0np0"
  int vfs = -1;                            ///< VFs on the rails' PFs; -1 unknown (no node state)
  std::map<std::string, long long> resources;  ///< requested resource -> advertised capacity
  std::set<std::string> others;  ///< other namespaces whose pods use GPUs or RDMA on the node
  bool ok = true;                ///< no error about this node
  bool unhealthy = false;        ///< marked failed by the health check: the pods avoid it
};

struct ProfileReport {
  std::string profile;  ///< the profile's path as given
  std::vector<NodeRow> nodes;  ///< picked nodes and unpicked GPU nodes, by name
  std::set<std::string> picked;
  std::set<std::string> excluded;  ///< GPU nodes named in node_shape.exclude_nodes
};

/// Compares one profile, and the bundle planned from it, with the cluster. `merged` locates the
/// profile's fields. Errors: the profile does not describe this cluster, or a sync would collide
/// with what runs there; warnings: it may not (a GPU node left out, a pool that reboots);
/// notes: what the bundle will create itself (VFs, resources) or what the export cannot show.
ProfileReport CheckProfile(const Profile& profile, const BundlePlan& plan,
                           const LoadedProfile& merged, const ClusterExport& cluster,
                           DiagnosticSink& sink);

/// After every profile: GPU nodes no profile picks (a warning at the first profile's selector).
void CheckUnpickedNodes(const std::vector<ProfileReport>& reports, const Profile& first,
                        const LoadedProfile& first_merged, const ClusterExport& cluster,
                        DiagnosticSink& sink);

/// The per-node table (text) and the same as JSON.
std::string FormatNodeTable(const ProfileReport& report);
nlohmann::json NodeTableJson(const ProfileReport& report);

}  // namespace hkim::cluster_check
