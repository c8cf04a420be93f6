#pragma once

// Runs independent tasks on a few threads: the render and write stages of one bundle split their
// objects and files this way (each task writes only its own slot, so results stay in order and
// byte-identical for any thread count).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "support/thread_beside.h"

namespace hkim {

/// The threads ParallelFor(count, threads, ...) runs on: at least 1, at most `count`.
inline unsigned ParallelWorkers(size_t count, unsigned threads) {
  if (count < threads) threads = static_cast<unsigned>(count);
  return threads == 0 ? 1 : threads;
}

/// Fewer tasks than this per thread are not worth one: starting a thread, and its malloc arena
/// faulting its memory in, cost more than rendering or writing a few dozen small files (a
/// bundle of a few dozen files renders faster on one thread than on two).
constexpr size_t kMinTasksPerThread = 32;

/// The threads worth using for `count` small tasks (render one object, write one file): at
/// most `threads`, one per `per_thread` tasks, at least 1.
inline unsigned ThreadsForSmallTasks(size_t count, unsigned threads,
                                     size_t per_thread = kMinTasksPerThread) {
  const size_t useful = count / per_thread;
  return useful == 0 ? 1u : static_cast<unsigned>(std::min<size_t>(threads, useful));
}

/// Calls `task(i, worker)` for every i in [0, count) on ParallelWorkers(count, threads) threads
/// (the caller's is worker 0), and returns when all are done. `task` must be safe to run
/// concurrently for different i; `worker` (< ParallelWorkers) lets it keep per-thread state.
template <typename Task>
void ParallelFor(size_t count, unsigned threads, const Task& task) {
  std::atomic<size_t> next{0};
  auto work = [&](unsigned worker) {
    for (size_t i = next++; i < count; i = next++) task(i, worker);
  };
  // Each started beside its creator (support/thread_beside.h), joined when the pool goes.
  std::vector<std::unique_ptr<ThreadBeside>> pool;
  const unsigned workers = ParallelWorkers(count, threads);
  for (unsigned t = 1; t < workers; ++t) {
    pool.push_back(std::make_unique<ThreadBeside>([&work, t] { work(t); }));
  }
  work(0);
}

}  // namespace hkim
