#include "load.h"

#include <gtest/gtest.h>

#include "diagnostics_format.h"

namespace hkim {
namespace {

std::optional<LoadedProfile> Load(const std::string& text, DiagnosticSink& sink) {
  return LoadProfileFromText("p.yaml", text, sink);
}

std::string Errors(const DiagnosticSink& sink, const std::string& text) {
  SourceTexts sources;
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  sources["p.yaml"] = lines;
  return FormatDiagnostics(sink, sources);
}

TEST(Load, TypesPlainScalarsLikeYaml12Core) {
  DiagnosticSink sink;
  auto loaded = Load(
      "int: 9000\nneg: -3\nhex: 0x1A\nfloat: 1.5\nexp: 1e3\nyes_word: yes\nno_word: no\n"
      "on_word: on\nt: true\nf: False\nn: null\ntilde: ~\nempty:\nword: eno5np0\n"
      "version: 1.10\n",
      sink);
  ASSERT_TRUE(loaded) << Errors(sink, "");
  const nlohmann::json& d = loaded->document;
  EXPECT_EQ(d["int"], 9000);
  EXPECT_TRUE(d["int"].is_number_integer());
  EXPECT_EQ(d["neg"], -3);
  EXPECT_EQ(d["hex"], 26);
  EXPECT_EQ(d["float"], 1.5);
  EXPECT_EQ(d["exp"], 1000.0);
  EXPECT_EQ(d["yes_word"], "yes");
  EXPECT_EQ(d["no_word"], "no");
  EXPECT_EQ(d["on_word"], "on");
  EXPECT_EQ(d["t"], true);
  EXPECT_EQ(d["f"], false);
  EXPECT_TRUE(d["n"].is_null());
  EXPECT_TRUE(d["tilde"].is_null());
  EXPECT_TRUE(d["empty"].is_null());
  EXPECT_EQ(d["word"], "eno5np0");
  EXPECT_TRUE(d["version"].is_number_float());
}

TEST(Load, QuotedAndBlockScalarsStayStrings) {
  DiagnosticSink sink;
  auto loaded = Load("a: \"9000\"\nb: 'true'\nc: \"null\"\nd: |\n  line1\n  line2\n", sink);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->document["a"], "9000");
  EXPECT_EQ(loaded->document["b"], "true");
  EXPECT_EQ(loaded->document["c"], "null");
  EXPECT_EQ(loaded->document["d"], "line1\nline2\n");
}

TEST(Load, RecordsOneBasedLocationsOfValuesAndKeys) {
  DiagnosticSink sink;
  auto loaded = Load("name: x\nrails:\n  - name: eno5np0\n    mtu: 9000\n", sink);
  ASSERT_TRUE(loaded);
  const SourceMap& map = loaded->locations;
  SourceLocation mtu = map.Find("/rails/0/mtu");
  EXPECT_EQ(mtu.file, "p.yaml");
  EXPECT_EQ(mtu.line, 4);
  EXPECT_EQ(mtu.column, 10);
  SourceLocation key = map.FindKey("/rails/0/mtu");
  EXPECT_EQ(key.line, 4);
  EXPECT_EQ(key.column, 5);
  SourceLocation item = map.Find("/rails/0");
  EXPECT_EQ(item.line, 3);
  EXPECT_EQ(item.column, 5);
  // A pointer with no entry of its own falls back to its nearest ancestor.
  EXPECT_EQ(map.Find("/rails/0/gateway").line, 3);
}

TEST(Load, EscapesJsonPointerTokens) {
  DiagnosticSink sink;
  auto loaded = Load("labels:\n  app.kubernetes.io/name: x\n  a~b: y\n", sink);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->locations.Find("/labels/app.kubernetes.io~1name").line, 2);
  EXPECT_EQ(loaded->locations.Find("/labels/a~0b").line, 3);
}

TEST(Load, ReportsDuplicateKeyAtTheSecondKey) {
  const std::string text = "cluster:\n  name: a\n  mtu: 1\n  name: b\n";
  DiagnosticSink sink;
  EXPECT_FALSE(Load(text, sink));
  EXPECT_EQ(Errors(sink, text),
            "p.yaml:4:3: error: duplicate key 'name' (first defined at line 2, column 3) "
            "[yaml.duplicate-key]\n"
            "  at /cluster/name\n"
            " 4 |   name: b\n"
            "   |   ^\n"
            "  fix: remove one of the two 'name' entries; YAML keeps only one of them\n"
            "1 error, 0 warnings\n");
}

TEST(Load, ReportsEveryDuplicateKey) {
  DiagnosticSink sink;
  EXPECT_FALSE(Load("a: 1\na: 2\nb: 1\nb: 2\n", sink));
  ASSERT_EQ(sink.ErrorCount(), 2);
  EXPECT_EQ(sink.diagnostics()[0].location.line, 2);
  EXPECT_EQ(sink.diagnostics()[1].location.line, 4);
}

TEST(Load, ReportsSyntaxErrorWithLineAndColumn) {
  const std::string text = "cluster:\n  name: [a, b\nother: 1\n";
  DiagnosticSink sink;
  EXPECT_FALSE(Load(text, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "yaml.syntax");
  EXPECT_EQ(d.location.file, "p.yaml");
  EXPECT_GT(d.location.line, 0);
  EXPECT_GT(d.location.column, 0);
}

TEST(Load, ReportsBadIndentationAsSyntaxError) {
  const std::string text = "a:\n  b: 1\n c: 2\n";
  DiagnosticSink sink;
  EXPECT_FALSE(Load(text, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(Errors(sink, text),
            "p.yaml:3:2: error: end of map not found [yaml.syntax]\n"
            " 3 |  c: 2\n"
            "   |  ^\n"
            "  fix: fix the YAML syntax at this position\n"
            "1 error, 0 warnings\n");
}

TEST(Load, RejectsNonMappingRoot) {
  DiagnosticSink sink;
  EXPECT_FALSE(Load("- a\n- b\n", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "yaml.root");
  EXPECT_EQ(sink.diagnostics()[0].location.line, 1);
}

TEST(Load, RejectsEmptyFile) {
  DiagnosticSink sink;
  EXPECT_FALSE(Load("# only a comment\n", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "yaml.empty");
}

TEST(Load, RejectsSecondDocument) {
  DiagnosticSink sink;
  EXPECT_FALSE(Load("a: 1\n---\nb: 2\n", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "yaml.multiple-documents");
  EXPECT_EQ(sink.diagnostics()[0].location.line, 2);
}

TEST(Load, RejectsUnsupportedTag) {
  DiagnosticSink sink;
  EXPECT_FALSE(Load("a: !!binary aGVsbG8=\n", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "yaml.unsupported-tag");
  EXPECT_EQ(sink.diagnostics()[0].data_path, "/a");
}

TEST(Load, ExpandsAliasesOfAnchoredValues) {
  DiagnosticSink sink;
  auto loaded = Load("base: &b\n  mtu: 9000\ncopy: *b\n", sink);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->document["copy"]["mtu"], 9000);
}

TEST(Load, KeepsSourceLinesForTheFormatter) {
  DiagnosticSink sink;
  auto loaded = Load("a: 1\r\nb: 2\r\n", sink);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->source_lines, (std::vector<std::string>{"a: 1", "b: 2"}));
}

TEST(Load, ReportsUnreadableFileAsIoError) {
  DiagnosticSink sink;
  EXPECT_FALSE(LoadProfile("/nonexistent/hkim/profile.yaml", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "io.read");
}

}  // namespace
}  // namespace hkim
