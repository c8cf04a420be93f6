#include "render/render.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "support/diagnostics_format.h"
#include "support/embedded_files.h"

namespace hkim {
namespace {

PlannedObject Object(const std::string& template_name, const std::string& file_name,
                     nlohmann::json context) {
  PlannedObject object;
  object.template_name = template_name;
  object.file_name = file_name;
  object.context = std::move(context);
  return object;
}

/// Renders one template with one context; `errors` gets the formatted diagnostics.
std::optional<std::string> RenderText(const std::string& text, const nlohmann::json& context,
                                      std::string* errors = nullptr,
                                      std::map<std::string, std::string> extra = {}) {
  DiagnosticSink sink;
  extra["t/x.yaml.mustache"] = text;
  extra["t/k.yaml.mustache"] = "kind: Kustomization\n";
  extra["t/a.yaml.mustache"] = "kind: Application\n";
  auto templates = ParseTemplates(extra, sink);
  if (!templates) {
    if (errors) *errors = FormatDiagnostics(sink, {});
    return std::nullopt;
  }
  BundlePlan plan;
  plan.bundle_name = "b";
  plan.objects.push_back(Object("t/x.yaml.mustache", "10-x.yaml", context));
  plan.kustomization = Object("t/k.yaml.mustache", "kustomization.yaml", nlohmann::json::object());
  plan.application = Object("t/a.yaml.mustache", "application.yaml", nlohmann::json::object());
  auto bundle = RenderBundle(plan, *templates, sink, RenderCheck::kReparse);
  if (errors) *errors = FormatDiagnostics(sink, {});
  if (!bundle) return std::nullopt;
  return bundle->files[0].content;
}

std::string ReadBack(const std::string& yaml, const std::string& key) {
  return YAML::Load(yaml)[key].as<std::string>();
}

TEST(YamlQuote, LeavesSafeWordsPlain) {
  EXPECT_EQ(YamlQuoteString("eno5np0"), "eno5np0");
  EXPECT_EQ(YamlQuoteString("openshift.io/eno5np0rdma"), "openshift.io/eno5np0rdma");
  EXPECT_EQ(YamlQuoteString("nvcr.io/nvidia/pytorch:24.05-py3"),
            "nvcr.io/nvidia/pytorch:24.05-py3");
  EXPECT_EQ(YamlQuoteString("a b"), "a b");
  EXPECT_EQ(YamlQuoteString("00-machineconfig.yaml"), "00-machineconfig.yaml");
  EXPECT_EQ(YamlQuoteString("10.0.103.0/24"), "10.0.103.0/24");
  EXPECT_EQ(YamlQuoteString("32Gi"), "32Gi");
}

TEST(YamlQuote, QuotesEverythingThatWouldChangeMeaningOrStructure) {
  EXPECT_EQ(YamlQuoteString(""), "\"\"");
  EXPECT_EQ(YamlQuoteString("a: b"), "\"a: b\"");
  EXPECT_EQ(YamlQuoteString("a #b"), "\"a #b\"");
  EXPECT_EQ(YamlQuoteString("{{x}}"), "\"{{x}}\"");
  EXPECT_EQ(YamlQuoteString("say \"hi\"\nnext"), "\"say \\\"hi\\\"\\nnext\"");
  EXPECT_EQ(YamlQuoteString("-rf"), "\"-rf\"");
  EXPECT_EQ(YamlQuoteString("*x"), "\"*x\"");
  EXPECT_EQ(YamlQuoteString("&x"), "\"&x\"");
  EXPECT_EQ(YamlQuoteString("!x"), "\"!x\"");
  EXPECT_EQ(YamlQuoteString("yes"), "\"yes\"");
  EXPECT_EQ(YamlQuoteString("no"), "\"no\"");
  EXPECT_EQ(YamlQuoteString("null"), "\"null\"");
  EXPECT_EQ(YamlQuoteString("9000"), "\"9000\"");
  EXPECT_EQ(YamlQuoteString("1e3"), "\"1e3\"");
  EXPECT_EQ(YamlQuoteString(".5"), "\".5\"");
  EXPECT_EQ(YamlQuoteString("0x1f"), "\"0x1f\"");
  EXPECT_EQ(YamlQuoteString("1_000"), "\"1_000\"");
  EXPECT_EQ(YamlQuoteString("1:20"), "\"1:20\"");
  EXPECT_EQ(YamlQuoteString("2026-03-26"), "\"2026-03-26\"");
  EXPECT_EQ(YamlQuoteString("+12.5e-3"), "\"+12.5e-3\"");
  EXPECT_EQ(YamlQuoteString("trailing "), "\"trailing \"");
  EXPECT_EQ(YamlQuoteString("a,b"), "\"a,b\"");
  EXPECT_EQ(YamlQuoteString("back\\slash\t"), "\"back\\\\slash\\t\"");
  EXPECT_EQ(YamlQuoteString(std::string("bell\x07", 5)), "\"bell\\x07\"");
  EXPECT_EQ(YamlQuoteString("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(YamlQuoteString("a\xc2\x85"
                            "b\xe2\x80\xa8"
                            "c\xe2\x80\xa9"
                            "d"),
            "\"a\\u0085b\\u2028c\\u2029d\"");
}

TEST(YamlQuote, EveryQuotedValueReadsBackAsTheSameSingleString) {
  for (std::string value : {"a: b",
                            "# c",
                            "x #y",
                            "{{ z }}",
                            "'q'",
                            "\"dq\"",
                            "line1\nline2",
                            "- item",
                            "* star",
                            "& amp",
                            "! bang",
                            "yes",
                            "No",
                            "ON",
                            "null",
                            "~",
                            "9000",
                            "-3",
                            "1.5",
                            "true",
                            ":",
                            "key:",
                            "@at",
                            "`tick`",
                            "%pct",
                            "|pipe",
                            ">gt",
                            "[a]",
                            "{a: 1}",
                            "tab\there",
                            "ünï",
                            "nel\xc2\x85"
                            "ls\xe2\x80\xa8"
                            "ps\xe2\x80\xa9",
                            "\x7f"}) {
    std::string yaml = "k: " + YamlQuoteString(value) + "\n";
    YAML::Node node = YAML::Load(yaml);
    ASSERT_TRUE(node.IsMap()) << yaml;
    ASSERT_EQ(node.size(), 1u) << yaml;
    EXPECT_EQ(node["k"].Tag() == "!" || node["k"].Tag() == "?", true) << yaml;
    EXPECT_EQ(node["k"].as<std::string>(), value) << yaml;
  }
}

TEST(Render, WritesStringsAsScalarsAndKeepsJsonTypes) {
  auto text = RenderText(
      "name: {{name}}\nmtu: {{mtu}}\nratio: {{ratio}}\nprivileged: {{privileged}}\n"
      "gateway: {{gateway}}\nnote: {{note}}\nnumeric: {{numeric}}\n",
      {{"name", "eno5np0-network"},
       {"mtu", 9000},
       {"ratio", 0.5},
       {"privileged", false},
       {"gateway", nullptr},
       {"note", "a: b # c\nd"},
       {"numeric", "9000"}});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text,
            "name: eno5np0-network\nmtu: 9000\nratio: 0.5\nprivileged: false\ngateway: null\n"
            "note: \"a: b # c\\nd\"\nnumeric: \"9000\"\n");
  YAML::Node node = YAML::Load(*text);
  EXPECT_EQ(node["note"].as<std::string>(), "a: b # c\nd");
  EXPECT_EQ(node["mtu"].as<int>(), 9000);
}

TEST(Render, ValuesCannotInjectStructure) {
  auto text = RenderText("metadata:\n  name: {{name}}\n  namespace: {{ns}}\n",
                         {{"name", "x\nkind: Secret"}, {"ns", "{{ns}}: evil"}});
  ASSERT_TRUE(text);
  YAML::Node node = YAML::Load(*text);
  EXPECT_EQ(node.size(), 1u);
  EXPECT_EQ(node["metadata"].size(), 2u);
  EXPECT_EQ(node["metadata"]["name"].as<std::string>(), "x\nkind: Secret");
  EXPECT_EQ(node["metadata"]["namespace"].as<std::string>(), "{{ns}}: evil");
}

TEST(Render, IteratesListsAndTestsBooleans) {
  auto text = RenderText(
      "rails:\n{{#rails}}\n  - {{name}}\n{{/rails}}\n{{#tcp}}\nmode: tcp\n{{/tcp}}\n"
      "{{^tcp}}\nmode: rdma\n{{/tcp}}\n{{#gateway}}\ngw: {{gateway}}\n{{/gateway}}\n"
      "args:\n{{#args}}\n  - {{.}}\n{{/args}}\n",
      {{"rails", {{{"name", "eno5np0"}}, {{"name", "eno6np0"}}}},
       {"tcp", false},  // "y" below is a YAML 1.1 boolean word: it must come out quoted
       {"gateway", nullptr},
       {"args", {"--x", "y"}}});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "rails:\n  - eno5np0\n  - eno6np0\nmode: rdma\nargs:\n  - \"--x\"\n  - \"y\"\n");
}

