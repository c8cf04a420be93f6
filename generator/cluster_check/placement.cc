// Fabric-aware placement against the cluster: how the picked nodes split over the
// level the job's pods share, and whether one domain holds every replica. Nodes lacking a level's
// label are counted here and named by the precondition check (preconditions.cc), since every
// level label is a node-label precondition.

#include <algorithm>
#include <map>

#include "cluster_check/findings.h"
#include "plan/health.h"

namespace hkim::cluster_check {
namespace {

using discover::NodeFacts;

/// Whether the pods may not run on the node (model/node_fit.h: marked failed by the health
/// check, or a taint they do not tolerate): the workload's affinity and the ResourceFlavor keep
/// them off it.
bool Unplaceable(const Profile& p, const NodeFacts& node) {
  return PodFit(p, node.labels, node.taints) != NodeFit::kFits;
}

/// "6 in oci.oraclecloud.com/rdma.network_block_id=A, 2 in ...=B, 1 marked unhealthy".
std::string Split(const std::string& level, const std::map<std::string, int>& domains,
                  const std::map<std::string, std::string>& shown, int unlabelled, int unhealthy) {
  std::vector<std::pair<int, std::string>> sizes;
  for (const auto& [domain, count] : domains) sizes.emplace_back(count, domain);
  // Largest first, then by name: the message reads the same on every run.
  std::sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string text;
  auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  constexpr size_t kNamed = 4;  // domains named; the rest are counted
  for (size_t i = 0; i < sizes.size() && i < kNamed; ++i)
    add(std::to_string(sizes[i].first) + " in " + level + "=" + shown.at(sizes[i].second));
  if (sizes.size() > kNamed)
    add(std::to_string(sizes.size() - kNamed) + " more " + level + " domains");
  if (unlabelled > 0) add(std::to_string(unlabelled) + " without the topology's labels");
  if (unhealthy > 0) add(std::to_string(unhealthy) + " marked failed or tainted against the pods");
  return text;
}

}  // namespace

void CheckPlacement(const Profile& p, const ClusterExport& cluster,
                    const std::vector<const NodeFacts*>& picked, Findings& findings) {
  if (!p.scheduling.kueue || picked.empty()) return;
  const KueueScheduling& k = *p.scheduling.kueue;
  const size_t depth =
      std::find(k.levels.begin(), k.levels.end(), k.level) - k.levels.begin();
  std::map<std::string, int> domains;           // domain path (outermost to level) -> nodes
  std::map<std::string, std::string> shown;     // domain path -> the level's value
  int unlabelled = 0, unhealthy = 0;
  for (const NodeFacts* node : picked) {
    // A node without a level's label: the precondition check names it (each level label is a
    // declared or implied node-label precondition, which the closure check requires).
    const bool labelled = std::all_of(k.levels.begin(), k.levels.end(), [&](const std::string& l) {
      return node->labels.count(l) > 0;
    });
    if (!labelled) {
      ++unlabelled;
      continue;
    }
    if (Unplaceable(p, *node)) {
      ++unhealthy;
      continue;
    }
    std::string path;
    for (size_t i = 0; i <= depth && i < k.levels.size(); ++i)
      path += node->labels.at(k.levels[i]) + "/";
    ++domains[path];
    shown[path] = node->labels.at(k.level);
  }
  int largest = 0;
  for (const auto& [domain, count] : domains) largest = std::max(largest, count);
  const int replicas = p.workload.replicas;
  const std::string split = std::to_string(picked.size()) + " nodes: " +
                            Split(k.level, domains, shown, unlabelled, unhealthy);
  const std::string object = "cluster " + cluster.label;
  // One pod per node (the workload's anti-affinity), so a domain holds as many pods as nodes.
  if (largest >= replicas) {
    findings.Add(Severity::kNote, "cluster.topology-fit", k.pointer + "/level", object,
                 split + ": replicas " + std::to_string(replicas) + " fit in one " + k.level +
                     " domain",
                 "");
    return;
  }
  const bool required = k.placement == TopologyPlacement::kRequired;
  findings.Add(required ? Severity::kError : Severity::kWarning, "cluster.topology-fit",
               k.pointer + "/level", object,
               split + ": replicas " + std::to_string(replicas) + " at level " + k.level +
                   (required ? " cannot be placed: Kueue keeps the job waiting"
                             : " do not fit in one domain: Kueue spreads them over several"),
               "lower workload.replicas to " + std::to_string(largest) +
                   ", name a wider scheduling.kueue.level, or set placement: preferred");
}

}  // namespace hkim::cluster_check
