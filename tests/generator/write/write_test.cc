#include "write/write.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <atomic>
#include <memory>
#include <thread>

#include "support/diagnostics_format.h"
#include "test_files.h"
#include "support/version.h"
#include "write/guard.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using hkim::test_files::ReadFile;
using hkim::test_files::SnapshotDir;

RenderedBundle Bundle(std::vector<std::pair<std::string, std::string>> files) {
  RenderedBundle bundle;
  bundle.bundle_name = "b";
  for (auto& [name, content] : files) bundle.files.push_back({name, "t/x.mustache", content});
  return bundle;
}

class WriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_support::FreshTestFolder("write-test");
    dir_ = (root_ / "out" / "bundle").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  /// Nothing but `dir_` (and its parent) is left beside the bundle: no temporary siblings.
  void ExpectNoLeftovers() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(root_ / "out")) {
      names.push_back(entry.path().filename().string());
    }
    EXPECT_EQ(names, std::vector<std::string>{"bundle"});
  }

  fs::path root_;
  std::string dir_;
};

// render -d says "wrote N files: C changed, A added, R removed" from these counts, taken from
// the comparison the write makes under the lock; a user's own file is kept, not "removed".
TEST_F(WriteTest, CountsWhatTheWriteChanged) {
  DiagnosticSink sink;
  WriteCounts counts;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}), dir_, sink, {},
                             &counts));
  EXPECT_EQ(counts.files, 2u);
  EXPECT_EQ(counts.added, 2u);
  EXPECT_EQ(counts.changed + counts.removed, 0u);
  std::ofstream(dir_ + "/mine.yaml") << "x: 1\n";
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}, {"c.yaml", "c: 1\n"}}), dir_, sink, {},
                             &counts));
  EXPECT_EQ(counts.files, 2u);
  EXPECT_EQ(counts.added, 1u);    // c.yaml
  EXPECT_EQ(counts.changed, 1u);  // a.yaml
  EXPECT_EQ(counts.removed, 1u);  // b.yaml; mine.yaml is kept
  EXPECT_TRUE(fs::exists(dir_ + "/mine.yaml"));
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}, {"c.yaml", "c: 1\n"}}), dir_, sink, {},
                             &counts));
  EXPECT_EQ(counts.added + counts.changed + counts.removed, 0u);
}

// The files of one folder are written on several threads (-j): same files, same bytes, and the
// unchanged ones still hard-linked from the old bundle (they keep their inode and timestamp).
TEST_F(WriteTest, WritesTheSameFolderOnSeveralThreads) {
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 0; i < 200; ++i) {
    files.emplace_back("ns-" + std::to_string(i % 7) + "/f" + std::to_string(i) + ".yaml",
                       "n: " + std::to_string(i) + "\n");
  }
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle(files), dir_, sink));
  const auto serial = SnapshotDir(dir_);
  struct stat before {};
  ASSERT_EQ(stat((dir_ + "/ns-0/f0.yaml").c_str(), &before), 0);
  files[1].second = "n: changed\n";
  WriteDirOptions threads;
  threads.jobs = 4;
  ASSERT_TRUE(WriteBundleDir(Bundle(files), dir_, sink, threads)) << FormatDiagnostics(sink, {});
  auto parallel = SnapshotDir(dir_);
  EXPECT_EQ(parallel.size(), serial.size());
  EXPECT_EQ(ReadFile(dir_ + "/ns-1/f1.yaml"), "# Source: templates/t/x.mustache\nn: changed\n");
  struct stat after {};
  ASSERT_EQ(stat((dir_ + "/ns-0/f0.yaml").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  ExpectNoLeftovers();
}

TEST_F(WriteTest, WritesEveryFileWithItsSourceHeader) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"10-a.yaml", "a: 1\n"}, {"kustomization.yaml", "k: 1\n"}}),
                             dir_, sink))
      << FormatDiagnostics(sink, {});
  EXPECT_EQ(SnapshotDir(dir_),
            (std::map<std::string, std::string>{
                {".hkimgen-bundle", BundleMarkerText({"10-a.yaml", "kustomization.yaml"})},
                {"10-a.yaml", "# Source: templates/t/x.mustache\na: 1\n"},
                {"kustomization.yaml", "# Source: templates/t/x.mustache\nk: 1\n"}}));
  ExpectNoLeftovers();
}

