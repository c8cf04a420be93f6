// WriteBehind (write/write_behind.h): a new folder's files written while the bundle renders,
// handed to the write stage when complete, and nothing left beside the folder otherwise.
#include "write/write_behind.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"
#include "write/guard.h"
#include "write/write.h"

namespace fs = std::filesystem;

namespace hkim {
namespace {

RenderedFile File(const std::string& name, const std::string& content) {
  return RenderedFile{name, "t/x.mustache", content};
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class WriteBehindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_support::FreshTestFolder("write-behind-test");
    target_ = root_ / "bundle";
    staging_ = TemporarySibling(target_, "new", getpid());
  }
  void TearDown() override { fs::remove_all(root_); }

  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(root_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

  fs::path root_, target_, staging_;
};

TEST_F(WriteBehindTest, OnlyAFolderThatDoesNotExistYetIsWrittenBehind) {
  EXPECT_NE(WriteBehind::ForNewFolder(target_.string()), nullptr);
  fs::create_directories(target_);
  EXPECT_EQ(WriteBehind::ForNewFolder(target_.string()), nullptr);
  EXPECT_EQ(WriteBehind::ForNewFolder((root_ / "missing" / "bundle").string()), nullptr)
      << "a folder whose parent is missing is left to the write stage";
}

TEST_F(WriteBehindTest, TakeHandsOverAFolderHoldingExactlyTheRenderedFiles) {
  WriteBehind behind(staging_);
  const RenderedFile a = File("a.yaml", "a: 1\n");
  const RenderedFile b = File("layer/b.yaml", "b: 2\n");
  behind.Add(a);
  behind.Add(b);
  ASSERT_TRUE(behind.Take(staging_, {"a.yaml", "layer/b.yaml"}));
  EXPECT_EQ(Read(staging_ / "a.yaml"), FileText(a));
  EXPECT_EQ(Read(staging_ / "layer" / "b.yaml"), FileText(b));
}

TEST_F(WriteBehindTest, AnotherSetOfFilesIsRefusedAndTheFolderRemoved) {
  WriteBehind behind(staging_);
  behind.Add(File("a.yaml", "a: 1\n"));
  EXPECT_FALSE(behind.Take(staging_, {"a.yaml", "b.yaml"}));
  EXPECT_TRUE(Entries().empty()) << "the staging folder is gone";
}

TEST_F(WriteBehindTest, ARenderThatStopsLeavesNothingBehind) {
  {
    WriteBehind behind(staging_);
    behind.Add(File("a.yaml", "a: 1\n"));
    behind.Add(File("b.yaml", "b: 1\n"));
  }
  EXPECT_TRUE(Entries().empty());
}

TEST_F(WriteBehindTest, TheWriteStageTakesTheFilesAndAddsTheMarker) {
  RenderedBundle bundle;
  bundle.bundle_name = "b";
  bundle.files = {File("a.yaml", "a: 1\n"), File("layer/b.yaml", "b: 2\n")};
  std::unique_ptr<WriteBehind> behind = WriteBehind::ForNewFolder(target_.string());
  ASSERT_NE(behind, nullptr);
  for (const RenderedFile& file : bundle.files) behind->Add(file);
  // The file as the thread wrote it: the write stage must keep it, not write it again.
  const fs::path early = staging_ / "a.yaml";
  for (int waited = 0; waited < 2000 && !fs::exists(early); ++waited) usleep(1000);
  struct stat written_behind {};
  ASSERT_EQ(stat(early.c_str(), &written_behind), 0);
  WriteDirOptions options;
  options.behind = behind.get();
  DiagnosticSink sink;
  WriteCounts counts;
  ASSERT_TRUE(WriteBundleDir(bundle, target_.string(), sink, options, &counts));
  behind.reset();  // the folder is the bundle's now: nothing of it is removed
  struct stat in_place {};
  ASSERT_EQ(stat((target_ / "a.yaml").c_str(), &in_place), 0);
  EXPECT_EQ(in_place.st_ino, written_behind.st_ino) << "written again instead of taken over";
  EXPECT_EQ(counts.added, 2u);
  EXPECT_EQ(Read(target_ / "layer" / "b.yaml"), FileText(bundle.files[1]));
  EXPECT_TRUE(fs::exists(target_ / kBundleMarkerName));
  EXPECT_EQ(Entries(), std::vector<std::string>{"bundle"}) << "no temporary sibling left";
}

TEST_F(WriteBehindTest, AFolderMadeMeanwhileIsWrittenAsUsual) {
  RenderedBundle bundle;
  bundle.bundle_name = "b";
  bundle.files = {File("a.yaml", "a: 1\n")};
  std::unique_ptr<WriteBehind> behind = WriteBehind::ForNewFolder(target_.string());
  ASSERT_NE(behind, nullptr);
  behind->Add(bundle.files[0]);
  fs::create_directories(target_);  // another render's, say, before the write stage ran
  WriteDirOptions options;
  options.behind = behind.get();
  DiagnosticSink sink;
  ASSERT_TRUE(WriteBundleDir(bundle, target_.string(), sink, options));
  behind.reset();
  EXPECT_EQ(Read(target_ / "a.yaml"), FileText(bundle.files[0]));
  EXPECT_EQ(Entries(), std::vector<std::string>{"bundle"});
}

}  // namespace
}  // namespace hkim
