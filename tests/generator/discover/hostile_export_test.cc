// The built hkimgen on hostile cluster exports: real-size exports in discover, no
// control character from an export on a terminal or in a draft, oversize inputs refused before
// they are read, output files never written through a symlink, inputs that cannot be both.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_files.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kFixtures = fs::path(HKIM_SOURCE_DIR) / "tests/generator/discover";

class HostileExport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestFolder("hostile");
    fs::create_directories(dir_ / "run");
  }
  void TearDown() override { fs::remove_all(dir_); }
  test_files::CommandRun Run(const std::string& args) {
    return test_files::RunShell(std::string(HKIM_BINARY) + " " + args, dir_, dir_ / "run");
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

std::string Fixture() { return test_files::ReadFile(kFixtures / "openshift-amd.json"); }

void ExpectNoControlCharacters(const std::string& text, const std::string& what) {
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') continue;
    ASSERT_FALSE(u < 0x20 || u == 0x7f) << what << " holds byte " << int(u) << ":\n" << text;
  }
}

// discover reads an export under the export limit, as `--cluster` does, not the profile's 1 MiB
// (which would call a large export "not valid JSON ... a cut-off export?").
TEST_F(HostileExport, DiscoverReadsAnExportLargerThanOneMiB) {
  std::string text = Fixture();
  text.insert(1, std::string(2 << 20, ' '));
  const std::string path = Write("big.json", text);
  auto run = Run("discover " + path + " --name rack7");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("name: rack7"));
}

// ESC sequences and a carriage return in an object name must not reach the terminal, and a NUL
// must not cut the draft short while discover says it wrote the file.
TEST_F(HostileExport, ControlCharactersInNamesReachNeitherTheTerminalNorTheDraft) {
  std::string text = Fixture();
  const std::string hostile = "rack7-gpu01\\u001b[2J\\u001b]0;title\\u0007\\rerror: forged\\u0000";
  for (std::size_t at = text.find("rack7-gpu01"); at != std::string::npos;
       at = text.find("rack7-gpu01", at + hostile.size())) {
    text.replace(at, 11, hostile);
  }
  const std::string path = Write("hostile.json", text);
  const std::string draft = (dir_ / "draft.yaml").string();
  auto run = Run("discover " + path + " --name rack7 --output-file " + draft);
  ExpectNoControlCharacters(run.err, "stderr");
  if (run.status == 0) {
    const std::string written = test_files::ReadFile(draft);
    ExpectNoControlCharacters(written, "the draft");
    EXPECT_THAT(written, HasSubstr("\\x1b[2J"));  // the name, escaped, in a provenance comment
    auto validate = Run("validate " + draft + " --cluster " + path + " --node-table");
    EXPECT_EQ(validate.status, 0) << validate.err;
    ExpectNoControlCharacters(validate.out + validate.err, "validate --cluster");
  } else {
    // Written with the findings as comments at its top, escaped like the rest.
    EXPECT_EQ(run.status, 1);
    EXPECT_THAT(run.err, HasSubstr("[discover.draft-invalid]"));
    const std::string written = test_files::ReadFile(draft);
    ExpectNoControlCharacters(written, "the draft");
    EXPECT_EQ(written.rfind("# hkimgen discover: this draft does not validate yet (", 0), 0u);
  }
  auto to_stdout = Run("discover " + path);
  ExpectNoControlCharacters(to_stdout.out + to_stdout.err, "discover to stdout");
}

// A device-plugin resource name (a capacity key of the export) is a value of the draft, not only
// a comment: with a carriage return, an ESC sequence or DEL in it, it is written as a quoted
// string of escapes, so the draft holds no control byte and reads back as that very name.
TEST_F(HostileExport, ControlCharactersInAResourceNameAreEscapedInTheDraftsValue) {
  std::string text = Fixture();
  const std::vector<std::pair<std::string, std::string>> renames = {
      {"openshift.io/ens1f0rdma", "\\rforged"},  // JSON escapes
      {"openshift.io/ens2f0rdma", "\\u001b[2J\\u007f"}};
  for (const auto& [key, tail] : renames) {
    for (std::size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + key.size() + tail.size())) {
      text.insert(at + key.size(), tail);
    }
  }
  auto run = Run("discover " + Write("hostile.json", text));
  ExpectNoControlCharacters(run.out + run.err, "discover to stdout");
  YAML::Node draft;
  ASSERT_NO_THROW(draft = YAML::Load(run.out)) << run.out;
  std::vector<std::string> names;
  for (const YAML::Node& rail : draft["network"]["rails"]) {
    names.push_back(rail["resource_name"].as<std::string>(""));
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("openshift.io/ens1f0rdma\rforged",
                                                     "openshift.io/ens2f0rdma\x1b[2J\x7f"))
      << run.out;
}