TEST_F(WriteTest, DoesNotRewriteUnchangedFiles) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}), dir_, sink));
  struct stat before_a, before_b, after_a, after_b;
  ASSERT_EQ(stat((dir_ + "/a.yaml").c_str(), &before_a), 0);
  ASSERT_EQ(stat((dir_ + "/b.yaml").c_str(), &before_b), 0);
  // Same content: nothing is touched at all.
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}), dir_, sink));
  ASSERT_EQ(stat((dir_ + "/a.yaml").c_str(), &after_a), 0);
  EXPECT_EQ(before_a.st_ino, after_a.st_ino);
  // One file changes: the other keeps its inode (hard-linked into the new directory).
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"b.yaml", "b: 2\n"}}), dir_, sink));
  ASSERT_EQ(stat((dir_ + "/a.yaml").c_str(), &after_a), 0);
  ASSERT_EQ(stat((dir_ + "/b.yaml").c_str(), &after_b), 0);
  EXPECT_EQ(before_a.st_ino, after_a.st_ino);
  EXPECT_EQ(before_a.st_mtim.tv_nsec, after_a.st_mtim.tv_nsec);
  EXPECT_EQ(ReadFile(dir_ + "/b.yaml"), "# Source: templates/t/x.mustache\nb: 2\n");
  EXPECT_FALSE(sink.HasErrors());
  ExpectNoLeftovers();
}

TEST_F(WriteTest, RemovesFilesTheBundleNoLongerHas) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"old.yaml", "o: 1\n"}}), dir_, sink));
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  EXPECT_EQ(SnapshotDir(dir_).size(), 2u);  // a.yaml and the marker
  EXPECT_TRUE(fs::exists(dir_ + "/a.yaml"));
}

TEST_F(WriteTest, FailureLeavesExistingDirectoryByteIdentical) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  const auto before = SnapshotDir(dir_);
  // A name that cannot be created inside the staging directory (a.yaml is a file, not a
  // directory) makes the write fail midway.
  EXPECT_FALSE(
      WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}, {"a.yaml/x.yaml", "x\n"}}), dir_, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "io.write");
  EXPECT_EQ(SnapshotDir(dir_), before);
  ExpectNoLeftovers();
}

TEST_F(WriteTest, LayerFilesGoToSubdirectoriesAndCheckSeesThem) {
  DiagnosticSink sink;
  const RenderedBundle bundle =
      Bundle({{"platform/10-a.yaml", "a: 1\n"}, {"workload/20-b.yaml", "b: 1\n"},
              {"kustomization.yaml", "k: 1\n"}});
  ASSERT_TRUE(WriteBundleDir(bundle, dir_, sink)) << FormatDiagnostics(sink, {});
  EXPECT_EQ(ReadFile(dir_ + "/platform/10-a.yaml"), "# Source: templates/t/x.mustache\na: 1\n");
  EXPECT_TRUE(CheckBundleDir(bundle, dir_, sink));
  // A user's file added in a layer directory is theirs (reported, kept); a changed one is stale.
  std::ofstream(dir_ + "/workload/99-mine.yaml") << "mine: 1\n";
  std::ofstream(dir_ + "/platform/10-a.yaml", std::ios::app) << "# edited\n";
  EXPECT_FALSE(CheckBundleDir(bundle, dir_, sink));
  std::set<std::string> rules;
  for (const Diagnostic& d : sink.diagnostics()) rules.insert(d.rule + " " + d.location.file);
  EXPECT_EQ(rules, (std::set<std::string>{"write.user-file " + dir_ + "/workload/99-mine.yaml",
                                          "write.stale " + dir_ + "/platform/10-a.yaml"}));
  // Rendering again restores hkimgen's files and keeps the user's, byte for byte.
  DiagnosticSink again;
  ASSERT_TRUE(WriteBundleDir(bundle, dir_, again));
  EXPECT_TRUE(CheckBundleDir(bundle, dir_, again));
  EXPECT_EQ(ReadFile(dir_ + "/platform/10-a.yaml"), "# Source: templates/t/x.mustache\na: 1\n");
  EXPECT_EQ(ReadFile(dir_ + "/workload/99-mine.yaml"), "mine: 1\n");
  ExpectNoLeftovers();
}

