#pragma once

// What several generator tests share, on top of tests/support/test_support.h (files, folders,
// commands): the shipped profiles, building one into its typed model, the two fresh-cluster
// profiles, finding planned objects, telling manifests from the bundle's other files, and
// hostile YAML.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "commands/init_command.h"
#include "load/load.h"
#include "plan/plan.h"
#include "test_support.h"
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

using test_support::CommandRun;
using test_support::OnPath;
using test_support::ReadFile;
using test_support::RunCapturing;
using test_support::RunShell;
using test_support::SnapshotDir;

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

/// Barcelona's profile as if its cluster were fresh: the shipped one adopts what Barcelona runs;
/// this one takes the full OpenShift install path — the bundle installs the
/// operators and the node policies, switches the nodes to exclusive RDMA mode and renders the
/// IOMMU MachineConfig.
inline std::string FreshOpenShiftProfile() {
  std::string text = ReadProfile("barcelona-h100-cx7");
  for (int i = 0; i < 3; ++i) text = Replace(text, "install: preinstalled", "install: managed");
  text = Replace(text, "node_policies: false", "node_policies: true");
  text = Replace(text, "already_set: [iommu=pt]", "already_set: []");
  return Replace(text, "rdma_netns: shared", "rdma_netns: exclusive");
}

/// Barcelona's fresh profile (FreshOpenShiftProfile) in a file, written once per process.
inline std::string FreshOpenShiftProfileFile() {
  return test_support::TempFileOnce("hkim-fresh-openshift", FreshOpenShiftProfile()).string();
}

/// A profile for a fresh OpenShift cluster as `hkimgen init --platform openshift` writes it
/// (cluster `lab`, shape barcelona-h100-cx7), in a file written once per process: the bundle
/// installs the operators and renders the node objects (IOMMU MachineConfig, SR-IOV node
/// policies, the RDMA pool config, the ClusterPolicy), for the tests of what those objects'
/// changes do.
inline std::string FreshOpenShiftProfilePath() {
  InitOptions options;
  options.platform = "openshift";
  options.shape = "barcelona-h100-cx7";
  options.name = "lab";
  options.repo_url = "https://github.com/lab/bundles.git";
  return test_support::TempFileOnce("hkim-fresh-openshift-starter",
                                    StarterProfile(options).value_or(""))
      .string();
}

/// The shipped profiles' names (profiles/*.yaml without the extension), sorted.
inline std::vector<std::string> ShippedProfiles() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(HKIM_SOURCE_DIR) / "profiles", ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// Whether a bundle file (its path in the bundle) holds a Kubernetes object: not the README, the
/// marker or a kustomization.
inline bool IsManifest(const std::string& file_name) {
  const std::string name = std::filesystem::path(file_name).filename().string();
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0 &&
         name != "kustomization.yaml";
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
