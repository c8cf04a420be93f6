// diff: added / changed / removed files against a bundle directory, unified diffs, and the
// disruptive flag on changes that drain or reboot nodes; over a fleet (fleet/fleet_diff.h), folder by
// folder, with the bundles of clusters no longer in it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "diff/bundle_diff.h"
#include "diff/diff_text.h"
#include "fleet/fleet_diff.h"
#include "write/guard.h"

namespace hkim {
namespace {

constexpr const char* kMachineConfig = R"(apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-worker-iommu-passthrough
  labels:
    machineconfiguration.openshift.io/role: worker
spec:
  kernelArguments:
    - amd_iommu=on
    - iommu=pt
)";

constexpr const char* kService = R"(apiVersion: v1
kind: Service
metadata:
  name: job-headless
spec:
  clusterIP: None
)";

RenderedBundle Bundle(std::map<std::string, std::string> files) {
  RenderedBundle bundle;
  bundle.bundle_name = "lab";
  for (auto& [name, content] : files) bundle.files.push_back({name, "t.mustache", content});
  return bundle;
}

/// A rendered file as WriteBundleDir leaves it on disk (FileText: headed "# Source: ...").
std::string OnDisk(const std::string& content) {
  return "# Source: templates/t.mustache\n" + content;
}

TEST(BundleDiff, IdenticalDirectoryHasNoChanges) {
  BundleDiff diff = DiffBundle(Bundle({{"a.yaml", kService}}), {{"a.yaml", OnDisk(kService)}});
  EXPECT_FALSE(diff.HasChanges());
  EXPECT_EQ(FormatBundleDiff(diff, "out/lab"), "out/lab: no changes\n");
}

