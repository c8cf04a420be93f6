#pragma once

// Plan stage, the bundle as a picture: the parent Application, the Applications it creates
// (one per layer, and the OKE operator charts) in the order they sync, each one's sync waves and
// the kinds in each with their counts, who syncs each Application (itself, or a person with
// `argocd app sync`) and the worst a sync of its objects does (plan/disruption.h). Read from the
// plan, never from rendered files: `render --tree` prints it, `-o json` gives it as JSON, and
// the bundle's README draws it as a Mermaid flowchart.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/model.h"
#include "plan/disruption.h"
#include "plan/plan.h"

namespace hkim {

/// The objects of one kind in one sync wave of an Application.
struct GraphKind {
  std::string kind;
  size_t count = 0;
  Disruption disrupts = Disruption::kNone;  ///< the worst a change of one of them does
};

/// One sync wave of an Application, its kinds sorted by name.
struct GraphWave {
  int wave = 0;
  std::vector<GraphKind> kinds;
};

/// An Application the parent creates.
struct GraphApplication {
  std::string name;
  std::string layer;    ///< platform, nodes, health, workload, or "operator chart"
  std::string file;     ///< its file in the bundle (apps/...)
  int parent_wave = 0;  ///< its sync wave in the parent: the order the Applications sync in
  bool self_sync = false;
  Disruption disrupts = Disruption::kNone;  ///< the worst of its objects (or its chart)
  std::string chart;             ///< an operator chart's "chart version" ("" for a layer)
  std::vector<GraphWave> waves;  ///< a layer's objects by wave; empty for a chart
};

/// The whole picture.
struct BundleGraph {
  std::string parent;  ///< the parent Application's name (application.yaml)
  bool parent_self_sync = false;
  std::string self_sync_setting;               ///< gitops.self_sync
  std::vector<GraphApplication> applications;  ///< by parent wave, then name
};

/// The graph of `plan` (call once the layers are planned: PlanLayers).
BundleGraph GraphOfBundle(const Profile& profile, const BundlePlan& plan);

/// "argocd app sync NAME" or "syncs itself": who syncs an Application.
std::string WhoSyncs(const std::string& name, bool self_sync);

/// The tree as text, one line per Application, wave and kind (ASCII branches, as `tree
/// --charset ascii` draws them), each Application with who syncs it and what it disrupts.
std::string FormatBundleTree(const BundleGraph& graph);

/// The same as JSON: {"parent", "parent_self_sync", "self_sync", "applications": [{"name",
/// "layer", "file", "parent_wave", "self_sync", "sync", "disrupts", "chart", "waves": [{"wave",
/// "kinds": [{"kind", "count", "disrupts"}]}]}]}.
nlohmann::json BundleGraphToJson(const BundleGraph& graph);

/// The README template's context for the Mermaid flowchart: "graph_nodes" [{id, label}],
/// "graph_edges" [{from, to, has_label, label}], "graph_manual" (the ids of the Applications
/// that wait for a person, comma-separated) and "has_graph_manual".
void BundleGraphContext(const BundleGraph& graph, nlohmann::json& context);

}  // namespace hkim
