// Fleet stage (fleet/fleet.h, fleet/plan_fleet.h, fleet/write_fleet.h), through the built hkimgen as users run it:
// several profiles into one folder, in parallel, all or nothing, with the Argo CD files that
// bring the fleet up; those files pass the upstream schemas and kustomize.
#include "fleet/fleet.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "fleet/plan_fleet.h"
#include "test_files.h"
#include "upstream_validator.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using test_files::CommandRun;
using test_files::OnPath;
using test_files::ReadFile;
using test_files::RunShell;
using test_files::SnapshotDir;
using test_files::ManifestsUnder;
using test_files::UpstreamVerdict;
using test_files::ValidateUpstream;

const fs::path kSource = HKIM_SOURCE_DIR;

class Fleet : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestFolder("fleet-test");
    fs::create_directories(dir_ / "profiles");
    fs::create_directories(dir_ / "scratch");
    // A fleet names each cluster's Argo CD destination; the shipped profiles
    // do: Barcelona its API server, the OKE node pools Argo CD's own cluster.
    for (const std::string name : {"barcelona-h100-cx7", "oke-h100", "oke-a100"}) {
      const std::string text = ReadFile(kSource / "profiles" / (name + ".yaml"));
      ASSERT_NE(text.find("\n  destination_server: "), std::string::npos) << name;
      std::ofstream(dir_ / "profiles" / (name + ".yaml")) << text;
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A profile generated from Barcelona's: its own cluster name, destination and `namespaces`
  /// namespaces.
  void Generate(const std::string& cluster, int namespaces, const std::string& file = "") {
    std::string text = ReadFile(kSource / "profiles/barcelona-h100-cx7.yaml");
    const std::string name_line = "cluster:\n  name: barcelona\n";
    ASSERT_NE(text.find(name_line), std::string::npos);
    text.replace(text.find(name_line), name_line.size(), "cluster:\n  name: " + cluster + "\n");
    const size_t list = text.find("\nnamespaces:\n");
    ASSERT_NE(list, std::string::npos);
    size_t end = list + 13;
    while (text.compare(end, 4, "  - ") == 0) end = text.find('\n', end) + 1;
    std::string names = "\nnamespaces:\n";
    for (int i = 0; i < namespaces; ++i) {
      names += "  - " + cluster + "-team-" + std::to_string(i) + "\n";
    }
    text.replace(list, end - list, names);
    // Its own cluster: a fleet's Argo CD reaches each cluster under its own destination name
    // (profiles of one destination are one cluster, and must not emit the same objects).
    const std::string server = "  destination_server: https://api.barcelona.nerc.mghpcc.org:6443\n";
    ASSERT_NE(text.find(server), std::string::npos);
    text.replace(text.find(server), server.size(), "  destination_name: " + cluster + "\n");
    std::ofstream(dir_ / "profiles" / (file.empty() ? cluster + ".yaml" : file)) << text;
  }

  /// hkimgen run in dir_ (so that -d fleet is the fleet's path in the "repository").
  CommandRun Hkimgen(const std::string& args) {
    return Shell("'" HKIM_BINARY "' " + args);
  }
  /// Any command line, run in dir_.
  CommandRun Shell(const std::string& line) { return RunShell(line, dir_, dir_ / "scratch"); }

  fs::path dir_;
};

std::set<std::string> Strings(const YAML::Node& list, const char* key) {
  std::set<std::string> out;
  for (const YAML::Node& item : list) out.insert(item[key].as<std::string>());
  return out;
}

