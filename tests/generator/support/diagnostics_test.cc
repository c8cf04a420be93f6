#include "support/diagnostics.h"

#include <gtest/gtest.h>

#include "support/diagnostics_format.h"

namespace hkim {
namespace {

Diagnostic Sample() {
  return Diagnostic{Severity::kError,
                    SourceLocation{"profiles/barcelona.yaml", 14, 10},
                    "/rails/2/mtu",
                    "schema.minimum",
                    "0 is less than the minimum of 1",
                    "set mtu to 9000"};
}

TEST(DiagnosticsFormat, PrintsGccStyleWithPathSourceLineCaretAndFix) {
  SourceTexts sources;
  sources["profiles/barcelona.yaml"] = std::vector<std::string>(13, "x");
  sources["profiles/barcelona.yaml"].push_back("    mtu: 0");
  EXPECT_EQ(FormatDiagnostic(Sample(), sources),
            "profiles/barcelona.yaml:14:10: error: 0 is less than the minimum of 1 "
            "[schema.minimum]\n"
            "  at /rails/2/mtu\n"
            " 14 |     mtu: 0\n"
            "    |          ^\n"
            "  fix: set mtu to 9000\n");
}

TEST(DiagnosticsFormat, ABriefDiagnosticIsItsFirstLineOnlyAndJsonKeepsEverything) {
  Diagnostic d = Sample();
  d.severity = Severity::kNote;
  d.brief = true;  // an accepted warning
  SourceTexts sources{{"profiles/barcelona.yaml", std::vector<std::string>(14, "    mtu: 0")}};
  EXPECT_EQ(FormatDiagnostic(d, sources),
            "profiles/barcelona.yaml:14:10: note: 0 is less than the minimum of 1 [schema.minimum]\n");
  const nlohmann::json json = DiagnosticToJson(d);
  EXPECT_EQ(json["fix"], "set mtu to 9000");
  EXPECT_EQ(json["path"], "/rails/2/mtu");
}

TEST(DiagnosticsFormat, LeavesOutWhatIsUnknown) {
  Diagnostic d{Severity::kWarning, SourceLocation{"out/x", 0, 0}, "", "write.extra", "extra", ""};
  EXPECT_EQ(FormatDiagnostic(d, {}), "out/x: warning: extra [write.extra]\n");
  Diagnostic no_file{Severity::kError, {}, "", "cli.usage", "--check needs -o DIR", "add -o"};
  EXPECT_EQ(FormatDiagnostic(no_file, {}),
            "error: --check needs -o DIR [cli.usage]\n  fix: add -o\n");
}

TEST(DiagnosticsFormat, PrintsLineWithoutCaretWhenColumnUnknown) {
  Diagnostic d = Sample();
  d.location.column = 0;
  SourceTexts sources{{"profiles/barcelona.yaml", std::vector<std::string>(14, "    mtu: 0")}};
  EXPECT_EQ(FormatDiagnostic(d, sources),
            "profiles/barcelona.yaml:14: error: 0 is less than the minimum of 1 "
            "[schema.minimum]\n"
            "  at /rails/2/mtu\n"
            " 14 |     mtu: 0\n"
            "  fix: set mtu to 9000\n");
}

TEST(DiagnosticsFormat, KeepsTabsSoTheCaretLinesUp) {
  Diagnostic d{Severity::kError, SourceLocation{"f", 1, 3}, "", "r", "m", ""};
  SourceTexts sources{{"f", {"\tab"}}};
  EXPECT_EQ(FormatDiagnostic(d, sources), "f:1:3: error: m [r]\n 1 | \tab\n   | \t ^\n");
}

TEST(DiagnosticsFormat, SummarizesCountsWithSingulars) {
  EXPECT_EQ(FormatSummary(1, 0), "1 error, 0 warnings");
  EXPECT_EQ(FormatSummary(3, 1), "3 errors, 1 warning");
}

TEST(DiagnosticsFormat, FormatsSinkThenSummary) {
  DiagnosticSink sink;
  sink.Report(Sample());
  sink.Report(Diagnostic{Severity::kWarning, {}, "", "lint.x", "w", ""});
  EXPECT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.WarningCount(), 1);
  EXPECT_TRUE(sink.HasErrors());
  const std::string out = FormatDiagnostics(sink, {});
  EXPECT_EQ(out.substr(out.rfind('\n', out.size() - 2) + 1), "1 error, 1 warning\n");
  EXPECT_EQ(FormatDiagnostics(DiagnosticSink{}, {}), "");
}

TEST(DiagnosticsFormat, WritesJsonArrayOfObjects) {
  DiagnosticSink sink;
  sink.Report(Sample());
  EXPECT_EQ(DiagnosticsToJson(sink).dump(),
            R"([{"column":10,"file":"profiles/barcelona.yaml","fix":"set mtu to 9000",)"
            R"("line":14,"message":"0 is less than the minimum of 1","path":"/rails/2/mtu",)"
            R"("rule":"schema.minimum","severity":"error"}])");
  EXPECT_EQ(DiagnosticsToJson(DiagnosticSink{}).dump(), "[]");
}


TEST(DiagnosticsFormat, NeverEchoesNulControlOrInvalidBytes) {
  Diagnostic d{Severity::kError, SourceLocation{"f", 1, 6}, "", "r", "m", ""};
  SourceTexts sources{{"f", {std::string("a: x\0\x01\xff\xc3\xa9z", 10)}}};
  EXPECT_EQ(FormatDiagnostic(d, sources), "f:1:6: error: m [r]\n 1 | a: x???\xc3\xa9z\n   |      ^\n");
}

TEST(DiagnosticsFormat, CutsLongLinesAroundTheColumn) {
  Diagnostic d{Severity::kError, SourceLocation{"f", 1, 20001}, "", "r", "m", ""};
  SourceTexts sources{{"f", {std::string(20000, '[') + "x" + std::string(20000, ']')}}};
  const std::string text = FormatDiagnostic(d, sources);
  EXPECT_LT(text.size(), 400u) << text;
  const std::string shown = " 1 | ..." + std::string(60, '[') + "x" + std::string(59, ']') + "...\n";
  EXPECT_NE(text.find(shown), std::string::npos) << text;
  EXPECT_NE(text.find("   | " + std::string(63, ' ') + "^\n"), std::string::npos) << text;
}

// A finding repeated for each of 100,000 objects would print megabytes. Each rule shows its
// first 20 findings, then one note counts the rest; the summary counts every one.
TEST(DiagnosticsFormat, EachRuleShowsItsFirstTwentyFindingsThenCountsTheRest) {
  DiagnosticSink sink;
  for (int i = 0; i < 25; ++i) {
    sink.Report(Diagnostic{Severity::kWarning, SourceLocation{"e.json", i + 1, 1}, "",
                           "discover.no-sriov-state", "node n" + std::to_string(i), "fix it"});
  }
  sink.Report(Diagnostic{Severity::kError, SourceLocation{"e.json", 99, 1}, "", "discover.empty",
                         "other", ""});
  const std::string text = FormatDiagnostics(sink, {});
  EXPECT_NE(text.find("e.json:20:1: warning: node n19 [discover.no-sriov-state]"), std::string::npos);
  EXPECT_EQ(text.find("node n20 "), std::string::npos) << text;
  EXPECT_NE(text.find("e.json:99:1: error: other [discover.empty]"), std::string::npos);
  EXPECT_NE(text.find("note: 5 more [discover.no-sriov-state] findings like those above are not "
                      "shown (-o json lists every one)\n1 error, 25 warnings\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(DiagnosticsToJson(sink).size(), 26u);
}

}  // namespace
}  // namespace hkim
