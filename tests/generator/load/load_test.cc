#include "load/load.h"

#include <gtest/gtest.h>

#include "support/diagnostics_format.h"
#include "support/input_limits.h"
#include "test_files.h"

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
            "p.yaml:3:1: error: line 3 is indented by 1 spaces, a depth no key above it has "
            "[yaml.syntax]\n"
            " 3 |  c: 2\n"
            "   | ^\n"
            "  fix: indent it by 2 spaces like the keys of its block, or to the depth of the key "
            "it belongs under\n"
            "1 error, 0 warnings\n");
}

// The parser's "end of map not found" for a tab, an indent and an alias alike; each
// cause gets its own message and fix.
TEST(Load, NamesATabInTheIndentationAsTheCause) {
  const std::string text = "cluster:\n  name: lab\n\tplatform: oke\n";
  DiagnosticSink sink;
  EXPECT_FALSE(Load(text, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.location.line, 3);
  EXPECT_EQ(d.location.column, 1);
  EXPECT_EQ(d.message, "a tab indents line 3: YAML indents with spaces only");
  EXPECT_EQ(d.fix,
            "replace the tab with spaces, as many as the keys at that level have (set the editor "
            "to insert spaces for YAML)");
}

TEST(Load, NamesAKeyIndentedDeeperThanAValueAsTheCause) {
  const std::string text = "cluster:\n  name: lab\n    platform: oke\n";
  DiagnosticSink sink;
  EXPECT_FALSE(Load(text, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.location.line, 3);
  EXPECT_EQ(d.message,
            "line 3 is indented by 4 spaces, deeper than the key on line 2 (2), which holds a "
            "value, not a block");
  EXPECT_EQ(d.fix,
            "indent it by 2 spaces to make it a sibling, or end line 2 after the ':' to open a "
            "block under it");
}

TEST(Load, NamesAnAliasWithoutItsAnchorAsTheCause) {
  const std::string text = "cluster:\n  name: lab\nnccl:\n  extra_env: *env\n";
  DiagnosticSink sink;
  EXPECT_FALSE(Load(text, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.location.line, 4);
  EXPECT_EQ(d.location.column, 14);
  EXPECT_EQ(d.message, "*env refers to no anchor: no value above it is marked &env");
  EXPECT_EQ(d.fix,
            "mark the value to repeat with &env before this line (an alias only refers back), "
            "or write the value itself");
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


// --- Every input gets a diagnostic, never an abort ---

/// Loads `text` and expects exactly one error with `rule`; returns it.
Diagnostic OnlyError(const std::string& text, const std::string& rule) {
  DiagnosticSink sink;
  EXPECT_FALSE(Load(text, sink));
  EXPECT_EQ(sink.ErrorCount(), 1) << Errors(sink, "");
  if (sink.diagnostics().empty()) return Diagnostic{};
  EXPECT_EQ(sink.diagnostics()[0].rule, rule) << Errors(sink, "");
  return sink.diagnostics()[0];
}

TEST(Load, ReportsANumberNoDoubleHoldsWithTheFieldsRange) {
  const Diagnostic d = OnlyError("node_shape:\n  gpus_per_node: 1e999\n", "yaml.number-range");
  EXPECT_EQ(d.location.line, 2);
  EXPECT_EQ(d.location.column, 18);
  EXPECT_NE(d.message.find("'1e999' is out of range"), std::string::npos) << d.message;
  EXPECT_NE(d.fix.find("from 1 to 64"), std::string::npos) << d.fix;  // the schema's range
  OnlyError("x: -1e400\n", "yaml.number-range");
  OnlyError("x: 0x10000000000000000\n", "yaml.number-range");
  OnlyError("x: " + std::string(300, '9') + "\n", "yaml.number-range");
}

TEST(Load, ReportsTheFirstByteThatIsNotUtf8WithItsPosition) {
  const Diagnostic d = OnlyError("a: 1\nb: ab\xff\xfe\n", "yaml.encoding");
  EXPECT_EQ(d.location.line, 2);
  EXPECT_EQ(d.location.column, 6);
  EXPECT_NE(d.message.find("0xFF is not valid UTF-8"), std::string::npos) << d.message;
  OnlyError("a: \xc0\xaf\n", "yaml.encoding");  // overlong '/'
}

TEST(Load, EscapesForNextLineAndNoBreakSpaceLoadAsUtf8) {
  // yaml-cpp decodes \N and \_ to the Latin-1 bytes 0x85 and 0xA0; a render of such a value
  // aborted in the schema's error message (found by render_fuzzer).
  DiagnosticSink sink;
  auto loaded = Load("a: \"x\\Ny\\_z\"\nb: \"\\x85\\u00a0\"\n", sink);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(sink.HasErrors());
  EXPECT_EQ(loaded->document["a"], "x\xc2\x85y\xc2\xa0z");
  EXPECT_EQ(loaded->document["b"], "\xc2\x85\xc2\xa0");
}

TEST(Load, ReportsANulByteWithItsPosition) {
  const Diagnostic d = OnlyError(std::string("a: 1\nname: \"x\0y\"\n", 17), "yaml.encoding");
  EXPECT_EQ(d.location.line, 2);
  EXPECT_EQ(d.location.column, 9);
  EXPECT_NE(d.message.find("NUL"), std::string::npos);
  OnlyError("a: \x01\n", "yaml.encoding");
}

TEST(Load, RefusesAnAliasBombBeforeItCostsTimeOrMemory) {
  const std::string bomb = test_files::AliasBombYaml();
  const Diagnostic d = OnlyError(bomb, "limit.values");
  EXPECT_GT(d.location.line, 1);
}

TEST(Load, StopsReportingAfterTheErrorLimitOfAFile) {
  // A flow mapping of commas: every comma is an empty key (and a duplicate of the one before).
  // A compiler stops after its error limit; so does the loader, and says where it stopped.
  const std::string commas = "a: {" + std::string(5000, ',') + "}\n";
  DiagnosticSink sink;
  EXPECT_FALSE(Load(commas, sink));
  ASSERT_EQ(sink.ErrorCount(), static_cast<int>(limits::kMaxFileErrors) + 1);
  const Diagnostic& last = sink.diagnostics().back();
  EXPECT_EQ(last.rule, "limit.errors");
  EXPECT_EQ(last.location.line, 1);
  EXPECT_NE(last.message.find(std::to_string(limits::kMaxFileErrors)), std::string::npos);
  // Below the limit every error is still reported.
  DiagnosticSink few;
  EXPECT_FALSE(Load("a: {,,,}\n", few));
  for (const Diagnostic& d : few.diagnostics()) EXPECT_NE(d.rule, "limit.errors");
  EXPECT_GE(few.ErrorCount(), 3);
}

TEST(Load, RefusesNestingDeeperThanTheLimit) {
  {
    // Unclosed flow brackets also read as keys that are lists; the depth limit still ends it.
    DiagnosticSink sink;
    EXPECT_FALSE(Load("a: " + std::string(100000, '[') + "\n", sink));
    EXPECT_EQ(sink.diagnostics().back().rule, "limit.depth");
    EXPECT_LE(sink.ErrorCount(), 64);
  }
  std::string block;
  for (int i = 0; i < 1000; ++i) block += std::string(i, ' ') + "k:\n";
  OnlyError(block, "limit.depth");
  std::string fine = "a: " + std::string(60, '[') + std::string(60, ']') + "\n";
  DiagnosticSink sink;
  EXPECT_TRUE(Load(fine, sink)) << Errors(sink, fine);
}

TEST(Load, RefusesAValueLongerThanTheLimit) {
  OnlyError("cluster:\n  name: " + std::string(9000, 'a') + "\n", "limit.value-size");
}

TEST(Load, RefusesAFileLargerThanTheLimit) {
  OnlyError("a: " + std::string(2 * 1024 * 1024, 'x') + "\n", "limit.file-size");
  DiagnosticSink sink;
  EXPECT_FALSE(LoadProfile("/dev/zero", sink));  // never ends: cut at the limit, not read forever
  EXPECT_EQ(sink.diagnostics().at(0).rule, "limit.file-size");
}

}  // namespace
}  // namespace hkim
