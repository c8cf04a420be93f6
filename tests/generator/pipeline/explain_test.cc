// explain: final value, the layers that set it, or "default", and the schema's description.
#include "pipeline/explain.h"

#include <gtest/gtest.h>

#include "load/load.h"

namespace hkim {
namespace {

LayeredProfile Layers(const std::vector<std::pair<std::string, std::string>>& files,
                      const std::vector<std::string>& sets = {}) {
  DiagnosticSink sink;
  std::vector<LoadedProfile> layers;
  for (const auto& [path, text] : files) layers.push_back(*LoadProfileFromText(path, text, sink));
  auto merged = MergeLayers(std::move(layers), sink);
  EXPECT_TRUE(merged);
  if (!sets.empty()) EXPECT_TRUE(ApplySetAssignments(sets, *merged, sink));
  return *merged;
}

const ProfileSchema& Schema() {
  DiagnosticSink sink;
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  EXPECT_NE(schema, nullptr);
  return *schema;
}

const std::pair<std::string, std::string> kBase = {"base/openshift.yaml", R"(nccl:
  ib_timeout: 22
  cross_nic: 0
network:
  rails:
    - name: eno5np0
      mtu_bytes: 9000
)"};

TEST(Explain, LayeredValueListsEveryLayerThatSetIt) {
  LayeredProfile l =
      Layers({kBase, {"p.yaml", "extends: base/openshift.yaml\nnccl:\n  ib_timeout: 23\n"}},
             {"nccl.ib_timeout=24"});
  DiagnosticSink sink;
  auto e = Explain(l, Schema(), "nccl.ib_timeout", sink);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->is_set);
  EXPECT_EQ(e->value, 24);
  ASSERT_EQ(e->set_by.size(), 3u);
  EXPECT_EQ(e->set_by[0].file, "base/openshift.yaml");
  EXPECT_EQ(e->set_by[0].line, 2);
  EXPECT_EQ(e->set_by[1].file, "p.yaml");
  EXPECT_EQ(e->set_by[1].line, 3);
  EXPECT_EQ(e->set_by[2].file, "--set");
  EXPECT_EQ(e->default_value, 20);
  EXPECT_NE(e->description.find("NCCL_IB_TIMEOUT"), std::string::npos);
  const std::string text = FormatExplanation(*e);
  EXPECT_NE(text.find("nccl.ib_timeout = 24\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  set by  base/openshift.yaml:2:15\n"), std::string::npos) << text;
  EXPECT_NE(text.find("--set:1:17   (final)\n"), std::string::npos) << text;
}

TEST(Explain, UnsetValueComesFromTheSchemaDefault) {
  LayeredProfile l = Layers({kBase});
  DiagnosticSink sink;
  auto e = Explain(l, Schema(), "nccl.ib_qps_per_connection", sink);
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->is_set);
  EXPECT_EQ(e->value, 1);
  EXPECT_TRUE(e->set_by.empty());
  EXPECT_NE(FormatExplanation(*e).find("set by  default"), std::string::npos);
}

TEST(Explain, NamedListItemPathsResolveThroughLayers) {
  LayeredProfile l = Layers(
      {kBase, {"p.yaml", "network:\n  rails:\n    - name: eno5np0\n      mtu_bytes: 4200\n"}});
  DiagnosticSink sink;
  auto e = Explain(l, Schema(), "network.rails[name=eno5np0].mtu_bytes", sink);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->pointer, "/network/rails/0/mtu_bytes");
  EXPECT_EQ(e->value, 4200);
  ASSERT_EQ(e->set_by.size(), 2u);
  EXPECT_EQ(e->set_by[0].file, "base/openshift.yaml");
  EXPECT_EQ(e->set_by[1].file, "p.yaml");
  EXPECT_EQ(e->type, "integer");
  EXPECT_NE(e->constraints.find("576"), std::string::npos);
}

TEST(Explain, UnknownFieldSuggestsTheClosest) {
  LayeredProfile l = Layers({kBase});
  DiagnosticSink sink;
  EXPECT_FALSE(Explain(l, Schema(), "nccl.ib_timout", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "explain.unknown-path");
  EXPECT_EQ(sink.diagnostics()[0].fix, "did you mean 'nccl.ib_timeout'?");
}

TEST(Explain, MissingNamedItemIsABadPath) {
  LayeredProfile l = Layers({kBase});
  DiagnosticSink sink;
  EXPECT_FALSE(Explain(l, Schema(), "network.rails[name=eno9np0].mtu_bytes", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "explain.bad-path");
}

TEST(Explain, JsonFormCarriesTheProvenance) {
  LayeredProfile l = Layers({kBase});
  DiagnosticSink sink;
  auto e = Explain(l, Schema(), "nccl.cross_nic", sink);
  ASSERT_TRUE(e);
  nlohmann::json j = ExplanationToJson(*e);
  EXPECT_EQ(j["value"], 0);
  EXPECT_EQ(j["set"], true);
  EXPECT_EQ(j["set_by"][0]["file"], "base/openshift.yaml");
  EXPECT_EQ(j["set_by"][0]["line"], 3);
  EXPECT_EQ(j["default"], 2);
}

}  // namespace
}  // namespace hkim
