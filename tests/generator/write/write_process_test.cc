// The write stage as processes meet it: `hkimgen render -d` run as a real process next
// to users' folders, killed with SIGKILL at several points, and run twice at once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "test_files.h"

extern char** environ;

namespace hkim {
namespace {

namespace fs = std::filesystem;
using hkim::test_files::SnapshotDir;

/// Starts `hkimgen render PROFILE -o DIR [extra]` with stdout and stderr to /dev/null.
pid_t StartRender(const fs::path& profile, const fs::path& dir,
                  std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {HKIM_BINARY, "render", profile.string(), "-d", dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, HKIM_BINARY, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

/// Waits for `pid`; its exit status, or -1 when a signal ended it.
int Wait(pid_t pid) {
  int raw = 0;
  waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

int Render(const fs::path& profile, const fs::path& dir, std::vector<std::string> extra = {}) {
  return Wait(StartRender(profile, dir, std::move(extra)));
}

class WriteProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_support::FreshTestFolder("write-process");
    fs::create_directories(root_ / "out");
    a_ = fs::path(HKIM_SOURCE_DIR) / "profiles/oke-a100.yaml";
    b_ = fs::path(HKIM_SOURCE_DIR) / "profiles/oke-h100.yaml";
    // What serial renders of each profile produce.
    ASSERT_EQ(Render(a_, root_ / "serial-a"), 0);
    ASSERT_EQ(Render(b_, root_ / "serial-b"), 0);
    serial_a_ = SnapshotDir(root_ / "serial-a");
    serial_b_ = SnapshotDir(root_ / "serial-b");
    ASSERT_NE(serial_a_, serial_b_);
  }
  void TearDown() override { fs::remove_all(root_); }

  /// Names in out/ (the bundle and anything a render left beside it).
  std::vector<std::string> OutEntries() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(root_ / "out")) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path root_, a_, b_;
  std::map<std::string, std::string> serial_a_, serial_b_;
};

TEST_F(WriteProcess, AUsersFolderAndTheProfilesFolderSurviveByteForByte) {
  const fs::path user = root_ / "mine";
  fs::create_directories(user);
  std::ofstream(user / "notes.txt") << "keep me\n";
  fs::copy_file(a_, user / "cluster.yaml");
  const auto before = SnapshotDir(user);
  EXPECT_EQ(Render(user / "cluster.yaml", user), 1);
  EXPECT_EQ(Render(user / "cluster.yaml", user, {"--force"}), 1);  // the profile's own folder
  EXPECT_EQ(Render(a_, user), 1);                                   // a folder hkimgen did not write
  EXPECT_EQ(SnapshotDir(user), before);
}

TEST_F(WriteProcess, AKilledRenderLeavesTheOldBundleAndTheNextRenderSweepsItsLitter) {
  const fs::path out = root_ / "out" / "bundle";
  // Kill points: while rendering (timed) and, holding the lock so the render waits with its
  // bundle ready, right after releasing it (inside the write, where litter is made).
  const std::vector<int> delays_us = {0, 500, 2000, 5000, 20000, 0, 50, 200, 500, 1000, 3000};
  for (size_t n = 0; n < delays_us.size(); ++n) {
    ASSERT_EQ(Render(a_, out), 0);
    const bool hold_lock = n >= 5;
    int lock = -1;
    if (hold_lock) {
      lock = open((root_ / "out").c_str(), O_RDONLY | O_DIRECTORY);
      ASSERT_EQ(flock(lock, LOCK_EX), 0);
    }
    const pid_t pid = StartRender(b_, out);
    if (hold_lock) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // rendered, now waiting
      close(lock);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delays_us[n]));
    kill(pid, SIGKILL);
    Wait(pid);
    const auto now = SnapshotDir(out);
    EXPECT_TRUE(now == serial_a_ || now == serial_b_) << "kill point " << n;
    ASSERT_EQ(Render(b_, out), 0) << "kill point " << n;
    EXPECT_EQ(SnapshotDir(out), serial_b_) << "kill point " << n;
    EXPECT_EQ(OutEntries(), std::vector<std::string>{"bundle"}) << "kill point " << n;
  }
}