// Literal spaces are hidden from kainjow while it parses (one node per space made parsing the
// big cost of a render); the output must stay kainjow's own, spaces and line rules alike (these
// are the bytes kainjow gives without the hiding): it drops a line that a rendered section left
// with only spaces, and keeps the spaces of a line whose inline section it skipped.
TEST(Render, KeepsEverySpaceAndKainjowsLineRules) {
  auto text = RenderText(
      "a:\n  {{#off}}x: 1{{/off}}\n  {{#on}}y: 2{{/on}}\n  {{^on}}z: 3{{/on}}  \n"
      "  {{#on}}{{/on}}  \nb:   {{v}}  \n    \nc: 'd  e'  # note\nf: {{v}} {{v}}\n",
      {{"off", false}, {"on", true}, {"v", "w"}});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "a:\n  \n  y: 2\n    \nb:   w  \n    \nc: 'd  e'  # note\nf: w w\n");
}

TEST(Render, ReadsDottedNamesAndOuterKeysInsideSections) {
  auto text = RenderText("{{#items}}\n{{name}}: {{ns.name}}\n{{/items}}\n",
                         {{"items", {{{"name", "a"}}}}, {"ns", {{"name", "team"}}}});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "a: team\n");
}

TEST(Render, ReportsMissingKeyInsteadOfRenderingEmpty) {
  std::string errors;
  EXPECT_FALSE(
      RenderText("name: {{nmae}}\n{{#flag}}\nx: 1\n{{/flag}}\n", {{"name", "a"}}, &errors));
  EXPECT_EQ(errors,
            "templates/t/x.yaml.mustache: error: missing key 'nmae' while rendering 10-x.yaml "
            "[template.missing-key]\n"
            "  fix: add the key to the plan's context for this template\n"
            "templates/t/x.yaml.mustache: error: missing key 'flag' while rendering 10-x.yaml "
            "[template.missing-key]\n"
            "  fix: add the key to the plan's context for this template\n"
            "2 errors, 0 warnings\n");
}

