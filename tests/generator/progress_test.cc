// Progress (progress.h): counters shared by render threads, the line drawn on a terminal after
// a delay, and the render stage reporting every file it renders.
#include "progress.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <thread>
#include <vector>

#include "load.h"
#include "pipeline.h"
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
  const std::string text = test_files::ReadFile(std::filesystem::path(HKIM_SOURCE_DIR) /
                                                "profiles/oke-h100.yaml");
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

}  // namespace
}  // namespace hkim