TEST_F(WriteTest, AFileLeftByAnEarlierRenderInALayerDirectoryIsRemoved) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"platform/10-a.yaml", "a: 1\n"},
                                     {"workload/20-b.yaml", "b: 1\n"}}),
                             dir_, sink));
  const RenderedBundle smaller = Bundle({{"platform/10-a.yaml", "a: 1\n"}});
  EXPECT_FALSE(CheckBundleDir(smaller, dir_, sink));  // workload/20-b.yaml is extra
  ASSERT_TRUE(WriteBundleDir(smaller, dir_, sink));
  EXPECT_FALSE(fs::exists(dir_ + "/workload/20-b.yaml"));
  EXPECT_TRUE(fs::exists(dir_ + "/platform/10-a.yaml"));
  ExpectNoLeftovers();
}

TEST_F(WriteTest, TrailingSlashNamesTheSameDirectory) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_ + "/", sink))
      << FormatDiagnostics(sink, {});
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}}), dir_ + "/", sink))
      << FormatDiagnostics(sink, {});
  EXPECT_EQ(ReadFile(dir_ + "/a.yaml"), "# Source: templates/t/x.mustache\na: 2\n");
  ExpectNoLeftovers();
}

TEST_F(WriteTest, RefusesFoldersNamedByTheirPlaceSayingWhichAndWhy) {
  const std::string cwd = fs::weakly_canonical(fs::current_path()).string();
  const std::pair<std::string, std::string> cases[] = {
      {".", "not written: . holds the current directory (" + cwd + ")"},
      {"out/..", "not written: out/.. holds the current directory (" + cwd + ")"},
      {"/", "not written: / is the root directory"},
  };
  for (const auto& [dir, message] : cases) {
    DiagnosticSink sink;
    EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir, sink)) << dir;
    ASSERT_EQ(sink.ErrorCount(), 1) << dir;
    EXPECT_EQ(sink.diagnostics()[0].rule, "write.refused") << dir;
    EXPECT_EQ(sink.diagnostics()[0].message, message + ", which hkimgen never replaces");
  }
  DiagnosticSink sink;  // the parent of the current directory holds it too
  EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), "..", sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "write.refused");
}

TEST_F(WriteTest, RefusesToReplaceAFile) {
  fs::create_directories(root_ / "out");
  std::ofstream(dir_) << "not a directory";
  DiagnosticSink sink;
  EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  EXPECT_EQ(sink.diagnostics()[0].message, "not written: " + dir_ + " exists and is not a directory");
  EXPECT_EQ(ReadFile(dir_), "not a directory");
}

TEST_F(WriteTest, CheckNamesStaleMissingAndExtraFilesAndWritesNothing) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}), dir_, sink));
  const auto before = SnapshotDir(dir_);
  EXPECT_TRUE(CheckBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}), dir_, sink));
  EXPECT_FALSE(sink.HasErrors());
  EXPECT_FALSE(CheckBundleDir(Bundle({{"a.yaml", "a: 2\n"}, {"c.yaml", "c: 1\n"}}), dir_, sink));
  const std::string fix =
      "  fix: run `hkimgen render PROFILE -d " + dir_ + "` and commit the result\n";
  EXPECT_EQ(FormatDiagnostics(sink, {}),
            dir_ + "/.hkimgen-bundle: error: out of date: differs from what the profile renders "
                   "to [write.stale]\n" +
                fix + dir_ +
                "/a.yaml: error: out of date: differs from what the profile renders to "
                "[write.stale]\n" +
                fix + dir_ +
                "/c.yaml: error: missing: the profile renders this file [write.missing]\n" + fix +
                dir_ +
                "/b.yaml: error: extra: the profile does not render this file "
                "[write.extra]\n" +
                fix + "4 errors, 0 warnings\n");
  EXPECT_EQ(SnapshotDir(dir_), before);
}

