#include "support/interrupt.h"

#include <signal.h>

#include <atomic>

namespace hkim {

namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read from a signal handler");

extern "C" void OnInterrupt(int signal_number) {
  if (g_interrupted.exchange(true)) {
    // The second Ctrl-C: the user insists. Die as the default action would (the next render
    // sweeps what this one left: guard.h, SweepTemporarySiblings).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(signal_number, &dfl, nullptr);
    raise(signal_number);
  }
}

}  // namespace

void CatchInterrupts() {
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  // Restart interrupted system calls: the writers check Interrupted() between files, and a
  // read or write cut short by EINTR would otherwise turn into an I/O error.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool Interrupted() { return g_interrupted.load(std::memory_order_relaxed); }

}  // namespace hkim