TEST_F(Fleet, ShippedAndGeneratedProfilesRenderOneFolderPerClusterAndAnApplicationSet) {
  Generate("gen-1", 2);
  Generate("gen-2", 3);
  CommandRun run = Hkimgen("render profiles -d fleet");
  ASSERT_EQ(run.status, 0) << run.err;
  // (after the notes of the shipped profiles' accepted lint.image-digest)
  EXPECT_NE(run.err.find("\nwrote 5 bundles and _fleet/ to fleet: 6 folder(s) changed, 0 "
                         "unchanged; files: 0 changed, "),
            std::string::npos)
      << run.err;
  // Rendered again: the counts say that nothing changed.
  CommandRun again = Hkimgen("render profiles -d fleet");
  ASSERT_EQ(again.status, 0) << again.err;
  const std::string summary =
      "\nwrote 5 bundles and _fleet/ to fleet: 0 folder(s) changed, 6 unchanged; files: 0 "
      "changed, 0 added, 0 removed\n";
  ASSERT_GE(again.err.size(), summary.size()) << again.err;
  EXPECT_EQ(again.err.substr(again.err.size() - summary.size()), summary) << again.err;
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(dir_ / "fleet")) {
    folders.push_back(entry.path().filename().string());
  }
  std::sort(folders.begin(), folders.end());
  EXPECT_EQ(folders, (std::vector<std::string>{"_fleet", "barcelona", "gen-1", "gen-2",
                                               "oke-a100", "oke-h100"}));

  // The list generator has one element per bundle, pointing at its apps/; each generated
  // Application is the bundle's own parent application.yaml.
  YAML::Node set = YAML::LoadFile((dir_ / "fleet/_fleet/applicationset.yaml").string());
  YAML::Node elements = set["spec"]["generators"][0]["list"]["elements"];
  ASSERT_EQ(elements.size(), 5u);
  for (const YAML::Node& element : elements) {
    const std::string cluster = element["cluster"].as<std::string>();
    EXPECT_EQ(element["path"].as<std::string>(), "fleet/" + cluster + "/apps");
    EXPECT_TRUE(fs::exists(dir_ / "fleet" / cluster / "apps/platform.yaml")) << cluster;
    YAML::Node app = YAML::LoadFile((dir_ / "fleet" / cluster / "application.yaml").string());
    EXPECT_EQ(app["spec"]["source"]["path"].as<std::string>(), "fleet/" + cluster + "/apps");
    EXPECT_EQ(app["spec"]["project"].as<std::string>(), "hkimgen-fleet");
    EXPECT_EQ(app["metadata"]["namespace"].as<std::string>(), "argocd");
  }
  YAML::Node tmpl = set["spec"]["template"];
  EXPECT_EQ(tmpl["metadata"]["name"].as<std::string>(), "{{ .cluster }}");
  EXPECT_EQ(tmpl["spec"]["source"]["path"].as<std::string>(), "{{ .path }}");
  EXPECT_EQ(tmpl["spec"]["project"].as<std::string>(), "hkimgen-fleet");

  // The layer Applications use the cluster's own projects, which allow exactly what the layer
  // holds: its namespaces and kinds, cluster-scoped kinds one by one.
  YAML::Node workload_app = YAML::LoadFile((dir_ / "fleet/gen-2/apps/workload.yaml").string());
  EXPECT_EQ(workload_app["spec"]["project"].as<std::string>(), "gen-2-workload");
  YAML::Node workload =
      YAML::LoadFile((dir_ / "fleet/_fleet/appprojects/gen-2-workload.yaml").string());
  const std::set<std::string> namespaces = Strings(workload["spec"]["destinations"], "namespace");
  EXPECT_EQ(namespaces, (std::set<std::string>{"gen-2-team-0", "gen-2-team-1", "gen-2-team-2"}));
  EXPECT_EQ(workload["spec"]["clusterResourceWhitelist"].size(), 0u);
  EXPECT_TRUE(Strings(workload["spec"]["namespaceResourceWhitelist"], "kind").count("StatefulSet"));
  YAML::Node platform =
      YAML::LoadFile((dir_ / "fleet/_fleet/appprojects/gen-2-platform.yaml").string());
  const std::set<std::string> cluster_kinds =
      Strings(platform["spec"]["clusterResourceWhitelist"], "kind");
  EXPECT_TRUE(cluster_kinds.count("SecurityContextConstraints"));
  EXPECT_TRUE(cluster_kinds.count("Namespace"));
  EXPECT_FALSE(cluster_kinds.count("*"));
  EXPECT_FALSE(cluster_kinds.count("StatefulSet"));
  // OKE installs operators from Helm charts: their Applications get a project of their own.
  YAML::Node charts = YAML::LoadFile((dir_ / "fleet/_fleet/appprojects/oke-h100-charts.yaml").string());
  EXPECT_TRUE(Strings(charts["spec"]["destinations"], "namespace").count("gpu-operator"));
  // The parents' project: only Applications, only in Argo CD's namespace.
  YAML::Node parents = YAML::LoadFile((dir_ / "fleet/_fleet/appprojects/hkimgen-fleet.yaml").string());
  EXPECT_EQ(Strings(parents["spec"]["namespaceResourceWhitelist"], "kind"),
            (std::set<std::string>{"Application"}));
}

