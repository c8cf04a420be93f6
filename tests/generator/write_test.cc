#include "write.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "diagnostics_format.h"
#include "test_files.h"

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
    root_ = fs::temp_directory_path() /
            ("hkim-write-test-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
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

TEST_F(WriteTest, WritesEveryFileWithItsSourceHeader) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"10-a.yaml", "a: 1\n"}, {"kustomization.yaml", "k: 1\n"}}),
                             dir_, sink))
      << FormatDiagnostics(sink, {});
  EXPECT_EQ(SnapshotDir(dir_),
            (std::map<std::string, std::string>{
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
  EXPECT_EQ(SnapshotDir(dir_).size(), 1u);
  EXPECT_TRUE(fs::exists(dir_ + "/a.yaml"));
}

TEST_F(WriteTest, FailureLeavesExistingDirectoryByteIdentical) {
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  const auto before = SnapshotDir(dir_);
  // A name that cannot be created inside the staging directory makes the write fail midway.
  EXPECT_FALSE(
      WriteBundleDir(Bundle({{"a.yaml", "a: 2\n"}, {"no/such/dir.yaml", "x\n"}}), dir_, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "io.write");
  EXPECT_EQ(SnapshotDir(dir_), before);
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

TEST_F(WriteTest, RefusesDirectoriesThatCannotBeSwapped) {
  for (const std::string dir : {".", "..", "/", "out/.."}) {
    DiagnosticSink sink;
    EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir, sink)) << dir;
    ASSERT_EQ(sink.ErrorCount(), 1) << dir;
    EXPECT_EQ(sink.diagnostics()[0].message, "cannot be replaced as a whole");
  }
}

TEST_F(WriteTest, RefusesToReplaceAFile) {
  fs::create_directories(root_ / "out");
  std::ofstream(dir_) << "not a directory";
  DiagnosticSink sink;
  EXPECT_FALSE(WriteBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  EXPECT_EQ(sink.diagnostics()[0].message, "exists and is not a directory");
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
            dir_ +
                "/a.yaml: error: out of date: differs from what the profile renders to "
                "[write.stale]\n" +
                fix + dir_ +
                "/c.yaml: error: missing: the profile renders this file [write.missing]\n" + fix +
                dir_ +
                "/b.yaml: error: extra: the profile does not render this file "
                "[write.extra]\n" +
                fix + "3 errors, 0 warnings\n");
  EXPECT_EQ(SnapshotDir(dir_), before);
}

TEST_F(WriteTest, CheckOfMissingDirectoryNamesEveryFile) {
  DiagnosticSink sink;
  EXPECT_FALSE(CheckBundleDir(Bundle({{"a.yaml", "a: 1\n"}}), dir_, sink));
  ASSERT_EQ(sink.ErrorCount(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "write.missing");
  EXPECT_FALSE(fs::exists(dir_));
}

TEST(WriteStream, WritesTheMultiDocumentStream) {
  std::ostringstream out;
  DiagnosticSink sink;
  RenderedBundle bundle = Bundle({{"a.yaml", "a: 1\n"}, {"kustomization.yaml", "k: 1\n"}});
  EXPECT_TRUE(WriteBundleStream(bundle, out, sink));
  EXPECT_EQ(out.str(), "---\n# Source: templates/t/x.mustache\na: 1\n");
}

}  // namespace
}  // namespace hkim
