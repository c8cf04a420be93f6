// Progress line (support/progress.h).

#include "support/progress.h"

#include <unistd.h>

#include <cstdlib>

namespace hkim {

ProgressDisplay::ProgressDisplay(const RenderProgress& progress, std::ostream& out, bool enabled,
                                 std::chrono::milliseconds delay,
                                 std::chrono::milliseconds interval)
    : progress_(progress), out_(out) {
  if (enabled) thread_ = std::thread([this, delay, interval] { Run(delay, interval); });
}

ProgressDisplay::~ProgressDisplay() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (drawn_) out_ << "\r\x1b[K" << std::flush;  // leave the terminal line as it was
}

void ProgressDisplay::Run(std::chrono::milliseconds delay, std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> lock(mutex_);
  // A zero delay draws even when the render is already over: the line's first draw and its
  // erasure are then certain, whatever the scheduling (the terminal tests rely on it).
  if (delay.count() > 0 && wake_.wait_for(lock, delay, [this] { return stop_; })) return;
  while (true) {
    Draw();
    if (wake_.wait_for(lock, interval, [this] { return stop_; })) return;
  }
}

void ProgressDisplay::Draw() {
  out_ << "\rhkimgen: rendered " << progress_.done() << '/' << progress_.total() << " objects"
       << std::flush;
  drawn_ = true;
  ++lines_drawn_;
}

std::chrono::milliseconds ProgressDelay() {
  const char* env = std::getenv("HKIMGEN_PROGRESS_DELAY_MS");
  if (env == nullptr || *env == '\0') return std::chrono::seconds(1);
  char* end = nullptr;
  const long ms = std::strtol(env, &end, 10);
  if (*end != '\0' || ms < 0 || ms > 60000) return std::chrono::seconds(1);
  return std::chrono::milliseconds(ms);
}

bool IsTerminal(int fd) { return isatty(fd) == 1; }

}  // namespace hkim
