// The shipped bundles: for every profiles/*.yaml, the committed out/<name> is what the profile
// renders to today, the render is reproducible, every file validates against the upstream schemas
// and `kubectl kustomize` builds the directory.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_files.h"
#include "upstream_validator.h"

namespace {

namespace fs = std::filesystem;
using hkim::test_files::CommandRun;
using hkim::test_files::OnPath;
using hkim::test_files::ReadFile;
using hkim::test_files::RunShell;
using hkim::test_files::ManifestsUnder;
using hkim::test_files::UpstreamVerdict;
using hkim::test_files::ValidateUpstream;
using hkim::test_files::ShippedProfiles;

const fs::path kSource = HKIM_SOURCE_DIR;

/// Runs a shell command from the source root, capturing its output in `scratch`.
CommandRun Shell(const std::string& command, const fs::path& scratch) {
  return RunShell(command, kSource, scratch);
}

class ShippedBundle : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    scratch_ = fs::temp_directory_path() /
               ("hkim-bundle-test-" + std::to_string(getpid()) + "-" + Sanitized(GetParam()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }
  void TearDown() override { fs::remove_all(scratch_); }

  static std::string Sanitized(std::string name) {
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
  }
  std::string profile() const { return "profiles/" + GetParam() + ".yaml"; }
  std::string bundle() const { return "out/" + GetParam(); }
  CommandRun Hkimgen(const std::string& args) {
    return Shell("'" HKIM_BINARY "' " + args, scratch_);
  }

  fs::path scratch_;
};

TEST_P(ShippedBundle, CommittedOutputIsCurrent) {
  ASSERT_TRUE(fs::is_directory(kSource / bundle()))
      << bundle() << " is missing: run `hkimgen render " << profile() << " -d " << bundle()
      << "` and commit it";
  CommandRun run = Hkimgen("render " + profile() + " -d " + bundle() + " --check");
  EXPECT_EQ(run.status, 0) << run.err << "refresh with: hkimgen render " << profile() << " -d "
                           << bundle();
}

TEST_P(ShippedBundle, RendersByteIdenticalTwice) {
  CommandRun first = Hkimgen("render " + profile());
  CommandRun second = Hkimgen("render " + profile());
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_FALSE(first.out.empty());
  EXPECT_EQ(first.out, second.out);
  // Shipped profiles render without errors or warnings; the only notes are their accepted
  // lint.image-digest (accept_warnings: no digest of their images is recorded) and, on OKE, the
  // node agents privileged under SELinux enforcing (lint.node-agent-privileged) and oke-h100's
  // accepted end-of-support GPU Operator line (lint.gpu-operator-support).
  EXPECT_NE(first.err.find("\n0 errors, 0 warnings\n"), std::string::npos) << first.err;
  for (size_t at = first.err.find(": note: "); at != std::string::npos;
       at = first.err.find(": note: ", at + 1)) {
    const std::string note = first.err.substr(at, first.err.find('\n', at) - at);
    EXPECT_TRUE(note.find("[lint.image-digest]") != std::string::npos ||
                note.find("[lint.node-agent-privileged]") != std::string::npos ||
                note.find("[lint.gpu-operator-support]") != std::string::npos)
        << note;
  }
  // Nothing machine-specific leaks into the output.
  EXPECT_EQ(first.out.find(kSource.string()), std::string::npos);
  char host[256] = {};
  if (gethostname(host, sizeof host) == 0 && std::string(host).size() > 3) {
    EXPECT_EQ(first.out.find(host), std::string::npos) << "host name in output";
  }
  // A directory render from elsewhere holds the same bytes as the committed bundle.
  CommandRun dir = Hkimgen("render " + profile() + " -d '" + (scratch_ / "b").string() + "'");
  ASSERT_EQ(dir.status, 0) << dir.err;
  for (const auto& entry : fs::recursive_directory_iterator(scratch_ / "b")) {
    if (entry.is_directory()) continue;
    const fs::path name = entry.path().lexically_relative(scratch_ / "b");
    EXPECT_EQ(ReadFile(entry.path()), ReadFile(kSource / bundle() / name)) << name;
  }
}

TEST_P(ShippedBundle, EveryFileValidatesAgainstUpstreamSchemas) {
  // Every API object in every layer directory, Argo CD Applications included (kustomization.yaml
  // files: KubectlKustomizeBuildsTheDirectory). A kind without an upstream schema fails.
  const std::vector<std::string> files = ManifestsUnder(kSource / bundle());
  ASSERT_FALSE(files.empty()) << bundle() << " is missing or empty";
  const UpstreamVerdict run = ValidateUpstream(files);
  if (!run.skip.empty()) GTEST_SKIP() << "skipped: " << run.skip;
  EXPECT_EQ(run.status, 0) << run.text;
}

TEST_P(ShippedBundle, KubectlKustomizeBuildsTheDirectory) {
  if (!OnPath("kubectl")) GTEST_SKIP() << "skipped: kubectl is not installed";
  CommandRun run = Shell("kubectl kustomize " + bundle(), scratch_);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("kind: StatefulSet"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Profiles, ShippedBundle, ::testing::ValuesIn(ShippedProfiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ShippedBundle);

TEST(ShippedProfiles, AtLeastOneIsShipped) {
  EXPECT_FALSE(ShippedProfiles().empty()) << "no profiles/*.yaml found under " << kSource;
}

}  // namespace
