#pragma once

// hkimgen's main ends the process with _Exit once the command is done (main.cc): the system
// frees what the command built all at once. Destroying it piece by piece first is serial work
// that nobody waits for the result of (for a large fleet, a noticeable share of the render;
// bench/render/run.sh measures it). Commands hand such results here instead.

#include <memory>
#include <utility>

namespace hkim {

/// main calls this once, before the command runs: the process ends right after it.
void ProcessEndsAfterCommand();

/// Whether ProcessEndsAfterCommand was called.
bool EndsAfterCommand();

/// Keeps `value` alive until the process ends (reachable, so leak checkers stay quiet).
void KeepUntilExit(std::shared_ptr<void> value);

/// Takes `value` from the caller: kept until exit when the process ends after the command,
/// destroyed here otherwise (tests that run commands in one process).
template <typename T>
void LeaveToExit(T&& value) {
  using Value = std::remove_reference_t<T>;
  if (EndsAfterCommand()) {
    KeepUntilExit(std::make_shared<Value>(std::forward<T>(value)));
  } else {
    Value dropped(std::forward<T>(value));
  }
}

}  // namespace hkim