TEST_F(WriteTest, CheckOfMissingDirectoryNamesEveryFile) {
  DiagnosticSink sink;
  EXPECT_FALSE(CheckBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  ASSERT_EQ(sink.ErrorCount(), 2);  // the bundle marker and a.yaml
  EXPECT_EQ(sink.diagnostics()[0].rule, "write.missing");
  EXPECT_EQ(sink.diagnostics()[1].rule, "write.missing");
  EXPECT_FALSE(fs::exists(dir_));
}

TEST(WriteStream, WritesTheMultiDocumentStream) {
  std::ostringstream out;
  DiagnosticSink sink;
  RenderedBundle bundle = Bundle({{"a.yaml", "a: 1\n"}, {"kustomization.yaml", "k: 1\n"}});
  EXPECT_TRUE(WriteBundleStream(bundle, out, sink));
  EXPECT_EQ(out.str(), "---\n# Source: templates/t/x.mustache\na: 1\n");
}


// --- The output folder is hkimgen's only when it says so ---

TEST_F(WriteTest, TheMarkerListsTheFilesAndTheVersionAndNothingThatVaries) {
  const std::string marker = BundleMarkerText({"b.yaml", "a.yaml"});
  EXPECT_EQ(marker, BundleMarkerText({"a.yaml", "b.yaml"}));
  EXPECT_NE(marker.find("\"version\": \"" + BuildVersion().version + "\""), std::string::npos);
  EXPECT_EQ(ParseBundleMarker(marker), (std::set<std::string>{"a.yaml", "b.yaml"}));
  EXPECT_EQ(ParseBundleMarker("{\"generator\": \"hkimgen\", \"files\": [\"../x\"]}"),
            std::nullopt);  // a marker never reaches outside its folder
  EXPECT_EQ(ParseBundleMarker("not json"), std::nullopt);
}

TEST_F(WriteTest, RefusesAFolderItDidNotWriteAndLeavesItByteForByte) {
  fs::create_directories(dir_);
  std::ofstream(dir_ + "/notes.txt") << "my notes\n";
  std::ofstream(dir_ + "/a.yaml") << "mine: 1\n";
  const auto before = SnapshotDir(dir_);
  DiagnosticSink sink;
  EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "write.refused");
  EXPECT_NE(sink.diagnostics()[0].message.find("a.yaml, notes.txt"), std::string::npos)
      << sink.diagnostics()[0].message;
  EXPECT_NE(sink.diagnostics()[0].fix.find("--force"), std::string::npos);
  EXPECT_EQ(SnapshotDir(dir_), before);
  ExpectNoLeftovers();
}

TEST_F(WriteTest, ForceAdoptsAFolderKeepingTheUsersOtherFiles) {
  fs::create_directories(dir_ + "/sub");
  std::ofstream(dir_ + "/notes.txt") << "my notes\n";
  std::ofstream(dir_ + "/sub/deep.txt") << "deep\n";
  std::ofstream(dir_ + "/a.yaml") << "mine: 1\n";
  DiagnosticSink sink;
  WriteDirOptions force;
  force.force = true;
  WriteCounts counts;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink, force, &counts))
      << FormatDiagnostics(sink, {});
  EXPECT_EQ(ReadFile(dir_ + "/notes.txt"), "my notes\n");
  EXPECT_EQ(ReadFile(dir_ + "/sub/deep.txt"), "deep\n");
  EXPECT_EQ(ReadFile(dir_ + "/a.yaml"), "# Source: templates/t/x.mustache\na: 1\n");
  // notes.txt and sub/deep.txt: kept, and said so; a.yaml: the user's, overwritten, and named.
  std::set<std::string> reported;
  for (const Diagnostic& d : sink.diagnostics()) reported.insert(d.rule + " " + d.location.file);
  EXPECT_EQ(reported, (std::set<std::string>{"write.overwritten " + dir_ + "/a.yaml",
                                             "write.user-file " + dir_ + "/notes.txt",
                                             "write.user-file " + dir_ + "/sub/deep.txt"}));
  EXPECT_EQ(sink.WarningCount(), 3);
  // Kept files are not "removed"; the overwritten one is a change.
  EXPECT_EQ(counts.removed, 0u);
  EXPECT_EQ(counts.changed, 1u);
  EXPECT_EQ(counts.added, 0u);
  // From now on it is a bundle: a plain render works and still keeps the user's files.
  DiagnosticSink again;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}}), dir_, again))
      << FormatDiagnostics(again, {});
  EXPECT_EQ(ReadFile(dir_ + "/notes.txt"), "my notes\n");
  EXPECT_EQ(again.diagnostics()[0].rule, "write.user-file");
  ExpectNoLeftovers();
}