TEST_F(Fleet, FleetFilesPassKustomizeAndTheUpstreamSchemas) {
  Generate("gen-1", 2);
  ASSERT_EQ(Hkimgen("render profiles -d fleet").status, 0);
  if (!OnPath("kubectl")) GTEST_SKIP() << "skipped: kubectl is not installed";
  for (const auto& entry : fs::directory_iterator(dir_ / "fleet")) {
    CommandRun run = Shell("kubectl kustomize '" + entry.path().string() + "'");
    EXPECT_EQ(run.status, 0) << entry.path() << run.err;
  }
  CommandRun built = Shell("kubectl kustomize fleet/_fleet");
  EXPECT_NE(built.out.find("kind: ApplicationSet"), std::string::npos);
  EXPECT_NE(built.out.find("kind: AppProject"), std::string::npos);

  // Every API object of the fleet: _fleet/ and every bundle as the fleet wrote it.
  const UpstreamVerdict run = ValidateUpstream(ManifestsUnder(dir_ / "fleet"));
  if (!run.skip.empty()) GTEST_SKIP() << "skipped: " << run.skip;
  EXPECT_EQ(run.status, 0) << run.text;
}

TEST_F(Fleet, OneThreadAndManyThreadsWriteTheSameBytes) {
  for (int i = 0; i < 5; ++i) Generate("gen-" + std::to_string(i), 1 + i);
  ASSERT_EQ(Hkimgen("render profiles -d one -j 1 --fleet-path fleet").status, 0);
  ASSERT_EQ(Hkimgen("render profiles -d many -j 8 --fleet-path fleet").status, 0);
  const auto one = SnapshotDir(dir_ / "one");
  EXPECT_EQ(one, SnapshotDir(dir_ / "many"));
  EXPECT_GT(one.size(), 8u * 10);
  // The environment variable does the same as -j.
  ASSERT_EQ(Shell("HKIMGEN_JOBS=3 '" HKIM_BINARY "' render profiles -d env --fleet-path fleet -q")
                .status,
            0);
  EXPECT_EQ(one, SnapshotDir(dir_ / "env"));
}

TEST_F(Fleet, OneBadProfileReportsItselfAndChangesNothingOnDisk) {
  ASSERT_EQ(Hkimgen("render profiles -d fleet").status, 0);
  const auto before = SnapshotDir(dir_ / "fleet");
  Generate("gen-1", 2);  // would add a folder and change _fleet/
  std::string barcelona = ReadFile(dir_ / "profiles/barcelona-h100-cx7.yaml");
  std::ofstream(dir_ / "profiles/barcelona-h100-cx7.yaml")
      << barcelona.replace(barcelona.find("nccl-test"), 9, "nccl-prod");  // would change it
  std::ofstream(dir_ / "profiles/zz-bad.yaml") << "cluster:\n  name: Bad_Name\n";
  CommandRun run = Hkimgen("render profiles -d fleet");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("profiles/zz-bad.yaml:"), std::string::npos) << run.err;
  EXPECT_EQ(SnapshotDir(dir_ / "fleet"), before);
  EXPECT_FALSE(fs::exists(dir_ / "fleet/gen-1"));
}

