// Layering: extends:, -f and --set merge rules, per-layer locations and provenance.
#include "layering/layering.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "load/load.h"
#include "support/input_limits.h"

namespace hkim {
namespace {

using nlohmann::json;

LoadedProfile Load(const std::string& path, const std::string& text) {
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText(path, text, sink);
  EXPECT_TRUE(loaded) << path;
  return loaded ? *loaded : LoadedProfile{};
}

LayeredProfile Merge(std::vector<LoadedProfile> layers, DiagnosticSink* sink_out = nullptr) {
  DiagnosticSink sink;
  auto merged = MergeLayers(std::move(layers), sink_out ? *sink_out : sink);
  EXPECT_TRUE(merged || sink_out);
  return merged ? *merged : LayeredProfile{};
}

constexpr const char* kBase = R"(cluster:
  platform: openshift
nccl:
  ib_tc: 106
  cross_nic: 0
  extra_env:
    NCCL_PROTO: Simple
    NCCL_ALGO: Ring
network:
  rails:
    - name: eno5np0
      mtu_bytes: 9000
      ipam: {type: whereabouts, range: 10.0.103.0/24}
    - name: eno6np0
      mtu_bytes: 9000
      ipam: {type: whereabouts, range: 10.0.104.0/24}
workload:
  command: [sleep, infinity]
)";

TEST(Layering, MapsMergeDeeplyAndScalarsOfTheUpperLayerWin) {
  LayeredProfile l = Merge({Load("base.yaml", kBase), Load("p.yaml", R"(extends: base.yaml
cluster:
  name: lab
nccl:
  ib_tc: 41
)")});
  const json& d = l.merged.document;
  EXPECT_EQ(d["cluster"], json({{"name", "lab"}, {"platform", "openshift"}}));
  EXPECT_EQ(d["nccl"]["ib_tc"], 41);
  EXPECT_EQ(d["nccl"]["cross_nic"], 0);
  EXPECT_EQ(d["nccl"]["extra_env"]["NCCL_ALGO"], "Ring");
  EXPECT_FALSE(d.contains("extends"));
}

TEST(Layering, NamedListItemsMergeByNameAndNewNamesAreAppended) {
  LayeredProfile l = Merge({Load("base.yaml", kBase), Load("p.yaml", R"(network:
  rails:
    - name: eno6np0
      mtu_bytes: 4200
    - name: eno7np0
      ipam: {type: whereabouts, range: 10.0.105.0/24}
)")});
  const json& rails = l.merged.document["network"]["rails"];
  ASSERT_EQ(rails.size(), 3u);
  EXPECT_EQ(rails[0]["name"], "eno5np0");
  EXPECT_EQ(rails[1]["name"], "eno6np0");
  EXPECT_EQ(rails[1]["mtu_bytes"], 4200);
  EXPECT_EQ(rails[1]["ipam"]["range"], "10.0.104.0/24");  // kept from the base
  EXPECT_EQ(rails[2]["name"], "eno7np0");
}

TEST(Layering, ListsWithoutNamesAreReplacedWhole) {
  LayeredProfile l = Merge({Load("base.yaml", kBase), Load("p.yaml", R"(workload:
  command: [python, train.py]
)")});
  EXPECT_EQ(l.merged.document["workload"]["command"], json({"python", "train.py"}));
}

TEST(Layering, NullRemovesAnInheritedKeyAndRemoveMarkerAnInheritedItem) {
  LayeredProfile l = Merge({Load("base.yaml", kBase), Load("p.yaml", R"(nccl:
  extra_env:
    NCCL_ALGO: null
network:
  rails:
    - name: eno5np0
      $remove: true
)")});
  const json& d = l.merged.document;
  EXPECT_FALSE(d["nccl"]["extra_env"].contains("NCCL_ALGO"));
  EXPECT_TRUE(d["nccl"]["extra_env"].contains("NCCL_PROTO"));
  ASSERT_EQ(d["network"]["rails"].size(), 1u);
  EXPECT_EQ(d["network"]["rails"][0]["name"], "eno6np0");
  // The remaining item moved from index 1 to 0: its locations moved with it.
  EXPECT_EQ(l.merged.locations.Find("/network/rails/0/mtu_bytes").line, 15);
  EXPECT_EQ(l.merged.locations.Find("/network/rails/0/mtu_bytes").file, "base.yaml");
}

TEST(Layering, NullWithNothingBelowStaysForTheSchemaToReport) {
  LayeredProfile l = Merge({Load("p.yaml", "workload:\n  image:\n")});
  ASSERT_TRUE(l.merged.document["workload"].contains("image"));
  EXPECT_TRUE(l.merged.document["workload"]["image"].is_null());
}

TEST(Layering, RemovingAnItemNoLayerDefinesIsAnErrorAtTheMarker) {
  DiagnosticSink sink;
  Merge({Load("base.yaml", kBase), Load("p.yaml", R"(network:
  rails:
    - name: eno9np0
      $remove: true
)")},
        &sink);
  ASSERT_EQ(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "layering.remove-missing");
  EXPECT_EQ(d.location.file, "p.yaml");
  EXPECT_EQ(d.location.line, 4);
  EXPECT_EQ(d.location.column, 7);
}

TEST(Layering, LocationsPointAtTheLayerThatSetEachValue) {
  LayeredProfile l = Merge({Load("base.yaml", kBase), Load("p.yaml", "nccl:\n  ib_tc: 41\n")});
  SourceLocation tc = l.merged.locations.Find("/nccl/ib_tc");
  EXPECT_EQ(tc.file, "p.yaml");
  EXPECT_EQ(tc.line, 2);
  EXPECT_EQ(tc.column, 10);
  SourceLocation cross = l.merged.locations.Find("/nccl/cross_nic");
  EXPECT_EQ(cross.file, "base.yaml");
  EXPECT_EQ(cross.line, 5);
  EXPECT_EQ(cross.column, 14);
}

TEST(Layering, OriginsListEveryLayerThatSetAValueInOrder) {
  LayeredProfile l = Merge({Load("base.yaml", kBase), Load("p.yaml", "nccl:\n  ib_tc: 41\n")});
  const std::vector<ValueOrigin>& origins = l.origins.at("/nccl/ib_tc");
  ASSERT_EQ(origins.size(), 2u);
  EXPECT_EQ(origins[0].layer, 0);
  EXPECT_EQ(origins[0].location.file, "base.yaml");
  EXPECT_EQ(origins[0].location.line, 4);
  EXPECT_EQ(origins[1].layer, 1);
  EXPECT_EQ(origins[1].location.line, 2);
  ASSERT_EQ(l.origins.at("/nccl/cross_nic").size(), 1u);
}

TEST(Layering, SetAssignmentsAreTypedAndLocatedInTheirArgument) {
  LayeredProfile l = Merge({Load("base.yaml", kBase)});
  DiagnosticSink sink;
  ASSERT_TRUE(ApplySetAssignments(
      {"nccl.ib_tc=41", "nccl.debug=INFO", "network.rails[name=eno6np0].mtu_bytes=4200",
       "network.rails[1].ipam.range=10.0.114.0/24", "workload.command={python,train.py}",
       "nccl.cross_nic=null", "nccl.extra_env.NCCL_IB_HCA==mlx5_6\\,mlx5_7", "cluster.name=\"007\""},
      l, sink));
  EXPECT_EQ(sink.diagnostics().size(), 0u);
  const json& d = l.merged.document;
  EXPECT_EQ(d["nccl"]["ib_tc"], 41);
  EXPECT_EQ(d["nccl"]["debug"], "INFO");
  EXPECT_EQ(d["network"]["rails"][1]["mtu_bytes"], 4200);
  EXPECT_EQ(d["network"]["rails"][1]["ipam"]["range"], "10.0.114.0/24");
  EXPECT_EQ(d["workload"]["command"], json({"python", "train.py"}));
  EXPECT_FALSE(d["nccl"].contains("cross_nic"));
  EXPECT_EQ(d["nccl"]["extra_env"]["NCCL_IB_HCA"], "=mlx5_6,mlx5_7");
  EXPECT_EQ(d["cluster"]["name"], "007");
  SourceLocation at = l.merged.locations.Find("/network/rails/1/mtu_bytes");
  EXPECT_EQ(at.file, "--set");
  EXPECT_EQ(at.line, 3);
  EXPECT_EQ(at.column, 39);
  EXPECT_EQ(l.layers.back().path, "--set");
  EXPECT_EQ(l.origins.at("/nccl/ib_tc").size(), 2u);
}

TEST(Layering, SetValuesThatAreDecimalNumbersBecomeNumbersAndTheRestStayText) {
  LayeredProfile l = Merge({Load("base.yaml", kBase)});
  DiagnosticSink sink;
  ASSERT_TRUE(ApplySetAssignments({"x.a=+7", "x.b=-7", "x.c=1e3", "x.d=.5", "x.e=0x10",
                                   "x.f=1.2.3", "x.g=", "x.h='12'", "x.i=99999999999999999999"},
                                  l, sink));
  EXPECT_EQ(sink.diagnostics().size(), 0u);
  const json& x = l.merged.document["x"];
  EXPECT_EQ(x["a"], 7);
  EXPECT_EQ(x["b"], -7);
  EXPECT_TRUE(x["c"].is_number_float());
  EXPECT_EQ(x["c"], 1000.0);
  EXPECT_EQ(x["d"], 0.5);
  EXPECT_EQ(x["e"], "0x10");  // as before: only decimal forms are numbers in --set
  EXPECT_EQ(x["f"], "1.2.3");
  EXPECT_EQ(x["g"], "");
  EXPECT_EQ(x["h"], "12");
  EXPECT_TRUE(x["i"].is_number_float());  // beyond 64 bits: still a number
}

TEST(Layering, SetStopsReportingAfterTheErrorLimitOfAFile) {
  // `--set a,,,,...`: every comma starts an assignment without '=', each an error quoting the
  // argument. Like a file's loader, the --set layer stops after the error limit and says where.
  LayeredProfile l = Merge({Load("base.yaml", kBase)});
  DiagnosticSink sink;
  const std::string commas = "a" + std::string(3 * limits::kMaxFileErrors, ',');
  EXPECT_FALSE(ApplySetAssignments({commas, "nccl.debug=INFO"}, l, sink));
  ASSERT_EQ(sink.ErrorCount(), static_cast<int>(limits::kMaxFileErrors) + 1);
  const Diagnostic& last = sink.diagnostics().back();
  EXPECT_EQ(last.rule, "limit.errors");
  EXPECT_EQ(last.location.file, kSetLayerFile);
  EXPECT_EQ(last.location.line, static_cast<int>(limits::kMaxFileErrors) + 1);
  EXPECT_NE(last.message.find(std::to_string(limits::kMaxFileErrors)), std::string::npos);
  // Below the limit every error is still reported, and nothing is applied.
  DiagnosticSink few;
  EXPECT_FALSE(ApplySetAssignments({"a,,", "b"}, l, few));
  EXPECT_EQ(few.ErrorCount(), 4);
  for (const Diagnostic& d : few.diagnostics()) EXPECT_NE(d.rule, "limit.errors");
}

TEST(Layering, SetRefusesANameNoItemHasAndNamesTheClosest) {
  // rails[name=eno9] with a typo names no rail: refused, never appended silently.
  LayeredProfile l = Merge({Load("base.yaml", kBase)});
  DiagnosticSink sink;
  EXPECT_FALSE(ApplySetAssignments({"network.rails[name=eno6np1].mtu_bytes=9000"}, l, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "layering.set-syntax");
  EXPECT_EQ(d.message,
            "`network.rails[name=eno6np1].mtu_bytes`: no item of network.rails is named 'eno6np1' "
            "(eno5np0, eno6np0)");
  EXPECT_EQ(d.fix,
            "did you mean eno6np0? To add an item, give its index: network.rails[2].name=eno6np1");
}

TEST(Layering, SetAddsAnItemByIndexAndNamesItInAnEmptyList) {
  LayeredProfile l = Merge({Load("base.yaml", kBase)});
  DiagnosticSink sink;
  ASSERT_TRUE(ApplySetAssignments(
      {"network.rails[2].name=eno7np0", "network.rails[name=eno7np0].mtu_bytes=9000",
       "extra[name=a].b=1"},
      l, sink));
  const json& rails = l.merged.document["network"]["rails"];
  ASSERT_EQ(rails.size(), 3u);
  EXPECT_EQ(rails[2], json({{"name", "eno7np0"}, {"mtu_bytes", 9000}}));
  EXPECT_EQ(l.merged.document["extra"], json::array({{{"name", "a"}, {"b", 1}}}));
}

TEST(Layering, MalformedSetAssignmentsAreLocatedErrors) {
  LayeredProfile l = Merge({Load("base.yaml", kBase)});
  DiagnosticSink sink;
  EXPECT_FALSE(ApplySetAssignments(
      {"nccl.ib_tc", "network.rails[7].mtu_bytes=1", "a..b=1", "nccl.ib_tc[0]=1"}, l, sink));
  ASSERT_EQ(sink.ErrorCount(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(sink.diagnostics()[i].rule, "layering.set-syntax");
    EXPECT_EQ(sink.diagnostics()[i].location.file, "--set");
    EXPECT_EQ(sink.diagnostics()[i].location.line, i + 1);
  }
  EXPECT_NE(sink.diagnostics()[1].message.find("past the end of a list of 2"), std::string::npos);
}

TEST(Layering, UserPathsAndPointersConvertBothWays) {
  json doc = json::parse(R"({"network": {"rails": [{"name": "a"}, {"name": "b"}]}})");
  std::string error;
  EXPECT_EQ(UserPathToPointer("network.rails[name=b].mtu_bytes", doc, &error),
            "/network/rails/1/mtu_bytes");
  EXPECT_EQ(UserPathToPointer("network.rails[b]", doc, &error), "/network/rails/1");
  EXPECT_EQ(UserPathToPointer("network.rails[0].ipam.range", doc, &error),
            "/network/rails/0/ipam/range");
  EXPECT_EQ(UserPathToPointer("/network/rails/0", doc, &error), "/network/rails/0");
  EXPECT_EQ(UserPathToPointer("network.rails[name=zz]", doc, &error), std::nullopt);
  EXPECT_NE(error.find("no item named 'zz'"), std::string::npos);
  EXPECT_EQ(PointerToDotted("/network/rails/0/ipam/range"), "network.rails[0].ipam.range");
  EXPECT_EQ(PointerToDotted("/workload/resources/requests/nvidia.com~1gpu"),
            "workload.resources.requests.nvidia\\.com/gpu");
}

// Files on disk: extends chains, -f, cycles, and errors that sit in a base.
class LayeringFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hkim-layering-" + std::to_string(getpid()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "base");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

TEST_F(LayeringFiles, ExtendsChainsApplyDeepestBaseFirstThenExtraFilesThenSet) {
  Write("base/platform.yaml", "nccl:\n  ib_tc: 1\n  ib_sl: 1\n  ib_timeout: 1\n  debug: WARN\n");
  Write("base/shape.yaml", "extends: platform.yaml\nnccl:\n  ib_sl: 2\n  ib_timeout: 2\n");
  std::string profile = Write("p.yaml", "extends: base/shape.yaml\nnccl:\n  ib_timeout: 3\n");
  std::string extra = Write("extra.yaml", "nccl:\n  debug: INFO\n");
  DiagnosticSink sink;
  SourceTexts sources;
  auto l = LoadLayeredProfile({profile, {extra}, {"nccl.ib_tc=9"}}, sink, &sources);
  ASSERT_TRUE(l) << (sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message);
  const json& nccl = l->merged.document["nccl"];
  EXPECT_EQ(nccl, json({{"ib_tc", 9}, {"ib_sl", 2}, {"ib_timeout", 3}, {"debug", "INFO"}}));
  ASSERT_EQ(l->layers.size(), 5u);
  EXPECT_EQ(std::filesystem::path(l->layers[0].path).filename(), "platform.yaml");
  EXPECT_EQ(l->layers[2].path, profile);
  EXPECT_EQ(l->merged.path, profile);
  EXPECT_EQ(sources.size(), 5u);
  EXPECT_EQ(sources.at("--set"), std::vector<std::string>{"nccl.ib_tc=9"});
}

TEST_F(LayeringFiles, ErrorsInABaseAreLocatedInTheBase) {
  Write("base/broken.yaml", "nccl:\n  ib_tc: 1\n  ib_tc: 2\n");
  std::string profile = Write("p.yaml", "extends: base/broken.yaml\n");
  DiagnosticSink sink;
  SourceTexts sources;
  EXPECT_FALSE(LoadLayeredProfile({profile, {}, {}}, sink, &sources));
  ASSERT_GE(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(std::filesystem::path(d.location.file).filename(), "broken.yaml");
  EXPECT_EQ(d.location.line, 3);
  EXPECT_EQ(sources.count(d.location.file), 1u);  // its lines are there for the caret
}

TEST_F(LayeringFiles, AMissingBaseIsReportedAtTheExtendsValue) {
  std::string profile = Write("p.yaml", "cluster: {name: x}\nextends: base/nope.yaml\n");
  DiagnosticSink sink;
  EXPECT_FALSE(LoadLayeredProfile({profile, {}, {}}, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "layering.extends-missing");
  EXPECT_EQ(sink.diagnostics()[0].location.file, profile);
  EXPECT_EQ(sink.diagnostics()[0].location.line, 2);
  EXPECT_EQ(sink.diagnostics()[0].location.column, 10);
}

TEST_F(LayeringFiles, ACycleOfBasesIsAnError) {
  Write("base/a.yaml", "extends: b.yaml\n");
  Write("base/b.yaml", "extends: a.yaml\n");
  std::string profile = Write("p.yaml", "extends: base/a.yaml\n");
  DiagnosticSink sink;
  EXPECT_FALSE(LoadLayeredProfile({profile, {}, {}}, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "layering.extends-cycle");
  EXPECT_EQ(std::filesystem::path(sink.diagnostics()[0].location.file).filename(), "b.yaml");
}

TEST_F(LayeringFiles, ASingleFileLoadsUnchanged) {
  const std::string text = "cluster:\n  name: x\nnccl:\n  ib_tc: 41\n";
  std::string profile = Write("p.yaml", text);
  DiagnosticSink sink;
  auto l = LoadLayeredProfile({profile, {}, {}}, sink);
  ASSERT_TRUE(l);
  auto plain = LoadProfile(profile, sink);
  ASSERT_TRUE(plain);
  EXPECT_EQ(l->merged.document, plain->document);
  EXPECT_EQ(l->merged.locations.values.size(), plain->locations.values.size());
  for (const auto& [pointer, at] : plain->locations.values) {
    EXPECT_EQ(l->merged.locations.values.at(pointer).line, at.line) << pointer;
    EXPECT_EQ(l->merged.locations.values.at(pointer).column, at.column) << pointer;
  }
}

/// Every field of `a` and `b` that merging records: document, locations (values and keys),
/// origins, layers.
void ExpectSameMerge(const LayeredProfile& a, const LayeredProfile& b, const std::string& what) {
  auto same_location = [](const SourceLocation& x, const SourceLocation& y) {
    return x.file == y.file && x.line == y.line && x.column == y.column;
  };
  EXPECT_EQ(a.merged.document, b.merged.document) << what;
  for (auto [x, y] : {std::pair{&a.merged.locations.values, &b.merged.locations.values},
                      std::pair{&a.merged.locations.keys, &b.merged.locations.keys}}) {
    ASSERT_EQ(x->size(), y->size()) << what;
    for (auto i = x->begin(), j = y->begin(); i != x->end(); ++i, ++j) {
      EXPECT_EQ(i->first, j->first) << what;
      EXPECT_TRUE(same_location(i->second, j->second)) << what << " " << i->first;
    }
  }
  ASSERT_EQ(a.origins.size(), b.origins.size()) << what;
  for (auto i = a.origins.begin(), j = b.origins.begin(); i != a.origins.end(); ++i, ++j) {
    EXPECT_EQ(i->first, j->first) << what;
    ASSERT_EQ(i->second.size(), j->second.size()) << what << " " << i->first;
    for (size_t k = 0; k < i->second.size(); ++k) {
      EXPECT_EQ(i->second[k].layer, j->second[k].layer) << what << " " << i->first;
      EXPECT_TRUE(same_location(i->second[k].location, j->second[k].location))
          << what << " " << i->first;
    }
  }
  ASSERT_EQ(a.layers.size(), b.layers.size()) << what;
}

TEST_F(LayeringFiles, AProfileOfOneLayerMergesAsTheGeneralMergeWould) {
  std::vector<std::string> profiles = {
      Write("shapes.yaml", "a: {}\nb: []\nc: null\nd: [[1, [2]], {x: ~}, '']\n"
                           "\"k/with~marks\": {\"0\": zero, \"\": empty}\n"
                           "rails:\n  - name: r1\n    $remove: false\n  - {name: r2}\n"),
      Write("flow.yaml", "{cluster: {name: x}, nccl: {extra_env: {A: '1'}}}\n"),
      Write("remove.yaml", "rails:\n  - name: r1\n    $remove: true\n")};
  for (const char* dir : {"profiles", "tests/generator/lint_cases", "tests/generator/malformed"}) {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::filesystem::path(HKIM_SOURCE_DIR) / dir)) {
      if (entry.path().extension() == ".yaml") profiles.push_back(entry.path().string());
    }
  }
  size_t compared = 0;
  for (const std::string& profile : profiles) {
    DiagnosticSink sink, general_sink;
    std::optional<LayeredProfile> layered = LoadLayeredProfile({profile, {}, {}}, sink);
    std::optional<LoadedProfile> loaded = LoadProfile(profile, general_sink);
    if (!loaded || !layered || layered->layers.size() != 1) continue;  // bases: the general merge
    std::optional<LayeredProfile> general = MergeLayers({*loaded}, general_sink);
    ASSERT_EQ(general.has_value(), layered.has_value()) << profile;
    EXPECT_EQ(sink.ErrorCount(), general_sink.ErrorCount()) << profile;
    ExpectSameMerge(*layered, *general, profile);
    ++compared;
  }
  EXPECT_GT(compared, 10u);
}

TEST_F(LayeringFiles, ARemoveMarkerInTheOnlyLayerIsStillAnError) {
  std::string profile = Write("p.yaml", "rails:\n  - name: r1\n    $remove: true\n");
  DiagnosticSink sink;
  EXPECT_FALSE(LoadLayeredProfile({profile, {}, {}}, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "layering.remove-missing");
}

}  // namespace
}  // namespace hkim
