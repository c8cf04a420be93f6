#pragma once

// The hkimgen command line: every registered sub-command (CommandRegistry), the global flags
// (--no-color, --version), `hkimgen help [COMMAND]`, and what a bare or mistyped command gets.

#include <ostream>

namespace hkim {

/// Parses `argv` and runs the chosen sub-command. Returns the exit status: 0 ok, 1 invalid
/// input or usage, 2 I/O or internal failure (a sub-command may document more, e.g. diff).
int RunHkimgen(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace hkim