TEST(BundleDiff, AddedChangedAndRemovedFilesAreListedByName) {
  std::string changed = kService;
  changed.replace(changed.find("None"), 4, "10.0.0.1");
  std::string other = kService;  // another object: a file of the same object would be a move
  other.replace(other.find("job-headless"), 12, "job-other");
  BundleDiff diff = DiffBundle(Bundle({{"b.yaml", changed}, {"c.yaml", other}}),
                               {{"a.yaml", OnDisk(kService)}, {"b.yaml", OnDisk(kService)}});
  ASSERT_EQ(diff.changes.size(), 3u);
  EXPECT_EQ(diff.changes[0].kind, BundleChange::Kind::kRemoved);
  EXPECT_EQ(diff.changes[0].file_name, "a.yaml");
  EXPECT_EQ(diff.changes[1].kind, BundleChange::Kind::kChanged);
  EXPECT_EQ(diff.changes[1].object_kind, "Service");
  EXPECT_EQ(diff.changes[1].object_name, "job-headless");
  EXPECT_EQ(diff.changes[1].unified_diff,
            "--- a/b.yaml\n+++ b/b.yaml\n@@ -4,4 +4,4 @@\n metadata:\n   name: job-headless\n"
            " spec:\n-  clusterIP: None\n+  clusterIP: 10.0.0.1\n");
  EXPECT_EQ(diff.changes[2].kind, BundleChange::Kind::kAdded);
  EXPECT_FALSE(diff.HasDisruptiveChanges());
  const std::string text = FormatBundleDiff(diff, "out/lab");
  EXPECT_NE(text.find("- removed a.yaml (Service job-headless)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("~ changed b.yaml (Service job-headless)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("+ added c.yaml (Service job-other)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("out/lab: 1 to add, 1 to change, 1 to remove\n"), std::string::npos);
}

TEST(BundleDiff, MachineConfigChangeIsDisruptive) {
  std::string intel = kMachineConfig;
  intel.replace(intel.find("amd_iommu"), 9, "intel_iommu");
  BundleDiff diff = DiffBundle(Bundle({{"00-mc.yaml", intel}}), {{"00-mc.yaml", kMachineConfig}});
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_TRUE(diff.changes[0].disruptive);
  EXPECT_TRUE(diff.HasDisruptiveChanges());
  EXPECT_NE(diff.changes[0].disruption.find("reboots"), std::string::npos);
  const std::string text = FormatBundleDiff(diff, "out");
  EXPECT_NE(text.find("[disruptive: "), std::string::npos);
  EXPECT_NE(text.find("[disruptive: drain and reboot: the Machine Config Operator"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 disruptive (nodes will drain, reboot, reset VFs or roll a driver)"),
            std::string::npos);
  nlohmann::json j = BundleDiffToJson(diff, "out");
  EXPECT_EQ(j["changes"][0]["disruptive"], true);
  EXPECT_EQ(j["changes"][0]["kind"], "MachineConfig");
  EXPECT_EQ(j["summary"]["disruptive"], 1);
}

TEST(BundleDiff, RemovingAPrunableMachineConfigIsDisruptiveToo) {
  BundleDiff diff = DiffBundle(Bundle({}), {{"00-mc.yaml", kMachineConfig}});
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_TRUE(diff.changes[0].disruptive);
  EXPECT_EQ(diff.changes[0].disruption.rfind("deleting it: the Machine Config Operator", 0), 0u)
      << diff.changes[0].disruption;
}

TEST(BundleDiff, RemovingAnObjectArgoCdKeepsLeavesItInPlace) {
  std::string kept = kMachineConfig;
  kept.replace(kept.find("spec:"), 5,
               "  annotations:\n    argocd.argoproj.io/sync-options: \"Prune=false,Delete=false\"\n"
               "spec:");
  BundleDiff diff = DiffBundle(Bundle({}), {{"00-mc.yaml", kept}});
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_EQ(diff.changes[0].kind, BundleChange::Kind::kRemoved);
  EXPECT_FALSE(diff.changes[0].disruptive);
  ASSERT_EQ(diff.changes[0].notes.size(), 1u);
  EXPECT_EQ(diff.changes[0].notes[0].rfind(
                "left in place: Argo CD does not delete it (Prune=false, Delete=false); when it "
                "should go, delete it by hand: kubectl delete MachineConfig "
                "99-worker-iommu-passthrough (then the Machine Config Operator",
                0),
            0u)
      << diff.changes[0].notes[0];
}

TEST(BundleDiff, NamesFromTheFolderCannotDriveTheTerminal) {
  std::string hostile = kService;
  hostile.replace(hostile.find("job-headless"), 12, "\"job\\e[31m\"");
  BundleDiff diff = DiffBundle(Bundle({}), {{"a.yaml", hostile}, {"x\x1b[2J.yaml", "a: 1\n"}},
                               std::set<std::string>{"a.yaml"});
  const std::string text = FormatBundleDiff(diff, "out");
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("(Service job\\x1b[31m)"), std::string::npos) << text;
  EXPECT_NE(text.find("= kept x\\x1b[2J.yaml"), std::string::npos) << text;
}

TEST(BundleDiff, ReadsBundleFilesLargerThanAProfile) {
  // The README of a bundle with a thousand namespaces is a few MiB; cut at the 1 MiB profile
  // limit it would read as changed forever.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hkim-diff-large-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string readme(3u << 20, 'x');
  std::ofstream(dir / "README.md") << readme;
  DiagnosticSink sink;
  const auto files = ReadBundleDirectory(dir.string(), sink);
  ASSERT_TRUE(files);
  EXPECT_EQ(files->at("README.md").size(), readme.size());
  fs::remove_all(dir);
}

TEST(UnifiedDiff, SeparateHunksAndInsertionsAtTheEnd) {
  std::string a, b;
  for (int i = 1; i <= 20; ++i) {
    a += "l" + std::to_string(i) + "\n";
    b += (i == 2 ? "X" : "l" + std::to_string(i)) + "\n";
  }
  b += "l21\n";
  EXPECT_EQ(UnifiedDiff(a, b, "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n l1\n-l2\n+X\n l3\n l4\n l5\n"
            "@@ -18,3 +18,4 @@\n l18\n l19\n l20\n+l21\n");
  EXPECT_EQ(UnifiedDiff(a, a, "a/f", "b/f"), "");
}

/// A fleet of the clusters `names` (each bundle one Service file) and `_fleet/` (one file).
RenderedFleet FleetOf(const std::vector<std::string>& names) {
  RenderedFleet fleet;
  for (const std::string& name : names) {
    FleetMember member;
    member.profile_path = "profiles/" + name + ".yaml";
    member.render.profile.cluster_name = name;
    member.render.bundle = Bundle({{"svc.yaml", kService}});
    fleet.members.push_back(std::move(member));
  }
  fleet.fleet = Bundle({{"applicationset.yaml", kService}});
  return fleet;
}

TEST(FleetDiff, EachFolderIsComparedAndMarkedBundlesOutsideTheFleetAreRemovedClusters) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hkim-fleet-diff-" + std::to_string(getpid()));
  fs::remove_all(dir);
  for (const char* folder : {"a", "_fleet", "gone", "mine"}) fs::create_directories(dir / folder);
  std::ofstream(dir / "a/svc.yaml") << OnDisk(kService);
  std::ofstream(dir / "_fleet/applicationset.yaml") << "changed\n";
  std::ofstream(dir / "gone/svc.yaml") << OnDisk(kService);
  std::ofstream(dir / "gone" / kBundleMarkerName) << BundleMarkerText({"svc.yaml"});
  std::ofstream(dir / "mine/svc.yaml") << OnDisk(kService);  // no marker: not hkimgen's
  std::ofstream(dir / "mine" / kBundleMarkerName) << "not a marker\n";

  DiagnosticSink sink;
  std::optional<FleetDiff> diff = DiffFleet(FleetOf({"a", "b"}), dir.string(), sink);
  ASSERT_TRUE(diff);
  EXPECT_FALSE(sink.HasErrors());
  ASSERT_EQ(diff->folders.size(), 3u);
  EXPECT_EQ(diff->folders[0].folder, (dir / "a").string());
  EXPECT_EQ(diff->folders[0].profile_path, "profiles/a.yaml");
  EXPECT_FALSE(diff->folders[0].diff.HasChanges());
  EXPECT_FALSE(diff->folders[1].exists);
  ASSERT_EQ(diff->folders[1].diff.changes.size(), 1u);
  EXPECT_EQ(diff->folders[1].diff.changes[0].kind, BundleChange::Kind::kAdded);
  EXPECT_EQ(diff->folders[2].folder, (dir / "_fleet").string());
  EXPECT_EQ(diff->folders[2].diff.changes[0].kind, BundleChange::Kind::kChanged);
  EXPECT_EQ(diff->removed_clusters, std::vector<std::string>{(dir / "gone").string()});
  EXPECT_TRUE(diff->HasChanges());
  const std::string text = FormatFleetDiff(*diff, "fleet");
  EXPECT_NE(text.find(dir.string() + "/a: no changes\n\n== " + dir.string() +
                      "/b (profiles/b.yaml): new folder\n+ added svc.yaml"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nfleet: 3 folders: 1 new, 1 to change, 1 unchanged; 1 bundle(s) of "
                      "removed clusters to delete yourself\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(FleetDiffToJson(*diff, "fleet")["summary"]["removed_clusters"], 1);

  // Put back in the set, it is a member again, and an identical fleet has no changes.
  fs::remove_all(dir / "gone");
  std::ofstream(dir / "_fleet/applicationset.yaml") << OnDisk(kService);
  fs::create_directories(dir / "b");
  std::ofstream(dir / "b/svc.yaml") << OnDisk(kService);
  diff = DiffFleet(FleetOf({"a", "b"}), dir.string(), sink);
  ASSERT_TRUE(diff);
  EXPECT_FALSE(diff->HasChanges());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hkim
