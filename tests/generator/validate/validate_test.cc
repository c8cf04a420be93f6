#include "validate/validate.h"

#include <gtest/gtest.h>

#include "support/diagnostics_format.h"
#include "support/input_limits.h"

namespace hkim {
namespace {

// A small schema of the same shape as the profile's, so these tests pin the validate stage's
// behaviour independently of how the real schema evolves.
constexpr char kSchema[] = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "additionalProperties": false,
  "required": ["cluster", "rails"],
  "properties": {
    "cluster": {
      "type": "object",
      "additionalProperties": false,
      "required": ["name"],
      "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9-]+$",
                 "description": "DNS-1123 name of the cluster"},
        "platform": {"enum": ["openshift", "oke"], "description": "Target platform"},
        "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string"},
                 "x-fix": "list each tag once"},
        "zones": {"oneOf": [{"type": "string"},
                            {"type": "array", "uniqueItems": true, "items": {"type": "string"}}],
                  "x-fix": "one zone, or a list of zones"},
        "debug": {"enum": ["VERSION", "WARN", "INFO", "TRACE"], "description": "NCCL_DEBUG."},
        "level": {"description": "LOC..SYS or a legacy integer 0-5",
                  "oneOf": [{"type": "string", "enum": ["LOC", "SYS"]},
                            {"$ref": "#/definitions/small"}]}
      }
    },
    "rails": {
      "type": "array",
      "minItems": 1,
      "items": {"$ref": "#/definitions/rail"}
    }
  },
  "definitions": {
    "small": {"type": "integer", "minimum": 0, "maximum": 5},
    "rail": {
      "type": "object",
      "additionalProperties": false,
      "required": ["interface"],
      "properties": {
        "interface": {"type": "string", "description": "Host interface name, e.g. eno5np0"},
        "mtu": {"type": "integer", "minimum": 1280, "maximum": 9216,
                "description": "MTU in bytes",
                "x-fix": "use 9000 for RoCE jumbo frames"}
      }
    }
  }
})";

class ValidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DiagnosticSink sink;
    schema_ = ProfileSchema::Parse("test.schema.json", kSchema, sink);
    ASSERT_TRUE(schema_) << FormatDiagnostics(sink, {});
  }

  /// Validates `text` and returns the formatted diagnostics ("" when valid).
  std::string Check(const std::string& text, bool* valid = nullptr) {
    DiagnosticSink sink;
    auto loaded = LoadProfileFromText("p.yaml", text, sink);
    EXPECT_TRUE(loaded) << FormatDiagnostics(sink, {});
    if (!loaded) return "";
    bool ok = ValidateProfile(*loaded, *schema_, sink);
    if (valid) *valid = ok;
    EXPECT_EQ(ok, !sink.HasErrors());
    return FormatDiagnostics(sink, {{"p.yaml", loaded->source_lines}});
  }

  std::optional<ProfileSchema> schema_;
};

TEST_F(ValidateTest, AcceptsValidProfile) {
  bool valid = false;
  EXPECT_EQ(
      Check("cluster:\n  name: barcelona\nrails:\n  - interface: eno5np0\n    mtu: 9000\n", &valid),
      "");
  EXPECT_TRUE(valid);
}

TEST_F(ValidateTest, ReportsLineAndColumnOfNestedValueBelowMinimum) {
  EXPECT_EQ(Check("cluster:\n  name: barcelona\nrails:\n  - interface: eno5np0\n"
                  "  - interface: eno6np0\n    mtu: 0\n"),
            "p.yaml:6:10: error: 0 is less than the minimum of 1280 [schema.minimum]\n"
            "  at /rails/1/mtu\n"
            " 6 |     mtu: 0\n"
            "   |          ^\n"
            "  fix: use 9000 for RoCE jumbo frames\n"
            "1 error, 0 warnings\n");
}

