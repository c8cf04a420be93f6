// Plan stage, the bundle as a picture (plan/bundle_graph.h): `render --tree`'s text, its JSON
// and the README's Mermaid flowchart, all from the plan.
#include "plan/bundle_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "plan/plan.h"
#include "test_files.h"

namespace hkim {
namespace {

Profile Shipped(const std::string& name) {
  return test_files::BuildFrom(test_files::ReadProfile(name));
}

TEST(BundleGraph, TheTreeListsApplicationsInSyncOrderWithWhoSyncsAndWhatTheyDisrupt) {
  const Profile profile = Shipped("barcelona-h100-cx7");
  const BundlePlan plan = PlanBundle(profile);
  EXPECT_EQ(
      FormatBundleTree(GraphOfBundle(profile, plan)),
      R"(Application barcelona (application.yaml): argocd app sync barcelona; it creates these, which sync in this order (gitops.self_sync: namespaces)
|-- barcelona-platform (platform, apps/platform.yaml, parent wave 0): argocd app sync barcelona-platform
|   |-- wave 3
|   |   |-- Namespace (2)
|   |   `-- SecurityContextConstraints (1)
|   `-- wave 4
|       |-- ClusterRole (1)
|       |-- ClusterRoleBinding (1)
|       |-- PriorityClass (1)
|       |-- ValidatingAdmissionPolicy (1)
|       `-- ValidatingAdmissionPolicyBinding (1)
|-- barcelona-health (health, apps/health.yaml, parent wave 1): argocd app sync barcelona-health
|   |-- wave 4
|   |   |-- ConfigMap (1)
|   |   |-- NetworkAttachmentDefinition (4)
|   |   |-- Role (2)
|   |   |-- RoleBinding (2)
|   |   `-- ServiceAccount (2)
|   |-- wave 5
|   |   `-- ConfigMap (1)
|   `-- wave 7
|       `-- CronJob (1)
`-- barcelona-workload (workload, apps/workload.yaml, parent wave 2): syncs itself; disrupts: job restart
    |-- wave 4
    |   |-- NetworkAttachmentDefinition (4)
    |   |-- Role (1)
    |   |-- RoleBinding (1)
    |   `-- ServiceAccount (1)
    |-- wave 5
    |   `-- ConfigMap (1)
    |-- wave 6
    |   `-- Service (1)
    `-- wave 7
        `-- StatefulSet (1): job restart
)");
}

TEST(BundleGraph, OperatorChartsSyncFirstAndEachLayersKindsAddUpToItsObjects) {
  const Profile profile = Shipped("oke-h100");
  const BundlePlan plan = PlanBundle(profile);
  const BundleGraph graph = GraphOfBundle(profile, plan);
  ASSERT_FALSE(graph.applications.empty());
  // The charts (parent wave 0) before the layers, which sync after every chart.
  std::vector<std::string> layers;
  for (const GraphApplication& app : graph.applications) layers.push_back(app.layer);
  EXPECT_EQ(layers, (std::vector<std::string>{"operator chart", "operator chart", "operator chart",
                                              "operator chart", "platform", "nodes", "health",
                                              "workload"}));
  for (size_t a = 1; a < graph.applications.size(); ++a)
    EXPECT_LE(graph.applications[a - 1].parent_wave, graph.applications[a].parent_wave);
  // Every object of a layer is counted once, in its own wave.
  for (const GraphApplication& app : graph.applications) {
    size_t counted = 0, planned = 0;
    for (const GraphWave& wave : app.waves)
      for (const GraphKind& kind : wave.kinds) {
        counted += kind.count;
        size_t of_kind = 0;
        for (const PlannedObject& o : plan.objects)
          of_kind += o.layer == app.layer && o.sync_wave == wave.wave && o.kind == kind.kind;
        EXPECT_EQ(kind.count, of_kind) << app.name << " wave " << wave.wave << " " << kind.kind;
      }
    for (const PlannedObject& o : plan.objects) planned += o.layer == app.layer;
    if (app.layer != "operator chart") EXPECT_EQ(counted, planned) << app.name;
  }
  // The default self_sync (namespaces): only the workload syncs itself.
  for (const GraphApplication& app : graph.applications)
    EXPECT_EQ(app.self_sync, app.layer == "workload") << app.name;
  EXPECT_FALSE(graph.parent_self_sync);
}

TEST(BundleGraph, SelfSyncEverythingMakesEveryApplicationAndTheParentSyncThemselves) {
  const Profile profile = test_files::BuildFrom(test_files::Replace(
      test_files::ReadProfile("oke-h100"), "gitops:\n", "gitops:\n  self_sync: everything\n"));
  const BundleGraph graph = GraphOfBundle(profile, PlanBundle(profile));
  EXPECT_TRUE(graph.parent_self_sync);
  for (const GraphApplication& app : graph.applications) EXPECT_TRUE(app.self_sync) << app.name;
  EXPECT_NE(FormatBundleTree(graph).find("Application oke-h100 (application.yaml): syncs itself"),
            std::string::npos);
}

TEST(BundleGraph, JsonIsTheSameGraph) {
  const Profile profile = Shipped("oke-h100");
  const BundleGraph graph = GraphOfBundle(profile, PlanBundle(profile));
  const nlohmann::json json = BundleGraphToJson(graph);
  EXPECT_EQ(json["parent"], "oke-h100");
  EXPECT_EQ(json["self_sync"], "namespaces");
  ASSERT_EQ(json["applications"].size(), graph.applications.size());
  for (size_t a = 0; a < graph.applications.size(); ++a) {
    const GraphApplication& app = graph.applications[a];
    const nlohmann::json& entry = json["applications"][a];
    EXPECT_EQ(entry["name"], app.name);
    EXPECT_EQ(entry["layer"], app.layer);
    EXPECT_EQ(entry["file"], app.file);
    EXPECT_EQ(entry["parent_wave"], app.parent_wave);
    EXPECT_EQ(entry["self_sync"], app.self_sync);
    EXPECT_EQ(entry["sync"], app.self_sync ? "syncs itself" : "argocd app sync " + app.name);
    EXPECT_EQ(entry["disrupts"], ToString(app.disrupts));
    EXPECT_EQ(entry["chart"], app.chart);
    ASSERT_EQ(entry["waves"].size(), app.waves.size());
    for (size_t w = 0; w < app.waves.size(); ++w) {
      EXPECT_EQ(entry["waves"][w]["wave"], app.waves[w].wave);
      ASSERT_EQ(entry["waves"][w]["kinds"].size(), app.waves[w].kinds.size());
      for (size_t k = 0; k < app.waves[w].kinds.size(); ++k) {
        const GraphKind& kind = app.waves[w].kinds[k];
        EXPECT_EQ(entry["waves"][w]["kinds"][k],
                  (nlohmann::json{{"kind", kind.kind},
                                  {"count", kind.count},
                                  {"disrupts", ToString(kind.disrupts)}}));
      }
    }
  }
  // The GPU Operator's chart rolls the driver when its driver values change; the nodes layer
  // holds what resets VFs.
  EXPECT_EQ(graph.applications[0].name, "oke-h100-gpu-operator");
  EXPECT_EQ(graph.applications[0].chart.rfind("gpu-operator v", 0), 0u)
      << graph.applications[0].chart;
}

// The committed bundles (tests hold them current): their README draws every Application the
// bundle holds, and marks the ones that wait for a person.
TEST(BundleGraph, EveryShippedReadmeDrawsEveryApplicationInAMermaidFlowchart) {
  namespace fs = std::filesystem;
  for (const std::string& name : test_files::ShippedProfiles()) {
    const fs::path bundle = fs::path(HKIM_SOURCE_DIR) / "out" / name;
    const std::string readme = test_files::ReadFile((bundle / "README.md").string());
    const size_t start = readme.find("\n```mermaid\nflowchart LR\n");
    ASSERT_NE(start, std::string::npos) << name;
    const std::string block = readme.substr(start, readme.find("\n```\n", start + 1) - start);
    std::vector<fs::path> files = {bundle / "application.yaml"};  // the parent
    for (const auto& entry : fs::directory_iterator(bundle / "apps")) files.push_back(entry.path());
    std::set<std::string> applications;
    for (const fs::path& file : files) {
      const std::string text = test_files::ReadFile(file.string());
      std::smatch match;
      ASSERT_TRUE(std::regex_search(text, match, std::regex("\nmetadata:\n  name: ([a-z0-9-]+)\n")))
          << file;
      applications.insert(match[1]);
    }
    for (const std::string& app : applications)
      EXPECT_NE(block.find("[\"" + app + "<br/>"), std::string::npos) << name << ": " << app;
    EXPECT_NE(block.find("classDef manual stroke-dasharray"), std::string::npos) << name;
  }
}

// The same bundles' "Watching the sync" block syncs every Application that does not sync itself
// (no `automated:` in its apps/ file), in the parent's sync waves, then by name.
TEST(BundleGraph, EveryShippedReadmeSyncsEachManualApplicationInItsOrder) {
  namespace fs = std::filesystem;
  for (const std::string& name : test_files::ShippedProfiles()) {
    const fs::path bundle = fs::path(HKIM_SOURCE_DIR) / "out" / name;
    std::vector<std::pair<int, std::string>> manual;
    for (const auto& entry : fs::directory_iterator(bundle / "apps")) {
      const std::string text = test_files::ReadFile(entry.path().string());
      if (text.find("\n    automated:\n") != std::string::npos) continue;
      std::smatch app, wave;
      ASSERT_TRUE(std::regex_search(text, app, std::regex("\nmetadata:\n  name: ([a-z0-9-]+)\n")));
      ASSERT_TRUE(std::regex_search(text, wave, std::regex("sync-wave: \"([0-9]+)\"")));
      manual.push_back({std::stoi(wave[1]), app[1]});
    }
    std::sort(manual.begin(), manual.end());
    std::string expected;
    for (const auto& [wave, app] : manual) expected += "argocd app sync " + app + " --async\n";
    const std::string readme = test_files::ReadFile((bundle / "README.md").string());
    const size_t watching = readme.find("## Watching the sync");
    ASSERT_NE(watching, std::string::npos) << name;
    std::string synced;
    const std::regex sync("\nargocd app sync [a-z0-9-]+ --async\n");
    const std::string block = readme.substr(watching, readme.find("\n```\n", watching) - watching);
    for (auto it = std::sregex_iterator(block.begin(), block.end(), sync);
         it != std::sregex_iterator(); ++it)
      synced += it->str().substr(1);
    EXPECT_EQ(synced, expected) << name;
  }
}

TEST(BundleGraph, MermaidLabelsCannotEndTheirQuotes) {
  BundleGraph graph;
  graph.parent = "p";
  GraphApplication app;
  app.name = "a\"]-->x[\"<b>";
  app.layer = "platform";
  app.file = "apps/platform.yaml";
  graph.applications.push_back(app);
  nlohmann::json context;
  BundleGraphContext(graph, context);
  EXPECT_EQ(context["graph_nodes"][1]["label"],
            "a#quot;]--#gt;x[#quot;#lt;b#gt;<br/>platform<br/>argocd app sync "
            "a#quot;]--#gt;x[#quot;#lt;b#gt;");
}

}  // namespace
}  // namespace hkim