TEST_F(Fleet, AFolderThatIsNotABundleIsRefusedAndNoOtherFolderChanges) {
  ASSERT_EQ(Hkimgen("render profiles -d fleet").status, 0);
  const auto before = SnapshotDir(dir_ / "fleet");
  Generate("gen-1", 1);
  std::string barcelona = ReadFile(dir_ / "profiles/barcelona-h100-cx7.yaml");
  std::ofstream(dir_ / "profiles/barcelona-h100-cx7.yaml")
      << barcelona.replace(barcelona.find("nccl-test"), 9, "nccl-prod");
  fs::create_directories(dir_ / "fleet/gen-1");
  std::ofstream(dir_ / "fleet/gen-1/notes.txt") << "mine\n";
  CommandRun run = Hkimgen("render profiles -d fleet");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("[write.refused]"), std::string::npos) << run.err;
  auto after = SnapshotDir(dir_ / "fleet");
  after.erase("gen-1/notes.txt");
  EXPECT_EQ(after, before);
}

TEST_F(Fleet, TwoProfilesClaimingOneClusterIsAnErrorNamingBoth) {
  Generate("barcelona", 1, "copy-of-barcelona.yaml");
  CommandRun run = Hkimgen(
      "render profiles/barcelona-h100-cx7.yaml profiles/copy-of-barcelona.yaml -d fleet");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("profiles/copy-of-barcelona.yaml:15:9: error: cluster 'barcelona' is "
                         "also claimed by profiles/barcelona-h100-cx7.yaml:15:9"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("[fleet.duplicate-cluster]"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "fleet"));
}