TEST(Render, ReportsMappingUsedAsScalar) {
  std::string errors;
  EXPECT_FALSE(RenderText("name: {{obj}}\n", {{"obj", {{"a", 1}}}}, &errors));
  EXPECT_NE(errors.find("'obj' is a mapping, not a scalar"), std::string::npos) << errors;
}

TEST(Render, ReportsOutputThatIsNotOneYamlMapping) {
  std::string errors;
  EXPECT_FALSE(RenderText("name: {{a}}-{{b}}\n", {{"a", "x: y"}, {"b", "z"}}, &errors));
  EXPECT_NE(errors.find("[render.invalid-yaml]"), std::string::npos) << errors;
  EXPECT_FALSE(RenderText("a: 1\n---\nb: 2\n", nlohmann::json::object(), &errors));
  EXPECT_NE(errors.find("is not exactly one YAML mapping (2 documents)"), std::string::npos)
      << errors;
  EXPECT_FALSE(RenderText("- a\n", nlohmann::json::object(), &errors));
}

TEST(Render, ReportsTemplateSyntaxErrorsBeforeRenderingAny) {
  std::string errors;
  EXPECT_FALSE(RenderText("{{#open}}\nx: 1\n", nlohmann::json::object(), &errors));
  EXPECT_NE(errors.find("templates/t/x.yaml.mustache: error: "), std::string::npos) << errors;
  EXPECT_NE(errors.find("[template.syntax]"), std::string::npos) << errors;
  EXPECT_FALSE(RenderText("{{=<% %>=}}\n", nlohmann::json::object(), &errors));
  EXPECT_NE(errors.find("set-delimiter tags are not supported"), std::string::npos) << errors;
}