TEST_F(WriteTest, SaysThatAManifestAUserPutInAppsIsApplied) {
  // Apps/ has no kustomization.yaml (the parent Application syncs it as a
  // directory), so a manifest there is applied; a file elsewhere, or not a manifest, is not.
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"apps/platform.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}),
                             dir_, sink));
  std::ofstream(dir_ + "/apps/mine.yaml") << "kind: ConfigMap\n";
  std::ofstream(dir_ + "/apps/notes.txt") << "notes\n";
  std::ofstream(dir_ + "/mine.yaml") << "kind: ConfigMap\n";
  DiagnosticSink second;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"apps/platform.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}),
                             dir_, second));
  std::map<std::string, std::string> messages;
  for (const Diagnostic& d : second.diagnostics()) {
    EXPECT_EQ(d.rule, "write.user-file");
    messages[d.location.file] = d.message;
  }
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_NE(messages[dir_ + "/apps/mine.yaml"].find("APPLIED"), std::string::npos);
  EXPECT_NE(messages[dir_ + "/apps/notes.txt"].find("not applied"), std::string::npos);
  EXPECT_NE(messages[dir_ + "/mine.yaml"].find("not applied"), std::string::npos);
  EXPECT_EQ(messages[dir_ + "/mine.yaml"].find("read only what kustomization.yaml lists)"),
            std::string::npos);
}

TEST_F(WriteTest, KeepsAndReportsFilesAUserAddedToABundle) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"b.yaml", "b: 1\n"}}), dir_, sink));
  std::ofstream(dir_ + "/README.md") << "# ours\n";
  DiagnosticSink second;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}}), dir_, second))
      << FormatDiagnostics(second, {});
  EXPECT_EQ(ReadFile(dir_ + "/README.md"), "# ours\n");
  EXPECT_FALSE(fs::exists(dir_ + "/b.yaml"));  // hkimgen's own file, no longer rendered
  ASSERT_EQ(second.diagnostics().size(), 1u);
  EXPECT_EQ(second.diagnostics()[0].rule, "write.user-file");
  EXPECT_EQ(second.diagnostics()[0].location.file, dir_ + "/README.md");
  // --check: the user's file is a warning, not a stale bundle.
  DiagnosticSink check;
  EXPECT_TRUE(CheckBundleDir(Bundle({{"a.yaml", "a: 2\n"}}), dir_, check));
  EXPECT_EQ(check.WarningCount(), 1);
}

TEST_F(WriteTest, RefusesAUsersFileUnderANameTheBundleNeeds) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  std::ofstream(dir_ + "/c.yaml") << "mine\n";
  DiagnosticSink second;
  EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"c.yaml", "c: 1\n"}}), dir_, second));
  EXPECT_EQ(second.diagnostics()[0].rule, "write.refused");
  EXPECT_EQ(ReadFile(dir_ + "/c.yaml"), "mine\n");
}

TEST_F(WriteTest, AUsersReadmeInAnOlderBundleFolderIsKeptAndTheRefusalSaysWhatToDo) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  std::ofstream(dir_ + "/README.md") << "our runbook\n";
  DiagnosticSink second;
  EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}, {"README.md", "# Bundle\n"}}), dir_, second));
  ASSERT_EQ(second.ErrorCount(), 1);
  EXPECT_NE(second.diagnostics()[0].message.find("rename yours (e.g. NOTES.md)"), std::string::npos)
      << second.diagnostics()[0].message;
  EXPECT_EQ(ReadFile(dir_ + "/README.md"), "our runbook\n");
}

