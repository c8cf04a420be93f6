// discover's export reader on hostile and unusual exports: positions from the parser
// for any shape of export, repeated findings folded, messages located and worded for an export.

#include "discover/export_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "discover/cluster_facts.h"
#include "discover/export_parse.h"
#include "test_files.h"

namespace hkim::discover {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Node(const std::string& name, const std::string& gpus = "\"8\"") {
  return "{\"kind\": \"Node\", \"metadata\": {\"name\": \"" + name +
         "\"}, \"status\": {\"capacity\": {\"nvidia.com/gpu\": " + gpus + "}}}";
}

ExportSet Load(const std::string& text, DiagnosticSink& sink, const std::string& path = "e.json") {
  return LoadExports({{path, text}}, sink);
}

std::vector<std::string> Rules(const DiagnosticSink& sink) {
  std::vector<std::string> rules;
  for (const Diagnostic& d : sink.diagnostics()) rules.push_back(d.rule);
  return rules;
}

// Each object's recorded start is its '{' and its line:column is that of the '{'.
void ExpectStartsAtBraces(const ExportSet& set) {
  for (const ExportObject& object : set.objects) {
    const std::string& text = set.texts[object.file];
    ASSERT_LT(object.offset, text.size());
    EXPECT_EQ(text[object.offset], '{') << object.pointer;
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < object.offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    EXPECT_EQ(object.start.line, line) << object.pointer;
    EXPECT_EQ(object.start.column, static_cast<int>(object.offset - line_start) + 1);
  }
}

TEST(ExportLoad, ObjectsOfListsInsideListsStartAtTheirBraces) {
  const std::string text = "{\"kind\": \"List\", \"items\": [\n  " + Node("a") +
                           ",\n  {\"kind\": \"NodeList\", \"apiVersion\": \"v1\",\n"
                           "   \"items\": [ 7, \"x\",\n      " + Node("b") + ", " + Node("c") +
                           "]},\n  " + Node("d", "8") + "\n]}\n";
  DiagnosticSink sink;
  ExportSet set = Load(text, sink);
  ASSERT_EQ(set.objects.size(), 4u);
  EXPECT_EQ(set.objects[1].pointer, "/items/1/items/2");
  EXPECT_EQ(set.objects[1].start.line, 5);
  ExpectStartsAtBraces(set);
}

// 5,000 nodes in a List inside a List: finding each object by scanning the text from its start
// would be quadratic; the parser's own positions make it one pass. The bound is generous.
TEST(ExportLoad, AListInsideAListOfFiveThousandNodesLoadsInOnePass) {
  std::string text = "{\"kind\": \"List\", \"items\": [{\"kind\": \"List\", \"items\": [\n";
  for (int i = 0; i < 5000; ++i) text += (i ? ",\n" : "") + Node("gpu-" + std::to_string(i));
  text += "]}]}\n";
  DiagnosticSink sink;
  const auto start = std::chrono::steady_clock::now();
  ExportSet set = Load(text, sink);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(set.objects.size(), 5000u);
  EXPECT_EQ(set.objects[4999].start.line, 5001);
  ExpectStartsAtBraces(set);
  EXPECT_LT(seconds, 5.0);  // 0.1 s here; the quadratic search took 30 s
}

// 100,000 items that are not objects: one warning, located at the first, with the count, not
// one per item (each would repeat the export command: megabytes).
TEST(ExportLoad, ItemsThatAreNotObjectsFoldIntoOneLocatedWarning) {
  std::string text = "{\"kind\": \"List\", \"items\": [\n";
  for (int i = 0; i < 100000; ++i) text += i ? ",1" : "  \"first\"";
  text += ",\n" + Node("a") + "]}";
  DiagnosticSink sink;
  ExportSet set = Load(text, sink);
  EXPECT_EQ(set.objects.size(), 1u);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const Diagnostic& d = sink.diagnostics().front();
  EXPECT_EQ(d.rule, "discover.not-an-object");
  EXPECT_EQ(d.message,
            "100000 items are not Kubernetes objects (no kind or metadata.name) and were skipped: "
            "/items/0, /items/1, /items/2 and 99997 more");
  EXPECT_EQ(d.location.line, 2);
  EXPECT_EQ(d.location.column, 3);
}

TEST(ExportLoad, ANumberNoDoubleHoldsIsLocatedOnItsLine) {
  std::string text = "{\"kind\": \"List\", \"items\": [\n";
  for (int i = 0; i < 38; ++i) text += Node("n" + std::to_string(i)) + ",\n";
  text += "  {\"kind\": \"Node\", \"metadata\": {\"name\": \"x\"}, \"spec\": {\"a\": 1e400}}]}";
  DiagnosticSink sink;
  Load(text, sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const Diagnostic& d = sink.diagnostics().front();
  EXPECT_EQ(d.rule, "yaml.number-range");
  EXPECT_EQ(d.location.line, 40);
  EXPECT_EQ(d.location.column, 61);
  EXPECT_EQ(d.message, "the number \"1e400\" is out of range: no double holds it");
}

TEST(ExportLoad, DuplicateKeysAreAnErrorAtTheSecondKey) {
  DiagnosticSink sink;
  Load("{\"kind\": \"List\",\n \"items\": [],\n \"items\": [" + Node("a") + "]}", sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const Diagnostic& d = sink.diagnostics().front();
  EXPECT_EQ(d.rule, "yaml.duplicate-key");
  EXPECT_EQ(d.location.line, 3);
  EXPECT_EQ(d.location.column, 2);
  EXPECT_EQ(d.message, "the key \"items\" appears twice in one object of the export");
}

TEST(ExportLoad, ARootThatIsNotAnObjectIsCalledAnExport) {
  DiagnosticSink json;
  Load("\n  [1, 2]", json);
  ASSERT_EQ(json.diagnostics().size(), 1u);
  EXPECT_EQ(json.diagnostics()[0].message,
            "the export is a JSON array, not a Kubernetes object or List");
  EXPECT_EQ(json.diagnostics()[0].location.line, 2);
  EXPECT_EQ(json.diagnostics()[0].location.column, 3);
  DiagnosticSink yaml;
  Load("- a\n- b\n", yaml, "e.yaml");
  ASSERT_FALSE(yaml.diagnostics().empty());
  for (const Diagnostic& d : yaml.diagnostics()) {
    EXPECT_THAT(d.message, Not(HasSubstr("profile")));
    EXPECT_THAT(d.fix, Not(HasSubstr("profile")));
  }
  EXPECT_EQ(yaml.diagnostics()[0].message, "the export must be a mapping of keys to values");
}

TEST(ExportLoad, AnUnterminatedHugeStringGivesAShortMessage) {
  DiagnosticSink sink;
  Load("{\"kind\": \"Node\", \"metadata\": {\"name\": \"" + std::string(3 << 20, 'A'), sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].rule, "yaml.syntax");
  EXPECT_LT(sink.diagnostics()[0].message.size() + sink.diagnostics()[0].fix.size(), 4096u);
}

TEST(ExportLoad, FieldsNoCheckReadsAreDroppedAndDeepValuesKeepTheirPlace) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "[";
  for (int i = 0; i < 100; ++i) deep += "]";
  ExportParseError error;
  std::optional<ParsedExport> parsed = ParseJsonExport(
      "{\"metadata\": {\"managedFields\": [1], \"name\": \"n\"}, \"a\": [1, " + deep + ", 3]}",
      &error);
  ASSERT_TRUE(parsed) << error.message;
  EXPECT_FALSE(parsed->document["metadata"].contains("managedFields"));
  EXPECT_EQ(parsed->document["a"].size(), 3u);
  EXPECT_EQ(parsed->document["a"][2], 3);
}

// A dense export's document can cost many times its text. The kept document may cost 8 bytes per
// byte of text (plus a floor, 0 here): the fixtures, trimmed exports with more small values per
// byte than a real one, stay within it; a dense one is refused where it passes the budget.
TEST(ExportLoad, ADenseExportIsRefusedWhereItsDocumentOutgrowsTheBudget) {
  ExportParseError error;
  for (const char* fixture : {"openshift-amd.json", "oke-intel.json"}) {
    const std::string real = test_files::ReadFile(
        std::filesystem::path(HKIM_SOURCE_DIR) / "tests/generator/discover" / fixture);
    EXPECT_TRUE(ParseJsonExport(real, &error, 0)) << fixture << ": " << error.message;
  }
  std::string dense = "{\"kind\": \"List\", \"items\": [{\"metadata\": {\"labels\": {";
  for (int i = 0; i < 100000; ++i) dense += (i ? ",\"" : "\"") + std::to_string(i) + "\":1";
  dense += "}}}]}";
  EXPECT_FALSE(ParseJsonExport(dense, &error, 0));
  EXPECT_EQ(error.rule, "limit.export-values");
  EXPECT_GT(error.offset, 1000u);  // where the budget ran out, not the start
  EXPECT_LT(error.offset, dense.size() * 3 / 4);
  EXPECT_THAT(error.message, HasSubstr("the export holds more values than hkimgen keeps"));
  EXPECT_TRUE(ParseJsonExport(dense, &error));  // the floor holds a small export whatever it is
}

// A GPU capacity of -5, "-5" or "1e99Ki" is no count: a warning at the field, not silently no
// GPUs.
TEST(ExportLoad, AGpuCapacityThatIsNotACountIsAWarningAtTheField) {
  const std::string text = "{\"kind\": \"List\", \"items\": [\n" + Node("a", "-5") + ",\n" +
                           Node("b", "\"-5\"") + ",\n" + Node("c", "\"1e99Ki\"") + ",\n" +
                           Node("d", "\"8\"") + "]}";
  DiagnosticSink sink;
  ExportSet set = Load(text, sink);
  ClusterFacts facts = ExtractFacts(set, sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const Diagnostic& d = sink.diagnostics().front();
  EXPECT_EQ(d.rule, "discover.gpu-capacity");
  EXPECT_EQ(d.location.line, 2);
  EXPECT_EQ(d.message,
            "Node \"a\" advertises nvidia.com/gpu capacity -5, which is not a count of GPUs; the "
            "node is read as having none; so are nodes \"b\" (\"-5\"), \"c\" (\"1e99Ki\")");
  EXPECT_EQ(facts.nodes.size(), 4u);
}

}  // namespace
}  // namespace hkim::discover