// An oversize export is refused by its size, before it is read up to the 512 MiB cap: under a
// 400 MB address-space limit, reading it would fail; refusing it by its size does not.
TEST_F(HostileExport, AnOversizeExportIsRefusedBeforeItIsRead) {
  const std::string path = (dir_ / "huge.json").string();
  fs::resize_file(Write("huge.json", "{"), 600ull << 20);  // sparse: no disk used
  for (const std::string& args : std::vector<std::string>{"discover huge.json", "discover - < huge.json",
                                 "validate " + (fs::path(HKIM_SOURCE_DIR) / "profiles/barcelona-h100-cx7.yaml").string() +
                                     " --cluster huge.json"}) {
    auto run = test_files::RunShell("ulimit -v 400000; " + std::string(HKIM_BINARY) + " " + args,
                                    dir_, dir_ / "run");
    // validate prints its findings on stdout, discover on stderr.
    EXPECT_EQ(run.status, 1) << args << "\n" << run.err;
    EXPECT_THAT(run.out + run.err, HasSubstr("600 MiB, more than the 512 MiB an export may have"))
        << args;
    EXPECT_THAT(run.out + run.err, HasSubstr("[limit.file-size]")) << args;
  }
}

// --output-file never follows a symlink (a dangling one would create a file outside the path).
TEST_F(HostileExport, OutputFilesAreNeverWrittenThroughASymlink) {
  const std::string fixture = (kFixtures / "openshift-amd.json").string();
  fs::create_directories(dir_ / "elsewhere");
  for (const std::string& command :
       std::vector<std::string>{"discover " + fixture + " --name rack7",
                                "init --name rack7 --platform openshift --shape barcelona-h100-cx7"}) {
    fs::remove(dir_ / "out.yaml");
    fs::create_symlink(dir_ / "elsewhere" / "planted.yaml", dir_ / "out.yaml");
    auto refused = Run(command + " --output-file out.yaml");
    EXPECT_EQ(refused.status, 1) << command << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("[io.exists]"));
    EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "planted.yaml")) << command;
    // --force replaces the link itself.
    auto forced = Run(command + " --output-file out.yaml --force");
    EXPECT_EQ(forced.status, 0) << command << forced.err;
    EXPECT_FALSE(fs::is_symlink(fs::symlink_status(dir_ / "out.yaml"))) << command;
    EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "planted.yaml")) << command;
  }
}

// `validate - --cluster -`: stdin is read once, so it cannot be both the profile and the export.
TEST_F(HostileExport, StdinIsEitherTheProfileOrTheExport) {
  const std::string profile = (fs::path(HKIM_SOURCE_DIR) / "profiles/barcelona-h100-cx7.yaml").string();
  auto run = Run("validate - --cluster - < " + profile);
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr("the cluster export cannot be read from stdin: stdin is already "
                                 "read as a profile or values file [cli.usage]"));
  auto twice = Run("discover - - < " + (kFixtures / "openshift-amd.json").string());
  EXPECT_EQ(twice.status, 1);
  EXPECT_THAT(twice.err, HasSubstr("stdin is already read as the cluster export [cli.usage]"));
}

// `discover --name` names a file too: a name such as ../../etc/passwd is refused.
TEST_F(HostileExport, ANameThatIsNotADnsLabelIsRefused) {
  auto run = Run("discover " + (kFixtures / "openshift-amd.json").string() +
                 " --name ../../etc/passwd");
  EXPECT_EQ(run.status, 1);
  EXPECT_THAT(run.err, HasSubstr("--name \"../../etc/passwd\" is not a DNS label"));
  EXPECT_THAT(run.err, HasSubstr("[cli.usage]"));
  EXPECT_TRUE(run.out.empty());
}

}  // namespace
}  // namespace hkim
