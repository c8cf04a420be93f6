#pragma once

// Ctrl-C (SIGINT) and SIGTERM during a write: instead of dying with a
// half-built staging folder beside DIR (tens of thousands of files that `git add -A` would pick
// up), a render notes the signal, stops at the next file, removes what it staged and says
// "interrupted; DIR unchanged" (exit 130, as a shell reports SIGINT).

namespace hkim {

/// The exit status of an interrupted command (128 + SIGINT).
inline constexpr int kInterruptedExitCode = 130;

/// From now on SIGINT and SIGTERM only set a flag (Interrupted()); a second one of them ends
/// the process as the default action would. For commands that write folders.
void CatchInterrupts();

/// Whether SIGINT or SIGTERM arrived since CatchInterrupts. Async-signal-safe, cheap: checked
/// once per file written.
bool Interrupted();

}  // namespace hkim