TEST_F(ValidateTest, SuggestsTheClosestKeyAndPointsAtTheKey) {
  EXPECT_EQ(Check("cluster:\n  name: barcelona\nrails:\n  - interface: eno5np0\n    mtuu: 9000\n"),
            "p.yaml:5:5: error: unknown key 'mtuu'; did you mean 'mtu'? [schema.unknown-key]\n"
            "  at /rails/0/mtuu\n"
            " 5 |     mtuu: 9000\n"
            "   |     ^\n"
            "  fix: rename 'mtuu' to 'mtu'\n"
            "1 error, 0 warnings\n");
}

TEST_F(ValidateTest, ListsAllowedKeysWhenNoneIsClose) {
  EXPECT_EQ(Check("cluster:\n  name: barcelona\n  zzzzzz: 1\nrails:\n  - interface: e\n"),
            "p.yaml:3:3: error: unknown key 'zzzzzz' [schema.unknown-key]\n"
            "  at /cluster/zzzzzz\n"
            " 3 |   zzzzzz: 1\n"
            "   |   ^\n"
            "  fix: remove 'zzzzzz'; the keys allowed here are: debug, level, name, platform, tags, zones\n"
            "1 error, 0 warnings\n");
}

TEST_F(ValidateTest, ReportsWrongTypeWithExpectedAndActual) {
  EXPECT_EQ(Check("cluster:\n  name: barcelona\nrails:\n  - interface: eno5np0\n"
                  "    mtu: \"9000\"\n"),
            "p.yaml:5:10: error: expected integer, got string \"9000\" [schema.type]\n"
            "  at /rails/0/mtu\n"
            " 5 |     mtu: \"9000\"\n"
            "   |          ^\n"
            "  fix: write the number without quotes (use 9000 for RoCE jumbo frames)\n"
            "1 error, 0 warnings\n");
}

TEST_F(ValidateTest, ReportsMissingRequiredKeyWithItsDescription) {
  EXPECT_EQ(Check("cluster:\n  platform: oke\nrails:\n  - interface: eno5np0\n"),
            "p.yaml:2:3: error: missing required key 'name' [schema.required]\n"
            "  at /cluster/name\n"
            " 2 |   platform: oke\n"
            "   |   ^\n"
            "  fix: add 'name': DNS-1123 name of the cluster\n"
            "1 error, 0 warnings\n");
}

TEST_F(ValidateTest, ReportsEnumWithChoicesAndSuggestion) {
  EXPECT_EQ(Check("cluster:\n  name: x\n  platform: openshfit\nrails:\n  - interface: e\n"),
            "p.yaml:3:13: error: \"openshfit\" is not one of: openshift, oke [schema.enum]\n"
            "  at /cluster/platform\n"
            " 3 |   platform: openshfit\n"
            "   |             ^\n"
            "  fix: did you mean 'openshift'?\n"
            "1 error, 0 warnings\n");
}

TEST_F(ValidateTest, SuggestsTheEnumValueThatALongerOrShorterWordMeant) {
  EXPECT_EQ(Check("cluster:\n  name: x\n  debug: WARNING\nrails:\n  - interface: e\n"),
            "p.yaml:3:10: error: \"WARNING\" is not one of: VERSION, WARN, INFO, TRACE "
            "[schema.enum]\n"
            "  at /cluster/debug\n"
            " 3 |   debug: WARNING\n"
            "   |          ^\n"
            "  fix: did you mean 'WARN'?\n"
            "1 error, 0 warnings\n");
  const std::string longer =
      Check("cluster:\n  name: x\n  debug: informational\nrails:\n  - interface: e\n");
  EXPECT_NE(longer.find("  fix: did you mean 'INFO'?\n"), std::string::npos) << longer;
  const std::string info = Check("cluster:\n  name: x\n  debug: info\nrails:\n  - interface: e\n");
  EXPECT_NE(info.find("  fix: did you mean 'INFO'?\n"), std::string::npos) << info;
  // No guess where nothing is close: the message lists the values.
  const std::string none = Check("cluster:\n  name: x\n  debug: loud\nrails:\n  - interface: e\n");
  EXPECT_EQ(none.find("did you mean"), std::string::npos) << none;
}

