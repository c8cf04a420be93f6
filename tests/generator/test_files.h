#pragma once

// What several generator tests share: reading a file, snapshotting a folder for byte-for-byte
// comparisons, running a shell command with its output captured, building a shipped profile
// into its typed model and finding planned objects, and hostile YAML.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "load/load.h"
#include "plan/plan.h"
#include "validate/validate.h"

namespace hkim::test_files {

/// Every non-empty string of `alphabet`'s characters up to `max` long: the inputs on which a
/// scanner is held to the regular expression it replaced.
inline std::vector<std::string> AllStrings(const std::string& alphabet, size_t max) {
  std::vector<std::string> out, level{""};
  for (size_t length = 1; length <= max; ++length) {
    std::vector<std::string> next;
    for (const std::string& prefix : level)
      for (char c : alphabet) next.push_back(prefix + c);
    out.insert(out.end(), next.begin(), next.end());
    level = std::move(next);
  }
  return out;
}

/// The whole file, bytes as they are ("" when it cannot be read).
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Every file under `dir` (relative path -> content).
inline std::map<std::string, std::string> SnapshotDir(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[std::filesystem::relative(entry.path(), dir).string()] = ReadFile(entry.path());
    }
  }
  return files;
}

struct CommandRun {
  int status = -1;  ///< exit status, -1 when killed by a signal
  std::string out, err;
};

/// Runs `command` (one shell line) in `workdir`; stdout and stderr go through files in `scratch`.
inline CommandRun RunShell(const std::string& command, const std::filesystem::path& workdir,
                           const std::filesystem::path& scratch) {
  const std::filesystem::path out = scratch / "stdout", err = scratch / "stderr";
  const std::string line = "cd '" + workdir.string() + "' && " + command + " >'" + out.string() +
                           "' 2>'" + err.string() + "'";
  CommandRun run;
  const int raw = std::system(line.c_str());
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.out = ReadFile(out);
  run.err = ReadFile(err);
  return run;
}

/// The text of the shipped profile profiles/<name>.yaml.
inline std::string ReadProfile(const std::string& name) {
  return ReadFile(std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / (name + ".yaml"));
}

/// The typed profile of `text` (load, schema, model); any diagnostic fails the calling test.
inline Profile BuildFrom(const std::string& text) {
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText("p.yaml", text, sink);
  EXPECT_TRUE(loaded);
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  EXPECT_TRUE(schema && ValidateProfile(*loaded, *schema, sink));
  auto profile = BuildProfile(*loaded, sink);
  for (const Diagnostic& d : sink.diagnostics()) ADD_FAILURE() << d.rule << ": " << d.message;
  return profile.value_or(Profile{});
}

/// `text` with the first `from` replaced by `to`; a missing `from` fails the calling test.
inline std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// Barcelona's profile as if its cluster were fresh: the shipped one adopts what Barcelona runs
/// (issue 35), this one takes the full OpenShift install path — the bundle installs the
/// operators and the node policies, switches the nodes to exclusive RDMA mode and renders the
/// IOMMU MachineConfig.
inline std::string FreshOpenShiftProfile() {
  std::string text = ReadProfile("barcelona-h100-cx7");
  for (int i = 0; i < 3; ++i) text = Replace(text, "install: preinstalled", "install: managed");
  text = Replace(text, "node_policies: false", "node_policies: true");
  text = Replace(text, "already_set: [iommu=pt]", "already_set: []");
  return Replace(text, "rdma_netns: shared", "rdma_netns: exclusive");
}

/// The planned object of `kind` and `name`, or null.
inline const PlannedObject* Find(const BundlePlan& plan, const std::string& kind,
                                 const std::string& name) {
  for (const PlannedObject& o : plan.objects)
    if (o.kind == kind && o.name == name) return &o;
  return nullptr;
}

/// A "billion laughs" document: 12 levels of anchors, each aliasing the previous one 10 times
/// (10^12 values once expanded), which the loader must refuse before expanding.
inline std::string AliasBombYaml() {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 0; k < 9; ++k) bomb += ", " + prev;
    bomb += "]\n";
  }
  return bomb;
}

}  // namespace hkim::test_files