// Two profiles of one cluster that would overwrite each other's objects.
TEST_F(Fleet, ProfilesOfOneClusterThatFightAreAnErrorAndNothingIsWritten) {
  for (const char* name : {"old-oke-h100", "old-oke-a100"}) {
    fs::copy_file(kSource / "tests/generator/cluster_sharing" / (std::string(name) + ".yaml"),
                  dir_ / (std::string(name) + ".yaml"));
  }
  // They name no Argo CD destination: that one cause is the one error of the render...
  CommandRun run = Hkimgen("render old-oke-h100.yaml old-oke-a100.yaml -d fleet");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("name no Argo CD destination, so every one of them is synced to "
                         "https://kubernetes.default.svc, the central Argo CD's own cluster, "
                         "where their bundles collide ("),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("[fleet.no-destination]"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("[lint.shared-cluster-object]"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\n1 error, "), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir_ / "fleet"));
  // ... and validate of the pair names each object they both emit.
  CommandRun validate = Hkimgen("validate old-oke-h100.yaml old-oke-a100.yaml");
  EXPECT_EQ(validate.status, 1);
  EXPECT_NE(validate.out.find("old-oke-a100.yaml:14:5: error: this profile and old-oke-h100.yaml"),
            std::string::npos)
      << validate.out;
  EXPECT_NE(validate.out.find("[lint.shared-cluster-object]"), std::string::npos);
  // Each on its own destination, they are two clusters: the objects no longer collide.
  for (const char* name : {"old-oke-h100", "old-oke-a100"}) {
    std::ofstream(dir_ / (std::string(name) + ".yaml"), std::ios::app)
        << "  destination_server: https://" << name << ".example.com:6443\n";
  }
  EXPECT_EQ(Hkimgen("render old-oke-h100.yaml old-oke-a100.yaml -d apart -q").status, 0);
  // The shipped pair shares the cluster as the README says: it renders.
  EXPECT_EQ(Hkimgen("render profiles/oke-h100.yaml profiles/oke-a100.yaml -d fleet").status, 0);
}

TEST_F(Fleet, ValidateAndLintTakeTheSameSetsAndCheckClusterNamesAcrossThem) {
  CommandRun folder = Hkimgen("validate profiles");
  EXPECT_EQ(folder.status, 0) << folder.out << folder.err;
  EXPECT_NE(folder.out.find("profiles/oke-a100.yaml: valid"), std::string::npos) << folder.out;
  EXPECT_NE(folder.out.find("profiles/barcelona-h100-cx7.yaml: valid"), std::string::npos);
  CommandRun pattern = Hkimgen("validate 'profiles/oke-*.yaml'");
  EXPECT_EQ(pattern.status, 0) << pattern.out;
  EXPECT_EQ(pattern.out.find("barcelona"), std::string::npos) << pattern.out;
  EXPECT_EQ(Hkimgen("validate 'profiles/nothing-*.yaml'").status, 2);

  Generate("barcelona", 1, "copy-of-barcelona.yaml");
  for (const char* command : {"validate", "lint"}) {
    CommandRun run = Hkimgen(std::string(command) + " profiles");
    EXPECT_EQ(run.status, 1) << command;
    EXPECT_NE(run.out.find("profiles/copy-of-barcelona.yaml:15:9: error: cluster 'barcelona' is "
                           "also claimed by profiles/barcelona-h100-cx7.yaml:15:9"),
              std::string::npos)
        << command << run.out;
  }
}

TEST_F(Fleet, ProfilesOfOneFleetShareOneRepository) {
  Generate("gen-1", 1);
  std::string text = ReadFile(dir_ / "profiles/gen-1.yaml");
  text.replace(text.find("revision: main"), 14, "revision: staging");
  std::ofstream(dir_ / "profiles/gen-1.yaml") << text;
  CommandRun run = Hkimgen("render profiles -d fleet");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("[fleet.repo-mismatch]"), std::string::npos) << run.err;
}

TEST_F(Fleet, CheckReportsAStaleFleetAndWritesNothing) {
  ASSERT_EQ(Hkimgen("render profiles -d fleet").status, 0);
  EXPECT_EQ(Hkimgen("render profiles -d fleet --check").status, 0);
  Generate("gen-1", 1);
  CommandRun stale = Hkimgen("render 'profiles/*.yaml' -d fleet --check");
  EXPECT_EQ(stale.status, 1);
  EXPECT_NE(stale.err.find("gen-1"), std::string::npos) << stale.err;
  EXPECT_FALSE(fs::exists(dir_ / "fleet/gen-1"));
}

TEST_F(Fleet, NeedsAFolderThatArgoCdCanFindInTheRepository) {
  // Without -d the fleet goes to stdout as one YAML stream: every cluster's bundle,
  // then _fleet/, with --fleet-path's Argo CD paths (default "fleet"). Nothing is written.
  CommandRun stream = Hkimgen("render profiles --fleet-path gitops/fleet");
  EXPECT_EQ(stream.status, 0) << stream.err;
  EXPECT_NE(stream.out.find("# Source: templates/fleet/applicationset.yaml.mustache"),
            std::string::npos);
  EXPECT_NE(stream.out.find("path: gitops/fleet/oke-h100/apps"), std::string::npos);
  EXPECT_NE(stream.out.find("path: gitops/fleet/barcelona/apps"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "gitops"));
  CommandRun check = Hkimgen("render profiles --check");
  EXPECT_EQ(check.status, 1);
  EXPECT_NE(check.err.find("several profiles (a fleet) need -d DIR with --check"),
            std::string::npos);
  CommandRun absolute = Hkimgen("render profiles -d '" + (dir_ / "abs").string() + "'");
  EXPECT_EQ(absolute.status, 1);
  EXPECT_NE(absolute.err.find("--fleet-path"), std::string::npos) << absolute.err;
  EXPECT_EQ(Hkimgen("render profiles -q -d '" + (dir_ / "abs").string() +
                    "' --fleet-path gitops/fleet")
                .status,
            0);
  YAML::Node app = YAML::LoadFile((dir_ / "abs/_fleet/application.yaml").string());
  EXPECT_EQ(app["spec"]["source"]["path"].as<std::string>(), "gitops/fleet/_fleet");
}

TEST_F(Fleet, OneProfileFileIsStillTheSingleRender) {
  ASSERT_EQ(Hkimgen("render profiles/oke-h100.yaml -q -d one").status, 0);
  EXPECT_FALSE(fs::exists(dir_ / "one/_fleet"));
  EXPECT_EQ(SnapshotDir(dir_ / "one"), SnapshotDir(kSource / "out/oke-h100"));
}

// `diff` over a set: what the fleet render would change, per folder, exactly (a render makes
// the next diff clean), writing nothing; --check / --detailed-exitcode exit 2 when stale.
TEST_F(Fleet, DiffShowsWhatAFleetRenderWouldChangeFolderByFolder) {
  ASSERT_EQ(Hkimgen("render profiles -d fleet -q").status, 0);
  CommandRun same = Hkimgen("diff profiles -d fleet --check");
  EXPECT_EQ(same.status, 0) << same.out << same.err;
  EXPECT_EQ(same.out,
            "fleet/barcelona: no changes\nfleet/oke-a100: no changes\nfleet/oke-h100: no "
            "changes\nfleet/_fleet: no changes\n\nfleet: 4 folders: 0 new, 0 to change, 4 "
            "unchanged\n");
  // Only the notes of the shipped profiles' accepted lint.image-digest.
  EXPECT_EQ(same.err.find(": warning: "), std::string::npos) << same.err;
  EXPECT_EQ(same.err.find(": error: "), std::string::npos) << same.err;

  const auto before = SnapshotDir(dir_ / "fleet");
  Generate("gen-1", 1);  // a new folder and a new ApplicationSet element
  std::string barcelona = ReadFile(dir_ / "profiles/barcelona-h100-cx7.yaml");
  std::ofstream(dir_ / "profiles/barcelona-h100-cx7.yaml")
      << barcelona.replace(barcelona.find("nccl-test"), 9, "nccl-prod");
  CommandRun stale = Hkimgen("diff 'profiles/*.yaml' -d fleet --check");
  EXPECT_EQ(stale.status, 2) << stale.out << stale.err;
  EXPECT_NE(stale.out.find("\n== fleet/barcelona (profiles/barcelona-h100-cx7.yaml)\n"),
            std::string::npos)
      << stale.out;
  EXPECT_NE(stale.out.find("\n== fleet/gen-1 (profiles/gen-1.yaml): new folder\n+ added "
                           "README.md"),
            std::string::npos)
      << stale.out;
  EXPECT_NE(stale.out.find("\n+ added application.yaml (Application gen-1)\n"),
            std::string::npos)
      << stale.out;
  EXPECT_NE(stale.out.find("\n== fleet/_fleet\n"), std::string::npos) << stale.out;
  EXPECT_NE(stale.out.find("~ changed applicationset.yaml (ApplicationSet hkimgen-fleet)\n"),
            std::string::npos);
  EXPECT_NE(stale.out.find("+ added appprojects/gen-1-platform.yaml"), std::string::npos);
  EXPECT_NE(stale.out.find("fleet/oke-h100: no changes\n"), std::string::npos);
  EXPECT_NE(stale.out.find("\nfleet: 5 folders: 1 new, 2 to change, 2 unchanged\n"),
            std::string::npos)
      << stale.out;
  EXPECT_EQ(Hkimgen("diff profiles -d fleet").status, 0);  // changes alone are a success
  CommandRun json = Hkimgen("diff profiles -d fleet -o json --detailed-exitcode");
  EXPECT_EQ(json.status, 2);
  const nlohmann::json plan = nlohmann::json::parse(json.out)["result"];
  EXPECT_EQ(plan["summary"], nlohmann::json::parse(R"({"folders": 5, "new": 1, "changed": 2,
      "unchanged": 2, "removed_clusters": 0})"));
  EXPECT_EQ(plan["folders"][1]["directory"], "fleet/gen-1");
  EXPECT_EQ(plan["folders"][1]["profile"], "profiles/gen-1.yaml");
  EXPECT_EQ(plan["folders"][1]["exists"], false);
  EXPECT_EQ(SnapshotDir(dir_ / "fleet"), before);  // diff writes nothing

  ASSERT_EQ(Hkimgen("render profiles -d fleet -q").status, 0);
  CommandRun rendered = Hkimgen("diff profiles -d fleet --check");
  EXPECT_EQ(rendered.status, 0) << rendered.out;
}

TEST_F(Fleet, DiffOverASetFailsOnABadProfileOrAMissingFolder) {
  CommandRun missing = Hkimgen("diff profiles -d fleet --check");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("fleet: error: the fleet folder does not exist [diff.missing-dir]"),
            std::string::npos)
      << missing.err;
  ASSERT_EQ(Hkimgen("render profiles -d fleet -q").status, 0);
  std::ofstream(dir_ / "profiles/zz-bad.yaml") << "cluster:\n  name: Bad_Name\n";
  CommandRun bad = Hkimgen("diff profiles -d fleet --check");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("profiles/zz-bad.yaml:2:9: error: "), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");
  fs::remove(dir_ / "profiles/zz-bad.yaml");
  Generate("barcelona", 1, "copy-of-barcelona.yaml");
  CommandRun twice = Hkimgen("diff profiles -d fleet -o json");
  EXPECT_EQ(twice.status, 1);
  EXPECT_NE(twice.out.find("fleet.duplicate-cluster"), std::string::npos) << twice.out;
}

