#pragma once

// Progress of a long render: counters the render stage bumps (from any thread), and a display
// that draws "hkimgen: rendered N/M objects" on a terminal once a render has run for a while.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <thread>

namespace hkim {

/// Objects planned (total) and rendered (done) so far. Thread-safe; never blocks.
class RenderProgress {
 public:
  void Add(size_t planned, size_t rendered) {
    total_.fetch_add(planned, std::memory_order_relaxed);
    done_.fetch_add(rendered, std::memory_order_relaxed);
  }
  size_t total() const { return total_.load(std::memory_order_relaxed); }
  size_t done() const { return done_.load(std::memory_order_relaxed); }

 private:
  std::atomic<size_t> total_{0};
  std::atomic<size_t> done_{0};
};

/// How long a render runs before its progress line shows: one second, or the milliseconds in
/// the environment variable HKIMGEN_PROGRESS_DELAY_MS (0 to 60000; for tests, which cannot
/// make a render last a second on every machine).
std::chrono::milliseconds ProgressDelay();

/// Draws `progress` on `out` (a terminal) every `interval`, starting only after `delay` so that
/// quick renders print nothing (a zero delay draws the first line at once, however quick the
/// render); the destructor stops the drawing thread and erases the line. When `enabled` is
/// false (stderr not a terminal, --quiet) it starts no thread and prints nothing.
class ProgressDisplay {
 public:
  ProgressDisplay(const RenderProgress& progress, std::ostream& out, bool enabled,
                  std::chrono::milliseconds delay = ProgressDelay(),
                  std::chrono::milliseconds interval = std::chrono::milliseconds(100));
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  /// How many times a line was drawn (tests).
  int lines_drawn() const { return lines_drawn_.load(); }

 private:
  void Run(std::chrono::milliseconds delay, std::chrono::milliseconds interval);
  void Draw();

  const RenderProgress& progress_;
  std::ostream& out_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool drawn_ = false;
  std::atomic<int> lines_drawn_{0};
  std::thread thread_;
};

/// True when file descriptor `fd` is a terminal (isatty).
bool IsTerminal(int fd);

}  // namespace hkim