TEST_F(ValidateTest, ReportsOneOfThroughTheBranchThatFitsTheValueType) {
  const std::string head = "cluster:\n  name: x\n  level: ";
  const std::string tail = "\nrails:\n  - interface: e\n";
  EXPECT_EQ(Check(head + "9" + tail),
            "p.yaml:3:10: error: 9 is greater than the maximum of 5 [schema.maximum]\n"
            "  at /cluster/level\n"
            " 3 |   level: 9\n"
            "   |          ^\n"
            "  fix: use a value of at most 5 (LOC..SYS or a legacy integer 0-5)\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Check(head + "SIS" + tail),
            "p.yaml:3:10: error: \"SIS\" is not one of: LOC, SYS [schema.enum]\n"
            "  at /cluster/level\n"
            " 3 |   level: SIS\n"
            "   |          ^\n"
            "  fix: did you mean 'SYS'?\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Check(head + "true" + tail),
            "p.yaml:3:10: error: true matches none of the allowed forms [schema.oneOf]\n"
            "  at /cluster/level\n"
            " 3 |   level: true\n"
            "   |          ^\n"
            "  fix: LOC..SYS or a legacy integer 0-5\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Check(head + "3" + tail), "");
}

TEST_F(ValidateTest, ReportsPatternMismatch) {
  std::string out = Check("cluster:\n  name: Barcelona_1\nrails:\n  - interface: e\n");
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "p.yaml:2:9: error: \"Barcelona_1\" does not match the pattern ^[a-z0-9-]+$ "
            "[schema.pattern]");
}

TEST_F(ValidateTest, ReportsEveryErrorOnceInFileOrder) {
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText(
      "p.yaml",
      "cluster:\n  name: x\n  platfrom: oke\nrails:\n  - interface: a\n    mtu: 100000\n"
      "  - mtu: 9000\n",
      sink);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(ValidateProfile(*loaded, *schema_, sink));
  std::vector<std::string> seen;
  for (const Diagnostic& d : sink.diagnostics()) {
    seen.push_back(std::to_string(d.location.line) + " " + d.rule + " " + d.data_path);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"3 schema.unknown-key /cluster/platfrom",
                                            "6 schema.maximum /rails/0/mtu",
                                            "7 schema.required /rails/1/interface"}));
}

TEST_F(ValidateTest, ReportsEachRepeatedItemOnceAtItsLineNamingTheFirst) {
  EXPECT_EQ(Check("cluster:\n  name: b\n  tags:\n    - x\n    - y\n    - x\n    - x\n"
                  "rails:\n  - interface: e\n"),
            "p.yaml:6:7: error: \"x\" is already listed on line 4 [schema.uniqueItems]\n"
            "  at /cluster/tags/2\n"
            " 6 |     - x\n"
            "   |       ^\n"
            "  fix: list each tag once\n"
            "p.yaml:7:7: error: \"x\" is already listed on line 4 [schema.uniqueItems]\n"
            "  at /cluster/tags/3\n"
            " 7 |     - x\n"
            "   |       ^\n"
            "  fix: list each tag once\n"
            "2 errors, 0 warnings\n");
}

TEST_F(ValidateTest, ReportsARepeatedItemInTheOneOfBranchThatFitsAndNothingElse) {
  EXPECT_EQ(Check("cluster:\n  name: b\n  zones: [a, a]\nrails:\n  - interface: e\n"),
            "p.yaml:3:14: error: \"a\" is already listed on line 3 [schema.uniqueItems]\n"
            "  at /cluster/zones/1\n"
            " 3 |   zones: [a, a]\n"
            "   |              ^\n"
            "  fix: one zone, or a list of zones\n"
            "1 error, 0 warnings\n");
}

// valijson reports every pair of equal items: n(n-1)/2 findings for n equal ones.
TEST_F(ValidateTest, ReportsAListOfEqualItemsInOneFindingPerRepeatNotPerPair) {
  std::string text = "cluster:\n  name: b\n  tags:\n";
  for (int i = 0; i < 60; ++i) text += "    - same\n";
  text += "rails:\n  - interface: e\n";
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText("p.yaml", text, sink);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(ValidateProfile(*loaded, *schema_, sink));
  EXPECT_EQ(sink.diagnostics().size(), 59u);
}