TEST_F(Fleet, DiffTakesTheFleetPathAsRenderDoes) {
  const std::string abs = "'" + (dir_ / "abs").string() + "'";
  ASSERT_EQ(Hkimgen("render profiles -q -d " + abs + " --fleet-path gitops/fleet").status, 0);
  CommandRun no_path = Hkimgen("diff profiles -d " + abs);
  EXPECT_EQ(no_path.status, 1);
  EXPECT_NE(no_path.err.find("--fleet-path"), std::string::npos) << no_path.err;
  EXPECT_EQ(Hkimgen("diff profiles -d " + abs + " --fleet-path gitops/fleet --check").status, 0);
  CommandRun moved = Hkimgen("diff profiles -d " + abs + " --fleet-path gitops/other --check");
  EXPECT_EQ(moved.status, 2);
  EXPECT_NE(moved.out.find("\n-    path: gitops/fleet/_fleet\n+    path: gitops/other/_fleet\n"),
            std::string::npos)
      << moved.out;
}

// A cluster taken out of the set: its bundle stays (hkimgen never deletes it), and render,
// render --check and diff say what Argo CD does and what to do.
TEST_F(Fleet, ABundleOfARemovedClusterIsReportedAndNeverDeleted) {
  Generate("gen-1", 1);
  ASSERT_EQ(Hkimgen("render profiles -d fleet -q").status, 0);
  const auto gen1 = SnapshotDir(dir_ / "fleet/gen-1");
  fs::create_directories(dir_ / "fleet/notes");  // a user's folder: no marker, not a bundle
  std::ofstream(dir_ / "fleet/notes/todo.yaml") << "a: 1\n";
  fs::rename(dir_ / "profiles/gen-1.yaml", dir_ / "gen-1.yaml");

  CommandRun render = Hkimgen("render profiles -d fleet");
  EXPECT_EQ(render.status, 0) << render.err;
  EXPECT_NE(render.err.find("fleet/gen-1: warning: bundle of cluster 'gen-1', which no profile "
                            "of the fleet renders any more: _fleet/applicationset.yaml no "
                            "longer lists it"),
            std::string::npos)
      << render.err;
  EXPECT_NE(render.err.find("deletes the Application 'gen-1' without cascade"),
            std::string::npos);
  EXPECT_NE(render.err.find("Prune=false,Delete=false"), std::string::npos);
  EXPECT_NE(render.err.find("put its profile back in the set"), std::string::npos);
  EXPECT_NE(render.err.find("[fleet.removed-cluster]"), std::string::npos);
  EXPECT_EQ(render.err.find("notes"), std::string::npos) << render.err;
  EXPECT_EQ(SnapshotDir(dir_ / "fleet/gen-1"), gen1);
  EXPECT_TRUE(fs::exists(dir_ / "fleet/notes/todo.yaml"));

  // Stale for CI until the user deletes it or puts the profile back.
  CommandRun check = Hkimgen("render profiles -d fleet --check");
  EXPECT_EQ(check.status, 1);
  EXPECT_NE(check.err.find("fleet/gen-1: error: bundle of cluster 'gen-1'"), std::string::npos)
      << check.err;
  CommandRun diff = Hkimgen("diff profiles -d fleet --check");
  EXPECT_EQ(diff.status, 2);
  EXPECT_NE(diff.err.find("fleet/gen-1: warning: bundle of cluster 'gen-1'"), std::string::npos);
  EXPECT_NE(diff.out.find("! fleet/gen-1: bundle of a cluster no longer in the fleet, left in "
                          "place (fleet.removed-cluster)\n"),
            std::string::npos)
      << diff.out;
  EXPECT_NE(diff.out.find("; 1 bundle(s) of removed clusters to delete yourself\n"),
            std::string::npos);
  fs::rename(dir_ / "gen-1.yaml", dir_ / "profiles/gen-1.yaml");
  EXPECT_EQ(Hkimgen("diff profiles -d fleet --check").status, 2);  // _fleet/ lost gen-1
  ASSERT_EQ(Hkimgen("render profiles -d fleet -q").status, 0);
  EXPECT_EQ(Hkimgen("render profiles -d fleet --check").status, 0);
  EXPECT_EQ(Hkimgen("diff profiles -d fleet --check").status, 0);
}

