// Plan stage, the bundle as a picture (plan/bundle_graph.h). Every fact comes from the plan and
// the tables it was made with: layers and their waves (plan/layers.cc), who syncs what
// (SyncsItself), what a change disrupts (plan/disruption.h).

#include "plan/bundle_graph.h"

#include <algorithm>
#include <map>

#include "plan/layers.h"

namespace hkim {
namespace {

using nlohmann::json;

std::string KindLine(const GraphKind& kind) {
  std::string line = kind.kind + " (" + std::to_string(kind.count) + ")";
  if (kind.disrupts != Disruption::kNone) line += ": " + std::string(ToString(kind.disrupts));
  return line;
}

std::string ApplicationLine(const GraphApplication& app) {
  std::string line = app.name + " (" + app.layer;
  if (!app.chart.empty()) line += " " + app.chart;
  line += ", " + app.file + ", parent wave " + std::to_string(app.parent_wave) +
          "): " + WhoSyncs(app.name, app.self_sync);
  if (app.disrupts != Disruption::kNone)
    line += "; disrupts: " + std::string(ToString(app.disrupts));
  return line;
}

// A Mermaid label is one double-quoted string: no quote or angle bracket of a value may end it
// or open a tag (Mermaid's entity codes stand for them); "<br/>" breaks the lines.
std::string MermaidText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"') {
      out += "#quot;";
    } else if (c == '<') {
      out += "#lt;";
    } else if (c == '>') {
      out += "#gt;";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string MermaidLabel(const std::vector<std::string>& lines) {
  std::string label;
  for (const std::string& line : lines) label += (label.empty() ? "" : "<br/>") + MermaidText(line);
  return label;
}

}  // namespace

std::string WhoSyncs(const std::string& name, bool self_sync) {
  return self_sync ? "syncs itself" : "argocd app sync " + name;
}

BundleGraph GraphOfBundle(const Profile& p, const BundlePlan& plan) {
  BundleGraph graph;
  graph.parent = plan.application.name;
  graph.parent_self_sync = ParentSyncsItself(p);
  graph.self_sync_setting = ToString(p.gitops.self_sync);
  for (const PlannedObject& f : plan.layer_files) {
    if (f.kind != "Application") continue;
    GraphApplication app;
    app.name = f.name;
    app.file = f.file_name;
    // apps/<layer>.yaml (plan/layers.cc)
    app.layer = f.file_name.substr(std::string(kAppsLayer).size() + 1);
    app.layer = app.layer.substr(0, app.layer.rfind('.'));
    app.parent_wave = f.sync_wave;
    app.self_sync = SyncsItself(p, ScopeOfLayer(app.layer));
    // std::map: waves by number, kinds by name.
    std::map<int, std::map<std::string, GraphKind>> waves;
    for (const PlannedObject& o : plan.objects) {
      if (o.layer != app.layer) continue;
      GraphKind& kind = waves[o.sync_wave][o.kind];
      kind.kind = o.kind;
      ++kind.count;
      kind.disrupts = std::max(kind.disrupts, WorstWrittenDisruptionOf(o.kind, o.template_name));
      app.disrupts = std::max(app.disrupts, kind.disrupts);
    }
    for (auto& [number, kinds] : waves) {
      GraphWave wave{number, {}};
      for (auto& [name, kind] : kinds) wave.kinds.push_back(std::move(kind));
      app.waves.push_back(std::move(wave));
    }
    graph.applications.push_back(std::move(app));
  }
  for (const PlannedObject& o : plan.objects) {
    if (o.layer != kAppsLayer || o.kind != "Application") continue;
    GraphApplication app;
    app.name = o.name;
    app.file = o.file_name;
    app.layer = "operator chart";
    app.parent_wave = o.sync_wave;
    app.self_sync = SyncsItself(p, ScopeOf(o.kind, o.template_name));
    app.disrupts = WorstWrittenDisruptionOf(o.kind, o.template_name);
    if (o.chart) app.chart = o.chart->chart + " " + o.chart->version;
    graph.applications.push_back(std::move(app));
  }
  std::stable_sort(graph.applications.begin(), graph.applications.end(),
                   [](const GraphApplication& a, const GraphApplication& b) {
                     return a.parent_wave != b.parent_wave ? a.parent_wave < b.parent_wave
                                                           : a.name < b.name;
                   });
  return graph;
}

std::string FormatBundleTree(const BundleGraph& graph) {
  std::string out =
      "Application " + graph.parent +
      " (application.yaml): " + WhoSyncs(graph.parent, graph.parent_self_sync) +
      "; it creates these, which sync in this order (gitops.self_sync: " + graph.self_sync_setting +
      ")\n";
  for (size_t a = 0; a < graph.applications.size(); ++a) {
    const GraphApplication& app = graph.applications[a];
    const bool last_app = a + 1 == graph.applications.size();
    out += (last_app ? "`-- " : "|-- ") + ApplicationLine(app) + "\n";
    const std::string app_indent = last_app ? "    " : "|   ";
    for (size_t w = 0; w < app.waves.size(); ++w) {
      const GraphWave& wave = app.waves[w];
      const bool last_wave = w + 1 == app.waves.size();
      out +=
          app_indent + (last_wave ? "`-- " : "|-- ") + "wave " + std::to_string(wave.wave) + "\n";
      const std::string wave_indent = app_indent + (last_wave ? "    " : "|   ");
      for (size_t k = 0; k < wave.kinds.size(); ++k)
        out += wave_indent + (k + 1 == wave.kinds.size() ? "`-- " : "|-- ") +
               KindLine(wave.kinds[k]) + "\n";
    }
  }
  return out;
}

json BundleGraphToJson(const BundleGraph& graph) {
  json applications = json::array();
  for (const GraphApplication& app : graph.applications) {
    json waves = json::array();
    for (const GraphWave& wave : app.waves) {
      json kinds = json::array();
      for (const GraphKind& kind : wave.kinds)
        kinds.push_back(
            {{"kind", kind.kind}, {"count", kind.count}, {"disrupts", ToString(kind.disrupts)}});
      waves.push_back({{"wave", wave.wave}, {"kinds", std::move(kinds)}});
    }
    applications.push_back({{"name", app.name},
                            {"layer", app.layer},
                            {"file", app.file},
                            {"parent_wave", app.parent_wave},
                            {"self_sync", app.self_sync},
                            {"sync", WhoSyncs(app.name, app.self_sync)},
                            {"disrupts", ToString(app.disrupts)},
                            {"chart", app.chart},
                            {"waves", std::move(waves)}});
  }
  return {{"parent", graph.parent},
          {"parent_self_sync", graph.parent_self_sync},
          {"self_sync", graph.self_sync_setting},
          {"applications", std::move(applications)}};
}

void BundleGraphContext(const BundleGraph& graph, json& context) {
  json nodes = json::array(), edges = json::array();
  std::string manual;
  nodes.push_back({{"id", "parent"},
                   {"label", MermaidLabel({graph.parent, "application.yaml",
                                           WhoSyncs(graph.parent, graph.parent_self_sync)})}});
  for (size_t a = 0; a < graph.applications.size(); ++a) {
    const GraphApplication& app = graph.applications[a];
    const std::string id = "app" + std::to_string(a);
    std::vector<std::string> label = {app.name,
                                      app.layer + (app.chart.empty() ? "" : " " + app.chart),
                                      WhoSyncs(app.name, app.self_sync)};
    if (app.disrupts != Disruption::kNone)
      label.push_back("disrupts: " + std::string(ToString(app.disrupts)));
    nodes.push_back({{"id", id}, {"label", MermaidLabel(label)}});
    edges.push_back({{"from", "parent"},
                     {"to", id},
                     {"has_label", true},
                     {"label", "wave " + std::to_string(app.parent_wave)}});
    if (!app.self_sync) manual += (manual.empty() ? "" : ",") + id;
    for (const GraphWave& wave : app.waves) {
      const std::string wave_id = id + "w" + std::to_string(wave.wave);
      std::vector<std::string> lines = {"wave " + std::to_string(wave.wave)};
      for (const GraphKind& kind : wave.kinds) lines.push_back(KindLine(kind));
      nodes.push_back({{"id", wave_id}, {"label", MermaidLabel(lines)}});
      edges.push_back({{"from", id}, {"to", wave_id}, {"has_label", false}, {"label", ""}});
    }
  }
  context["graph_nodes"] = std::move(nodes);
  context["graph_edges"] = std::move(edges);
  context["has_graph_manual"] = !manual.empty();
  context["graph_manual"] = manual;
}

}  // namespace hkim
