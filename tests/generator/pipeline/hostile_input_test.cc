// Every input gets a diagnostic, never an abort: the built hkimgen over hostile and
// careless inputs, through each command that reads a profile. Exit status is 0, 1 or 2 only;
// the diagnostics never echo NUL or invalid bytes and never print a line longer than a screen.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_files.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using hkim::test_files::RunShell;

class HostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestFolder("hostile");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return (dir_ / name).string();
  }

  /// Runs `hkimgen ARGS`; expects exit 1 with `rule` on stderr, clean text, short lines.
  void ExpectDiagnostic(const std::string& args, const std::string& rule) {
    const auto run = RunShell(std::string(HKIM_BINARY) + " " + args, dir_, dir_);
    // validate and lint print their findings on stdout (their result), render on stderr.
    const std::string said = run.out + run.err;
    EXPECT_EQ(run.status, 1) << args << "\n" << said.substr(0, 2000);
    EXPECT_NE(said.find("[" + rule + "]"), std::string::npos) << args << "\n"
                                                                 << said.substr(0, 2000);
    EXPECT_EQ(said.find('\0'), std::string::npos) << args;
    size_t start = 0;
    while (start < said.size()) {
      size_t end = said.find('\n', start);
      if (end == std::string::npos) end = said.size();
      EXPECT_LE(end - start, 400u) << args << ": a line of " << end - start << " bytes";
      start = end + 1;
    }
  }

  fs::path dir_;
};

TEST_F(HostileInput, EachClassGetsItsDiagnosticFromEveryCommand) {
  const std::string bomb = test_files::AliasBombYaml();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Write("range.yaml", "cluster:\n  name: x\nrails:\n  - mtu: 1e999\n"), "yaml.number-range"},
      {Write("nul.yaml", std::string("cluster:\n  name: \"a\0b\"\n", 23)), "yaml.encoding"},
      {Write("latin1.yaml", "cluster:\n  name: caf\xe9\n"), "yaml.encoding"},
      // yaml-cpp decodes the escape \N to a lone 0x85 byte; render aborted (render_fuzzer).
      {Write("escape.yaml", "key: \"quoted \\N value\"\nyes: no\n"), "schema.required"},
      {Write("bomb.yaml", bomb), "limit.values"},
      {Write("deep.yaml", "a: " + std::string(10000, '[') + "\n"), "limit.depth"},
      {Write("big.yaml", "a: " + std::string(1100 * 1024, 'x') + "\n"), "limit.file-size"},
  };
  for (const auto& [file, rule] : cases) {
    for (const char* command : {"render", "validate", "lint"}) {
      ExpectDiagnostic(std::string(command) + " '" + file + "'", rule);
    }
    ExpectDiagnostic("render '" + file + "' -d out", rule);
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }
}

TEST_F(HostileInput, LayersAndSetValuesGetTheSameDiagnostics) {
  const std::string profile = std::string(HKIM_SOURCE_DIR) + "/profiles/oke-h100.yaml";
  ExpectDiagnostic("render '" + profile + "' -f '" +
                       Write("layer.yaml", "workload:\n  replicas: 1e999\n") + "'",
                   "yaml.number-range");
  ExpectDiagnostic("render '" + profile + "' --set workload.replicas=1e999",
                   "layering.number-range");
  ExpectDiagnostic("render '" + profile + "' --set 'rails[99999999999999999999].mtu=1'",
                   "layering.set-syntax");
  ExpectDiagnostic("render '" + profile + "' --set \"$(printf 'cluster.name=a\\377b')\"",
                   "layering.set-syntax");
  ExpectDiagnostic("render '" + profile + "' --set a=" + std::string(9000, 'x'),
                   "layering.set-syntax");
  ExpectDiagnostic("render /dev/zero", "limit.file-size");
}

}  // namespace
}  // namespace hkim
