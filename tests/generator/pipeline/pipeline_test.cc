#include "pipeline/pipeline.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipeline/prepare.h"
#include "support/diagnostics_format.h"
#include "support/parallel.h"
#include "test_files.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using hkim::test_files::CommandRun;
using hkim::test_files::ReadFile;
using hkim::test_files::RunShell;
using hkim::test_files::SnapshotDir;

const fs::path kSource = HKIM_SOURCE_DIR;
const fs::path kCorpus = kSource / "tests/generator/malformed";

/// Runs the built hkimgen from the source root (so paths in messages are the relative ones).
CommandRun Hkimgen(const std::string& args, const fs::path& scratch) {
  return RunShell("'" HKIM_BINARY "' " + args, kSource, scratch);
}

class Scratch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestFolder("pipeline-test");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(ExitCode, IsZeroOneOrTwoByWhatWentWrong) {
  DiagnosticSink ok;
  ok.Report(Diagnostic{Severity::kWarning, {}, "", "lint.x", "w", ""});
  EXPECT_EQ(ExitCodeFor(ok), 0);
  DiagnosticSink invalid;
  invalid.Report(Diagnostic{Severity::kError, {}, "", "schema.minimum", "m", ""});
  EXPECT_EQ(ExitCodeFor(invalid), 1);
  DiagnosticSink stale;
  stale.Report(Diagnostic{Severity::kError, {}, "", "write.stale", "m", ""});
  EXPECT_EQ(ExitCodeFor(stale), 1);
  for (const char* rule :
       {"io.read", "io.write", "template.missing-key", "render.invalid-yaml", "schema.missing"}) {
    DiagnosticSink failure;
    failure.Report(Diagnostic{Severity::kError, {}, "", "schema.type", "m", ""});
    failure.Report(Diagnostic{Severity::kError, {}, "", rule, "m", ""});
    EXPECT_EQ(ExitCodeFor(failure), 2) << rule;
  }
}

TEST_F(Scratch, StopsAfterLoadAndKeepsTheSourceLines) {
  const fs::path profile = dir_ / "p.yaml";
  std::ofstream(profile) << "a: 1\na: 2\n";
  DiagnosticSink sink;
  SourceTexts sources;
  EXPECT_FALSE(RenderProfileFile(profile.string(), sink, &sources));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "yaml.duplicate-key");
  EXPECT_EQ(sources[profile.string()], (std::vector<std::string>{"a: 1", "a: 2"}));
}

TEST_F(Scratch, MissingProfileIsAnIoFailure) {
  CommandRun run = Hkimgen("render tests/generator/malformed/no-such-profile.yaml", dir_);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err,
            "tests/generator/malformed/no-such-profile.yaml: error: cannot read the profile: No "
            "such file or directory [io.read]\n  fix: check the path and its permissions (- "
            "reads stdin)\n1 error, 0 warnings\n");
  EXPECT_EQ(run.out, "");
}

TEST_F(Scratch, CheckWithoutDirectoryIsAUsageError) {
  CommandRun run = Hkimgen("render tests/generator/malformed/ok-special-values.yaml --check", dir_);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err,
            "error: --check needs -d DIR [cli.usage]\n  fix: add -d with the directory to "
            "compare\n1 error, 0 warnings\n");
}

TEST_F(Scratch, JsonDiagnosticsForTools) {
  CommandRun run = Hkimgen("render tests/generator/malformed/unknown-key.yaml -o json", dir_);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "") << "-o json: one document, on stdout";
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["command"], "render");
  EXPECT_EQ(report["exit_code"], 1);
  nlohmann::json errors = report["diagnostics"];
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["rule"], "schema.unknown-key");
  EXPECT_EQ(errors[0]["file"], "tests/generator/malformed/unknown-key.yaml");
  EXPECT_GT(errors[0]["line"].get<int>(), 0);
}

// The malformed corpus: every tests/generator/malformed/<case>.yaml except ok-* must exit 1 with
// exactly the message in <case>.expected, and leave an existing output directory byte-identical.
// HKIM_UPDATE_GOLDEN=1 rewrites the .expected files (review the diff like code).
TEST_F(Scratch, MalformedCorpusExitsOneWithLocatedMessageAndTouchesNothing) {
  const bool update = std::getenv("HKIM_UPDATE_GOLDEN") != nullptr;
  const fs::path out = dir_ / "bundle";
  fs::create_directories(out);
  std::ofstream(out / "10-keep.yaml") << "kind: ConfigMap\n";
  std::ofstream(out / "kustomization.yaml") << "resources: [10-keep.yaml]\n";
  const auto before = SnapshotDir(out);
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".yaml" && name.rfind("ok-", 0) != 0) {
      cases.push_back(entry.path());
    }
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_GE(cases.size(), 7u);
  for (const fs::path& profile : cases) {
    SCOPED_TRACE(profile.filename().string());
    const std::string relative = fs::relative(profile, kSource).string();
    CommandRun run = Hkimgen("render " + relative + " -d '" + out.string() + "'", dir_);
    EXPECT_EQ(run.status, 1);
    // Located: the first line names file:line:col.
    EXPECT_EQ(run.err.rfind(relative + ":", 0), 0u) << run.err;
    EXPECT_NE(run.err.find("error: "), std::string::npos);
    fs::path expected = profile;
    expected.replace_extension(".expected");
    if (update) std::ofstream(expected, std::ios::binary) << run.err;
    EXPECT_EQ(run.err, ReadFile(expected));
    EXPECT_EQ(SnapshotDir(out), before);
  }
}