TEST(Render, IncludesPartialsByPath) {
  auto text = RenderText("metadata:\n{{>common/labels}}\n", {{"app", "trainer"}}, nullptr,
                         {{"common/labels.mustache", "  labels:\n    app: {{app}}\n"}});
  ASSERT_TRUE(text);
  EXPECT_EQ(YAML::Load(*text)["metadata"]["labels"]["app"].as<std::string>(), "trainer");
  std::string errors;
  EXPECT_FALSE(RenderText("{{>nope}}\n", nlohmann::json::object(), &errors));
  EXPECT_NE(errors.find("missing partial 'nope'"), std::string::npos) << errors;
}

// Partials are expanded when their template is parsed (kainjow would parse them again for
// every object); a partial that includes itself must end in an error, not endless recursion.
TEST(Render, ReportsAPartialThatIncludesItself) {
  std::string errors;
  EXPECT_FALSE(RenderText("a: 1\n{{>loop}}\n", nlohmann::json::object(), &errors,
                          {{"loop.mustache", "b: 2\n{{>loop}}\n"}}));
  EXPECT_NE(errors.find("includes itself"), std::string::npos) << errors;
}

TEST(Render, ExpandsNestedPartialsAndTheirSections) {
  auto text = RenderText("metadata:\n{{>outer}}\n", {{"app", "trainer"}, {"on", true}}, nullptr,
                         {{"outer.mustache", "  labels:\n{{>inner}}\n"},
                          {"inner.mustache", "{{#on}}\n    app: {{app}}\n{{/on}}\n"}});
  ASSERT_TRUE(text);
  EXPECT_EQ(YAML::Load(*text)["metadata"]["labels"]["app"].as<std::string>(), "trainer");
}

// Embedded templates are parsed when first used; this parses every one of them, so that a
// syntax error in one that no shipped profile renders is still caught.
TEST(Render, EveryEmbeddedTemplateParses) {
  DiagnosticSink sink;
  EXPECT_TRUE(ParseTemplates(EmbeddedTemplates(), sink)) << FormatDiagnostics(sink, {});
  EXPECT_GT(EmbeddedTemplates().size(), 20u);
}

// A large plan is rendered while it is built (RenderAhead, for peak memory): the bundle must be
// the very one RenderBundle makes from the finished plan, and the contexts rendered ahead are
// released at once.
TEST(Render, RenderingAheadGivesTheSameBundle) {
  DiagnosticSink sink;
  auto templates = ParseTemplates({{"o.mustache",
                                    "kind: ConfigMap\nname: {{n}}\n{{#on}}\non: {{n}}\n{{/on}}\n"},
                                   {"k.mustache", "kind: Kustomization\n"},
                                   {"a.mustache", "kind: Application\n"}},
                                  sink);
  ASSERT_TRUE(templates);
  BundlePlan whole;
  whole.bundle_name = "b";
  whole.kustomization = Object("k.mustache", "kustomization.yaml", nlohmann::json::object());
  whole.application = Object("a.mustache", "application.yaml", nlohmann::json::object());
  BundlePlan built = whole;
  RenderAhead ahead(*templates, RenderCheck::kReparse, 3, {});
  for (int i = 0; i < 1500; ++i) {
    PlannedObject object = Object("o.mustache", "ns-" + std::to_string(i) + ".yaml",
                                  {{"n", "x" + std::to_string(i)}, {"on", i % 3 == 0}});
    whole.objects.push_back(object);
    built.objects.push_back(object);
    if (i % 10 == 9) ahead.Render(built);
  }
  EXPECT_TRUE(built.objects.front().context.is_null()) << "rendered ahead and released";
  EXPECT_FALSE(ahead.files.empty());
  std::swap(built.objects[0], built.objects[700]);  // the plan is sorted after it is built
  std::swap(whole.objects[0], whole.objects[700]);
  auto expected = RenderBundle(whole, *templates, sink);
  auto actual = RenderBundle(std::move(built), *templates, sink, RenderCheck::kReparse, {}, 2,
                             &ahead);
  ASSERT_TRUE(expected && actual) << FormatDiagnostics(sink, {});
  ASSERT_EQ(expected->files.size(), actual->files.size());
  for (size_t i = 0; i < expected->files.size(); ++i) {
    EXPECT_EQ(expected->files[i].file_name, actual->files[i].file_name);
    EXPECT_EQ(expected->files[i].content, actual->files[i].content);
  }
}