TEST(FleetArgs, FoldersAndPatternsExpandSortedWithoutDuplicates) {
  DiagnosticSink sink;
  const std::string profiles = (kSource / "profiles").string();
  std::vector<std::string> expanded = ExpandProfileArgs(
      {profiles, profiles + "/oke-*.yaml", profiles + "/oke-a100.yaml"}, sink);
  EXPECT_FALSE(sink.HasErrors());
  ASSERT_GE(expanded.size(), 3u);
  EXPECT_EQ(expanded.front(), profiles + "/barcelona-h100-cx7.yaml");
  EXPECT_TRUE(std::is_sorted(expanded.begin(), expanded.end()));
  EXPECT_EQ(std::set<std::string>(expanded.begin(), expanded.end()).size(), expanded.size());
  ExpandProfileArgs({profiles + "/nothing-*.yaml"}, sink);
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].message, "the pattern matches no file");
  EXPECT_TRUE(IsProfileSet({profiles}));
  EXPECT_TRUE(IsProfileSet({"a.yaml", "b.yaml"}));
  EXPECT_FALSE(IsProfileSet({profiles + "/oke-a100.yaml"}));
}

TEST(FleetArgs, WorkerCountNeverExceedsTheProfiles) {
  EXPECT_EQ(WorkerCount(8, 3), 3u);
  EXPECT_EQ(WorkerCount(2, 10), 2u);
  EXPECT_EQ(WorkerCount(4, 0), 1u);
  EXPECT_GE(WorkerCount(0, 100), 1u);
}

}  // namespace
}  // namespace hkim
