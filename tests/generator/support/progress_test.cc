// Progress (support/progress.h): counters shared by render threads, the line drawn on a terminal after
// a delay, and the render stage reporting every file it renders; and the real hkimgen on a
// pseudo-terminal (forkpty), as a user's shell runs it.
#include "support/progress.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "load/load.h"
#include "pipeline/pipeline.h"
#include "test_files.h"

namespace hkim {
namespace {

using namespace std::chrono_literals;

TEST(Progress, CountsFromManyThreads) {
  RenderProgress progress;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      progress.Add(1000, 0);
      for (int i = 0; i < 1000; ++i) progress.Add(0, 1);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(progress.total(), 4000u);
  EXPECT_EQ(progress.done(), 4000u);
}

TEST(Progress, DrawsObjectsDoneOfTotalAfterTheDelayThenErasesTheLine) {
  RenderProgress progress;
  progress.Add(10, 4);
  std::ostringstream out;
  {
    ProgressDisplay display(progress, out, true, 0ms, 5ms);
    for (int i = 0; i < 400 && display.lines_drawn() == 0; ++i) std::this_thread::sleep_for(5ms);
    EXPECT_GT(display.lines_drawn(), 0);
  }
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("\rhkimgen: rendered 4/10 objects", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K");
}

TEST(Progress, QuickRendersPrintNothing) {
  RenderProgress progress;
  std::ostringstream out;
  { ProgressDisplay display(progress, out, true, 10s, 5ms); }
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, DisabledDisplayNeverPrints) {
  RenderProgress progress;
  std::ostringstream out;
  {
    ProgressDisplay display(progress, out, false, 0ms, 1ms);
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(display.lines_drawn(), 0);
  }
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, TheRenderCountsEveryFileItPlansAndRenders) {
  const std::string text =
      test_files::ReadFile(std::filesystem::path(HKIM_SOURCE_DIR) / "profiles/oke-h100.yaml");
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText("oke-h100.yaml", text, sink);
  ASSERT_TRUE(loaded);
  RenderProgress progress;
  RenderSettings settings;
  settings.progress = [&](size_t planned, size_t rendered) { progress.Add(planned, rendered); };
  auto bundle = RenderLoadedProfile(*loaded, sink, settings);
  ASSERT_TRUE(bundle);
  EXPECT_EQ(progress.total(), bundle->files.size());
  EXPECT_EQ(progress.done(), bundle->files.size());
}

TEST(Progress, TheDelayIsOneSecondUnlessTheTestVariableSetsIt) {
  unsetenv("HKIMGEN_PROGRESS_DELAY_MS");
  EXPECT_EQ(ProgressDelay(), 1s);
  setenv("HKIMGEN_PROGRESS_DELAY_MS", "0", 1);
  EXPECT_EQ(ProgressDelay(), 0ms);
  setenv("HKIMGEN_PROGRESS_DELAY_MS", "250", 1);
  EXPECT_EQ(ProgressDelay(), 250ms);
  for (const char* bad : {"", "soon", "-5", "5s", "999999"}) {
    setenv("HKIMGEN_PROGRESS_DELAY_MS", bad, 1);
    EXPECT_EQ(ProgressDelay(), 1s) << bad;
  }
  unsetenv("HKIMGEN_PROGRESS_DELAY_MS");
}

TEST(Progress, AZeroDelayDrawsOnceEvenWhenTheRenderIsAlreadyOver) {
  RenderProgress progress;
  progress.Add(3, 3);
  std::ostringstream out;
  { ProgressDisplay display(progress, out, true, 0ms, 10s); }
  EXPECT_EQ(out.str(), "\rhkimgen: rendered 3/3 objects\r\x1b[K");
}

/// Everything a command line wrote to its terminal, and its exit status.
struct TerminalRun {
  int status = -1;
  std::string screen;
};

/// Runs `line` with /bin/sh in `dir` on a new pseudo-terminal (stdin, stdout and stderr, as in a
/// user's shell; a redirection in `line` still applies) and collects what reaches the terminal.
/// Gives up (killing it) after two minutes, so a hang fails instead of blocking the suite.
TerminalRun RunOnTerminal(const std::string& line, const std::filesystem::path& dir) {
  TerminalRun run;
  const std::string where = dir.string();
  int terminal = -1;
  const pid_t pid = forkpty(&terminal, nullptr, nullptr, nullptr);
  if (pid < 0) return run;
  if (pid == 0) {
    if (chdir(where.c_str()) != 0) _exit(126);
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  char buffer[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd ready{terminal, POLLIN, 0};
    if (poll(&ready, 1, 500) <= 0) continue;
    const ssize_t n = read(terminal, buffer, sizeof buffer);
    if (n <= 0) break;  // EIO: every process holding the terminal is gone
    run.screen.append(buffer, static_cast<size_t>(n));
  }
  if (std::chrono::steady_clock::now() >= deadline) kill(pid, SIGKILL);
  close(terminal);
  int raw = 0;
  waitpid(pid, &raw, 0);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

/// A folder of its own (pid: two suites at once do not meet) holding two shipped profiles.
class ProgressOnATerminal : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    dir_ = test_support::FreshTestFolder("progress");
    fs::create_directories(dir_ / "profiles");
    // Each shipped profile names its own Argo CD destination: a fleet as shipped.
    for (const char* name : {"barcelona-h100-cx7", "oke-h100"}) {
      const std::string text = test_files::ReadFile(fs::path(HKIM_SOURCE_DIR) / "profiles" /
                                                    (std::string(name) + ".yaml"));
      std::ofstream(dir_ / "profiles" / (std::string(name) + ".yaml")) << text;
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// hkimgen with the progress line due at once (HKIMGEN_PROGRESS_DELAY_MS=0): whether it shows
  /// then depends only on the terminal and the flags, never on how fast the machine is.
  TerminalRun Hkimgen(const std::string& args) {
    return RunOnTerminal("HKIMGEN_PROGRESS_DELAY_MS=0 '" HKIM_BINARY "' " + args, dir_);
  }

  std::filesystem::path dir_;
};

/// Checks that `screen` shows the progress line, and that the last one drawn is erased before
/// `summary` (the line the command prints when done).
void ExpectLineErasedBefore(const std::string& screen, const std::string& summary) {
  static const std::regex kLine("\rhkimgen: rendered [0-9]+/[0-9]+ objects");
  ASSERT_TRUE(std::regex_search(screen, kLine)) << screen;
  const size_t last = screen.rfind("\rhkimgen: rendered ");
  const size_t erased = screen.find("\r\x1b[K", last);
  const size_t done = screen.find(summary);
  ASSERT_NE(erased, std::string::npos) << screen;
  ASSERT_NE(done, std::string::npos) << screen;
  EXPECT_LT(erased, done) << screen;
  EXPECT_EQ(screen.find("rendered", erased), std::string::npos) << screen;
}

TEST_F(ProgressOnATerminal, TheLineShowsAndIsErasedBeforeTheSummary) {
  TerminalRun one = Hkimgen("render profiles/barcelona-h100-cx7.yaml -d out");
  EXPECT_EQ(one.status, 0) << one.screen;
  ExpectLineErasedBefore(one.screen, "wrote ");
  EXPECT_NE(one.screen.find(" files to out: "), std::string::npos) << one.screen;
  TerminalRun fleet = Hkimgen("render profiles -d fleet");
  EXPECT_EQ(fleet.status, 0) << fleet.screen;
  ExpectLineErasedBefore(fleet.screen, "wrote 2 bundles and _fleet/ to fleet");
}

TEST_F(ProgressOnATerminal, NothingWithQuietJsonOrWhenStderrIsNotTheTerminal) {
  for (const std::string& args :
       {std::string("render profiles/barcelona-h100-cx7.yaml -d out -q"),
        std::string("render profiles -d fleet -q"),
        std::string("render profiles/barcelona-h100-cx7.yaml -d out -o json")}) {
    TerminalRun run = Hkimgen(args);
    EXPECT_EQ(run.status, 0) << args << run.screen;
    EXPECT_EQ(run.screen.find("rendered"), std::string::npos) << args << run.screen;
    EXPECT_EQ(run.screen.find("\x1b[K"), std::string::npos) << args << run.screen;
  }
  // stdout still the terminal, stderr a file: no line anywhere, the summary in the file.
  TerminalRun redirected = Hkimgen("render profiles -d fleet 2>stderr.txt");
  EXPECT_EQ(redirected.status, 0) << redirected.screen;
  EXPECT_EQ(redirected.screen.find("rendered"), std::string::npos) << redirected.screen;
  const std::string err = test_files::ReadFile(dir_ / "stderr.txt");
  // (after the notes of the shipped profiles' accepted lint.image-digest)
  EXPECT_NE(err.find("\nwrote 2 bundles and _fleet/ to fleet: "), std::string::npos) << err;
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
}

}  // namespace
}  // namespace hkim