TEST_F(Scratch, ValuesWithYamlSyntaxRenderAsOneScalarEach) {
  const std::string profile = "tests/generator/malformed/ok-special-values.yaml";
  CommandRun run = Hkimgen("render " + profile, dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> wanted = {
      "python", "--note=a: b # not a comment", "line1\nline2: {{x}} 'q' \"dq\"", "- dash", "yes",
      "9000"};
  int statefulsets = 0;
  for (const YAML::Node& doc : YAML::LoadAll(run.out)) {
    ASSERT_TRUE(doc.IsMap());
    if (doc["kind"].as<std::string>() != "StatefulSet") continue;
    ++statefulsets;
    YAML::Node command = doc["spec"]["template"]["spec"]["containers"][0]["command"];
    ASSERT_TRUE(command.IsSequence());
    ASSERT_GE(command.size(), wanted.size());
    std::vector<std::string> tail;
    for (size_t i = command.size() - wanted.size(); i < command.size(); ++i) {
      tail.push_back(command[i].as<std::string>());
      // Everything but the plain word must come out quoted, or YAML would read "yes" as a
      // boolean and "9000" as a number.
      if (tail.back() != "python") EXPECT_EQ(command[i].Tag(), "!") << tail.back();
    }
    EXPECT_EQ(tail, wanted);
  }
  EXPECT_GE(statefulsets, 1);
}

TEST_F(Scratch, DirectoryRenderMatchesTheStreamAndIsReproducible) {
  const std::string profile = "tests/generator/malformed/ok-special-values.yaml";
  CommandRun first = Hkimgen("render " + profile + " -d '" + (dir_ / "a").string() + "'", dir_);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.out, "");
  CommandRun check =
      Hkimgen("render " + profile + " -d '" + (dir_ / "a").string() + "' --check", dir_);
  EXPECT_EQ(check.status, 0) << check.err;
  const auto files = SnapshotDir(dir_ / "a");
  EXPECT_TRUE(files.count("kustomization.yaml"));
  CommandRun stream = Hkimgen("render " + profile, dir_);
  ASSERT_EQ(stream.status, 0);
  EXPECT_TRUE(files.count("platform/kustomization.yaml"));
  EXPECT_TRUE(files.count("apps/workload.yaml"));
  for (const auto& [name, text] : files) {
    // Kustomizations (root and per layer), the marker and the README are not Kubernetes objects.
    if (!test_files::IsManifest(name)) continue;
    EXPECT_NE(stream.out.find("---\n" + text), std::string::npos) << name;
  }
  // Stale after a hand edit: --check names the file and changes nothing.
  std::ofstream(dir_ / "a" / "kustomization.yaml", std::ios::app) << "# edited\n";
  const auto edited = SnapshotDir(dir_ / "a");
  check = Hkimgen("render " + profile + " -d '" + (dir_ / "a").string() + "' --check", dir_);
  EXPECT_EQ(check.status, 1);
  EXPECT_NE(check.err.find("kustomization.yaml: error: out of date"), std::string::npos)
      << check.err;
  EXPECT_EQ(SnapshotDir(dir_ / "a"), edited);
}

// Normal renders trust the templates (RenderCheck::kByConstruction) instead of parsing every
// document again; this is what backs that trust: every shipped and lint-case profile, rendered
// with the re-parse on, gives exactly one YAML mapping per file, and the same bytes as without.
TEST(Pipeline, EveryProfileRendersValidYamlByConstruction) {
  std::vector<fs::path> profiles;
  for (const fs::path& folder : {kSource / "profiles", kSource / "tests/generator/lint_cases"}) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().extension() == ".yaml") profiles.push_back(entry.path());
    }
  }
  std::sort(profiles.begin(), profiles.end());
  int rendered = 0;
  for (const fs::path& profile : profiles) {
    DiagnosticSink trusted_sink, reparsed_sink;
    RenderSettings reparse;
    reparse.check = RenderCheck::kReparse;
    auto trusted = RenderProfileLayers(LayerInputs{profile.string(), {}, {}}, trusted_sink);
    auto reparsed =
        RenderProfileLayers(LayerInputs{profile.string(), {}, {}}, reparsed_sink, nullptr, reparse);
    EXPECT_EQ(trusted.has_value(), reparsed.has_value()) << profile;
    if (!trusted || !reparsed) continue;  // lint cases with errors stop before render
    ++rendered;
    EXPECT_EQ(BundleStream(*trusted), BundleStream(*reparsed)) << profile;
    for (const Diagnostic& d : reparsed_sink.diagnostics()) EXPECT_NE(d.rule, "render.invalid-yaml");
  }
  EXPECT_GE(rendered, 3) << "the shipped profiles at least";
}

