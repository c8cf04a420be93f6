#include "support/leave_to_exit.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace hkim {
namespace {

std::atomic<bool> ends_after_command{false};

std::mutex& KeptMutex() {
  static std::mutex* mutex = new std::mutex;  // never destroyed: lives until exit
  return *mutex;
}

std::vector<std::shared_ptr<void>>& Kept() {
  static auto* kept = new std::vector<std::shared_ptr<void>>;  // reachable until exit
  return *kept;
}

}  // namespace

void ProcessEndsAfterCommand() { ends_after_command = true; }

bool EndsAfterCommand() { return ends_after_command; }

void KeepUntilExit(std::shared_ptr<void> value) {
  std::lock_guard<std::mutex> lock(KeptMutex());
  Kept().push_back(std::move(value));
}

}  // namespace hkim