TEST_F(WriteProcess, TwoRendersIntoOneFolderEndAsOneSerialRender) {
  const fs::path out = root_ / "out" / "bundle";
  for (int round = 0; round < 4; ++round) {
    const pid_t first = StartRender(round % 2 ? a_ : b_, out);
    const pid_t second = StartRender(b_, out);
    EXPECT_EQ(Wait(first), 0);
    EXPECT_EQ(Wait(second), 0);
    const auto now = SnapshotDir(out);
    EXPECT_TRUE(now == serial_a_ || now == serial_b_) << "round " << round;
    if (round % 2 == 0) {
      EXPECT_EQ(now, serial_b_);
    }
    EXPECT_EQ(OutEntries(), std::vector<std::string>{"bundle"});
  }
}

TEST_F(WriteProcess, NoWaitFailsWithExitTwoWhileAnotherRenderWrites) {
  const int lock = open((root_ / "out").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_EQ(flock(lock, LOCK_EX), 0);
  EXPECT_EQ(Render(a_, root_ / "out" / "bundle", {"--no-wait"}), 2);
  close(lock);
  EXPECT_FALSE(fs::exists(root_ / "out" / "bundle"));
}

/// Barcelona's profile with `count` namespaces: a bundle of tens of thousands of files, whose
/// write takes long enough to be interrupted in the middle.
fs::path ManyNamespaces(const fs::path& folder, int count) {
  std::ifstream in(fs::path(HKIM_SOURCE_DIR) / "profiles/barcelona-h100-cx7.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string list = "\nnamespaces:\n  - nccl-test\n";
  const size_t at = text.find(list);
  EXPECT_NE(at, std::string::npos);
  std::string names = "\nnamespaces:\n";
  for (int i = 0; i < count; ++i) names += "  - team-" + std::to_string(i) + "\n";
  text.replace(at, list.size(), names);
  // Each rail's range widened to a /20 (10.0.103.0/24 -> 10.3.0.0/20), so that every pod of
  // the namespaces gets an address (lint.ip-pool-capacity).
  for (char rail = '3'; rail <= '6'; ++rail) {
    const std::string from = std::string("range: 10.0.10") + rail + ".0/24";
    const size_t range = text.find(from);
    EXPECT_NE(range, std::string::npos) << from;
    if (range != std::string::npos) {
      text.replace(range, from.size(), std::string("range: 10.") + rail + ".0.0/20");
    }
  }
  const fs::path profile = folder / "many.yaml";
  std::ofstream(profile) << text;
  return profile;
}

TEST_F(WriteProcess, CtrlCDuringTheWriteRemovesTheStagingFolderAndSaysSo) {
  // SIGINT (and SIGTERM) while the new bundle is being staged: the staging
  // folder goes, the old bundle stays, "interrupted; DIR unchanged", exit 130.
  const fs::path profile = ManyNamespaces(root_, 1000);
  const fs::path out = root_ / "out" / "bundle";
  bool caught = false;
  for (int signal_number : {SIGINT, SIGTERM}) {
    ASSERT_EQ(Render(a_, out), 0);
    const fs::path log = root_ / "stderr.txt";
    std::vector<std::string> args = {HKIM_BINARY, "render", profile.string(), "-d", out.string()};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    ASSERT_EQ(posix_spawn(&pid, HKIM_BINARY, &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    // Signal once the staging folder holds files: in the middle of the write.
    const fs::path staging = root_ / "out" / (".bundle.hkimgen-new-" + std::to_string(pid));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool staged = false;
    while (!staged && std::chrono::steady_clock::now() < deadline) {
      std::error_code ec;
      staged = fs::exists(staging / "platform", ec);
      if (!staged) std::this_thread::sleep_for(std::chrono::microseconds(200));
      int raw = 0;
      if (!staged && waitpid(pid, &raw, WNOHANG) == pid) {  // finished first: too fast to catch
        pid = -1;
        break;
      }
    }
    if (pid < 0) continue;
    kill(pid, signal_number);
    const int status = Wait(pid);
    std::ifstream in(log);
    const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (status == 0) continue;  // the last file was written before the signal came: done
    caught = true;
    EXPECT_EQ(status, 130) << err;
    EXPECT_NE(err.find("interrupted; " + out.string() + " unchanged"), std::string::npos) << err;
    EXPECT_NE(err.find("[write.interrupted]"), std::string::npos) << err;
    EXPECT_EQ(SnapshotDir(out), serial_a_);
    EXPECT_EQ(OutEntries(), std::vector<std::string>{"bundle"});  // no staging folder left
  }
  EXPECT_TRUE(caught) << "no signal arrived during a write; the test proved nothing";
}

}  // namespace
}  // namespace hkim