// One bundle's objects render on -j threads; the bundle must not depend on how many (files and
// diagnostics are taken in plan order).
// Small bundles render on one thread (ThreadsForSmallTasks): Barcelona with 16 namespaces has
// enough objects for several.
TEST(Pipeline, OneProfileRendersTheSameBytesOnAnyNumberOfThreads) {
  const fs::path overlay =
      fs::temp_directory_path() / ("hkimgen-threads-" + std::to_string(getpid()) + ".yaml");
  {
    std::ofstream out(overlay);
    out << "namespaces:\n";
    for (int i = 0; i < 16; ++i) out << "  - team-" << i << "\n";
  }
  const std::string barcelona = (kSource / "profiles/barcelona-h100-cx7.yaml").string();
  const std::vector<LayerInputs> profiles = {
      {barcelona, {}, {}},
      {(kSource / "profiles/oke-h100.yaml").string(), {}, {}},
      {barcelona, {overlay.string()}, {}}};
  for (const LayerInputs& inputs : profiles) {
    const std::string profile = inputs.profile_path + (inputs.extra_files.empty() ? "" : " -f");
    DiagnosticSink one_sink, many_sink;
    RenderSettings one, many;
    one.jobs = 1;
    many.jobs = 4;
    RenderPreparation preparation;  // the schema and templates set up on a thread of its own
    many.preparation = &preparation;
    auto serial = RenderProfileLayers(inputs, one_sink, nullptr, one);
    auto parallel = RenderProfileLayers(inputs, many_sink, nullptr, many);
    ASSERT_TRUE(serial && parallel) << profile;
    ASSERT_EQ(serial->files.size(), parallel->files.size()) << profile;
    for (size_t i = 0; i < serial->files.size(); ++i) {
      EXPECT_EQ(serial->files[i].file_name, parallel->files[i].file_name) << profile;
      EXPECT_EQ(serial->files[i].content, parallel->files[i].content) << profile;
    }
    EXPECT_EQ(FormatDiagnostics(one_sink, {}), FormatDiagnostics(many_sink, {})) << profile;
    if (!inputs.extra_files.empty()) {
      EXPECT_GE(serial->files.size(), 4 * kMinTasksPerThread) << "enough objects for 4 threads";
    }
  }
  fs::remove(overlay);
}

// A fresh process sets the schema and templates up on a second thread unless -j 1
// (pipeline/prepare.h): the same bytes and messages either way, for every shipped profile.
TEST_F(Scratch, RenderSetUpOnASecondThreadGivesTheSameBundle) {
  for (const char* name : {"barcelona-h100-cx7", "oke-h100", "oke-a100", "oke-a100-gpu4"}) {
    const std::string profile = std::string("profiles/") + name + ".yaml";
    CommandRun serial = Hkimgen("render " + profile + " -j 1", dir_);
    CommandRun prepared = Hkimgen("render " + profile + " -j 2", dir_);
    ASSERT_EQ(serial.status, 0) << serial.err;
    EXPECT_EQ(prepared.status, 0) << prepared.err;
    EXPECT_FALSE(serial.out.empty());
    EXPECT_EQ(serial.out, prepared.out) << profile;
    EXPECT_EQ(serial.err, prepared.err) << profile;
  }
}

// The same through the command line: `render --verify -d` writes the very bytes `render -d` does
// (the marker included), and the stream is the same.
TEST_F(Scratch, VerifyRendersTheSameBytesAsANormalRender) {
  const std::string profile = "profiles/barcelona-h100-cx7.yaml";
  CommandRun plain = Hkimgen("render " + profile + " -q -d '" + (dir_ / "plain").string() + "'",
                             dir_);
  ASSERT_EQ(plain.status, 0) << plain.err;
  CommandRun verified = Hkimgen(
      "render " + profile + " --verify -q -d '" + (dir_ / "verified").string() + "'", dir_);
  ASSERT_EQ(verified.status, 0) << verified.err;
  EXPECT_EQ(SnapshotDir(dir_ / "plain"), SnapshotDir(dir_ / "verified"));
  EXPECT_FALSE(SnapshotDir(dir_ / "plain").empty());
  CommandRun plain_stream = Hkimgen("render " + profile, dir_);
  CommandRun verified_stream = Hkimgen("render " + profile + " --verify", dir_);
  ASSERT_EQ(plain_stream.status, 0) << plain_stream.err;
  ASSERT_EQ(verified_stream.status, 0) << verified_stream.err;
  EXPECT_EQ(plain_stream.out, verified_stream.out);
}

}  // namespace
}  // namespace hkim