TEST(Render, RawTagsInsertTextAsIs) {
  auto text = RenderText("data:\n  topo.xml: |\n{{{xml}}}\n", {{"xml", "    <system/>"}});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "data:\n  topo.xml: |\n    <system/>\n");
}

TEST(Render, KeepsPlanOrderThenKustomizationThenApplication) {
  DiagnosticSink sink;
  auto templates = ParseTemplates({{"a.mustache", "kind: A\nname: {{n}}\n"}}, sink);
  ASSERT_TRUE(templates);
  BundlePlan plan;
  plan.objects.push_back(Object("a.mustache", "20-b.yaml", {{"n", "b"}}));
  plan.objects.push_back(Object("a.mustache", "10-a.yaml", {{"n", "a"}}));
  plan.kustomization = Object("a.mustache", "kustomization.yaml", {{"n", "k"}});
  plan.application = Object("a.mustache", "application.yaml", {{"n", "app"}});
  auto bundle = RenderBundle(plan, *templates, sink);
  ASSERT_TRUE(bundle) << FormatDiagnostics(sink, {});
  std::vector<std::string> names;
  for (const auto& f : bundle->files) names.push_back(f.file_name);
  EXPECT_EQ(names, (std::vector<std::string>{"20-b.yaml", "10-a.yaml", "kustomization.yaml",
                                             "application.yaml"}));
  EXPECT_EQ(BundleStream(*bundle),
            "---\n# Source: templates/a.mustache\nkind: A\nname: b\n"
            "---\n# Source: templates/a.mustache\nkind: A\nname: a\n"
            "---\n# Source: templates/a.mustache\nkind: A\nname: app\n");
}

TEST(Render, RejectsDuplicateFileNames) {
  DiagnosticSink sink;
  auto templates = ParseTemplates({{"a.mustache", "kind: A\n"}}, sink);
  ASSERT_TRUE(templates);
  BundlePlan plan;
  plan.objects.push_back(Object("a.mustache", "x.yaml", nlohmann::json::object()));
  plan.objects.push_back(Object("a.mustache", "x.yaml", nlohmann::json::object()));
  plan.kustomization = Object("a.mustache", "kustomization.yaml", nlohmann::json::object());
  plan.application = Object("a.mustache", "application.yaml", nlohmann::json::object());
  EXPECT_FALSE(RenderBundle(plan, *templates, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "render.file-name");
}

TEST(Render, AcceptsLayerFileNamesAndRejectsNamesOutsideTheBundle) {
  DiagnosticSink sink;
  auto templates = ParseTemplates({{"a.mustache", "kind: A\n"}}, sink);
  ASSERT_TRUE(templates);
  BundlePlan plan;
  plan.objects.push_back(Object("a.mustache", "platform/x.yaml", nlohmann::json::object()));
  plan.kustomization = Object("a.mustache", "kustomization.yaml", nlohmann::json::object());
  plan.application = Object("a.mustache", "application.yaml", nlohmann::json::object());
  plan.layer_files.push_back(Object("a.mustache", "apps/platform.yaml", nlohmann::json::object()));
  EXPECT_TRUE(RenderBundle(plan, *templates, sink));
  for (const std::string bad : {"../x.yaml", "/x.yaml", "a//x.yaml", "a/./x.yaml", "a/"}) {
    DiagnosticSink bad_sink;
    plan.objects[0].file_name = bad;
    EXPECT_FALSE(RenderBundle(plan, *templates, bad_sink)) << bad;
    ASSERT_EQ(bad_sink.ErrorCount(), 1) << bad;
    EXPECT_EQ(bad_sink.diagnostics()[0].rule, "render.file-name");
  }
}

TEST(Render, ReportsMissingTemplate) {
  DiagnosticSink sink;
  auto templates = ParseTemplates({}, sink);
  ASSERT_TRUE(templates);
  BundlePlan plan;
  plan.kustomization = Object("k.mustache", "kustomization.yaml", nlohmann::json::object());
  plan.application = Object("a.mustache", "application.yaml", nlohmann::json::object());
  EXPECT_FALSE(RenderBundle(plan, *templates, sink));
  EXPECT_EQ(sink.ErrorCount(), 2);
  EXPECT_EQ(sink.diagnostics()[0].rule, "template.missing");
}

}  // namespace
}  // namespace hkim