TEST_F(ValidateTest, StopsReportingAfterTheErrorLimitOfAFileKeepingTheFirstInFileOrder) {
  // Thousands of wrong items are thousands of findings (megabytes of -o json); like the loader,
  // validation reports the first ones in the file and says where it stopped.
  std::string text = "rails:\n  - interface: e\n    mtu: 1\ncluster:\n  name: b\n  tags:\n";
  for (int i = 0; i < 3 * static_cast<int>(limits::kMaxFileErrors); ++i) text += "    - " + std::to_string(i) + "\n";
  text += "  debug: LOUD\n";
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText("p.yaml", text, sink);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(ValidateProfile(*loaded, *schema_, sink));
  ASSERT_EQ(sink.ErrorCount(), static_cast<int>(limits::kMaxFileErrors) + 1);
  const std::vector<Diagnostic>& found = sink.diagnostics();
  EXPECT_EQ(found.front().rule, "schema.minimum");  // line 3, before the tags
  EXPECT_EQ(found.front().location.line, 3);
  EXPECT_EQ(found[found.size() - 2].location.line, static_cast<int>(limits::kMaxFileErrors) + 5);
  const Diagnostic& last = found.back();
  EXPECT_EQ(last.rule, "limit.errors");
  EXPECT_NE(last.message.find(std::to_string(limits::kMaxFileErrors)), std::string::npos);
  for (const Diagnostic& d : found) EXPECT_NE(d.rule, "schema.enum");  // past the limit
}

TEST_F(ValidateTest, ReportsTooFewItems) {
  std::string out = Check("cluster:\n  name: x\nrails: []\n");
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "p.yaml:3:8: error: the list has 0 items; at least 1 are needed [schema.minItems]");
}

TEST(ValidateHelpers, MapsValijsonContextToJsonPointer) {
  EXPECT_EQ(ContextToPointer({"<root>"}), "");
  EXPECT_EQ(ContextToPointer({"<root>", "[rails]", "[2]", "[mtu]"}), "/rails/2/mtu");
  EXPECT_EQ(ContextToPointer({"<root>", "[a/b]", "[c~d]"}), "/a~1b/c~0d");
}

TEST(ValidateHelpers, FindsClosestMatchOnlyWhenItIsLikelyATypo) {
  std::vector<std::string> keys = {"gateway", "interface", "mtu", "subnet"};
  EXPECT_EQ(ClosestMatch("interfce", keys), "interface");
  EXPECT_EQ(ClosestMatch("MTU", keys), "mtu");
  EXPECT_EQ(ClosestMatch("gatway", keys), "gateway");
  EXPECT_EQ(ClosestMatch("completely-different", keys), "");
}

TEST(ValidateHelpers, ClosestMatchPrefersTheFirstOfEqualCandidatesWhateverTheirLengths) {
  // "mtx" is one edit from both; the sorted list's first wins, also when a longer candidate
  // (skipped by its length once a nearer one is known) comes between them.
  EXPECT_EQ(ClosestMatch("mtx", {"mtu", "mtxxxxxxx", "mux"}), "mtu");
  EXPECT_EQ(ClosestMatch("interfaces", {"if", "interface", "interfaced"}), "interface");
  // A key thousands of bytes long is near none of the short ones.
  EXPECT_EQ(ClosestMatch(std::string(5000, 'm') + "tu", {"gateway", "mtu"}), "");
  EXPECT_EQ(ClosestMatch("", {"a", "mtu"}), "a");
}

TEST(ValidateSchema, ReportsUnparsableSchema) {
  DiagnosticSink sink;
  EXPECT_FALSE(ProfileSchema::Parse("bad.json", "{not json", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "schema.invalid");
}

TEST(ValidateSchema, EmbeddedProfileSchemaParses) {
  DiagnosticSink sink;
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  if (!schema && !sink.diagnostics().empty() && sink.diagnostics()[0].rule == "schema.missing") {
    GTEST_SKIP() << "no schemas/profile.schema.json was embedded in this build";
  }
  ASSERT_TRUE(schema) << FormatDiagnostics(sink, {});
  EXPECT_TRUE(schema->document().is_object());
}

}  // namespace
}  // namespace hkim