TEST_F(WriteTest, NeverWritesTheFolderHoldingTheProfileEvenWithForce) {
  fs::create_directories(dir_);
  std::ofstream(dir_ + "/cluster.yaml") << "cluster: {}\n";
  const auto before = SnapshotDir(dir_);
  for (const std::string& target : {dir_, (root_ / "out").string()}) {
    DiagnosticSink sink;
    WriteDirOptions options;
    options.force = true;
    options.inputs = {dir_ + "/cluster.yaml"};
    EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), target, sink, options)) << target;
    ASSERT_EQ(sink.ErrorCount(), 1);
    EXPECT_EQ(sink.diagnostics()[0].rule, "write.refused");
    EXPECT_NE(sink.diagnostics()[0].message.find("holds the input file"), std::string::npos);
  }
  EXPECT_EQ(SnapshotDir(dir_), before);
}

TEST_F(WriteTest, NeverWritesTheCurrentDirectoryOrItsParents) {
  const fs::path cwd = fs::current_path();
  fs::create_directories(dir_ + "/inner");
  fs::current_path(dir_ + "/inner");
  for (const std::string& target : {dir_ + "/inner", dir_, (root_ / "out").string()}) {
    DiagnosticSink sink;
    WriteDirOptions options;
    options.force = true;
    EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), target, sink, options)) << target;
    EXPECT_EQ(sink.diagnostics().at(0).rule, "write.refused") << target;
  }
  fs::current_path(cwd);
  EXPECT_TRUE(fs::is_empty(dir_ + "/inner"));
}

/// The pid of a process that has exited (and been reaped).
long DeadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

TEST_F(WriteTest, SweepsTemporaryFoldersOfRendersThatAreGoneOnly) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  const fs::path gone_new = TemporarySibling(dir_, "new", DeadPid());
  const fs::path gone_old = TemporarySibling(dir_, "old", DeadPid());
  const fs::path alive = TemporarySibling(dir_, "new", getppid());  // a running process
  for (const fs::path& dir : {gone_new, gone_old, alive}) {
    fs::create_directories(dir);
    std::ofstream(dir / "x.yaml") << "half-written\n";
  }
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}}), dir_, sink));
  EXPECT_FALSE(fs::exists(gone_new));
  EXPECT_FALSE(fs::exists(gone_old));
  EXPECT_TRUE(fs::exists(alive / "x.yaml"));
}

/// Holds the lock that renders into `parent` take, as another render would.
struct ForeignLock {
  explicit ForeignLock(const fs::path& parent)
      : fd(open(parent.c_str(), O_RDONLY | O_DIRECTORY)) {
    EXPECT_EQ(flock(fd, LOCK_EX), 0);
  }
  ~ForeignLock() { close(fd); }
  int fd;
};

TEST_F(WriteTest, NoWaitFailsClearlyWhileAnotherRenderHoldsTheLock) {
  fs::create_directories(root_ / "out");
  ForeignLock other(root_ / "out");
  DiagnosticSink sink;
  WriteDirOptions no_wait;
  no_wait.wait = false;
  EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink, no_wait));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "io.locked");
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(WriteTest, ASecondRenderWaitsForTheFirstAndSaysSo) {
  fs::create_directories(root_ / "out");
  auto other = std::make_unique<ForeignLock>(root_ / "out");
  std::atomic<bool> waited{false};
  bool written = false;
  DiagnosticSink sink;
  std::thread render([&] {
    WriteDirOptions options;
    options.waiting = [&] { waited = true; };
    written = WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink, options);
  });
  while (!waited) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(fs::exists(dir_));  // still waiting
  other.reset();
  render.join();
  EXPECT_TRUE(written) << FormatDiagnostics(sink, {});
  EXPECT_EQ(ReadFile(dir_ + "/a.yaml"), "# Source: templates/t/x.mustache\na: 1\n");
}

}  // namespace
}  // namespace hkim
