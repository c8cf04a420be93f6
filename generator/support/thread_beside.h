#pragma once

// A thread that starts on another core than the one that starts it. On the 2-core VMs hkimgen
// is measured on, a new thread was mostly placed on its creator's core and ran first there:
// the creator stood still until the new thread next waited (Barcelona's render: the profile
// read waited 1 ms for the schema compile it was meant to overlap), while the other core idled.
// Started beside, the two run at once. Once running, the thread may go to any allowed core
// again, so the scheduler can still balance it.

#include <pthread.h>

#include <functional>

namespace hkim {

class ThreadBeside {
 public:
  /// Starts `body` on a new thread, on another allowed core than the caller's where there is
  /// one (elsewhere, or where that cannot be asked for, as a plain thread).
  explicit ThreadBeside(std::function<void()> body);
  /// Waits for the thread to end (Join).
  ~ThreadBeside();
  /// Waits for the thread to end; later calls return at once.
  void Join();
  ThreadBeside(const ThreadBeside&) = delete;
  ThreadBeside& operator=(const ThreadBeside&) = delete;

 private:
  static void* Start(void* self);

  std::function<void()> body_;
  cpu_set_t allowed_{};  // the cores the process may use, given back once the thread runs
  bool narrowed_ = false;
  pthread_t thread_{};
  bool started_ = false;
};

}  // namespace hkim
