#pragma once

// Reading an input file as users name it: a path, or "-" for stdin (profiles, -f values files).

#include <optional>
#include <string>

namespace hkim {

/// The text of the file at `path`, or of stdin when `path` is "-" (read once per process, so
/// several readers of "-" see the same text). On failure returns nullopt and sets `reason` to
/// the OS's words ("No such file or directory", "Is a directory", ...).
std::optional<std::string> ReadInputText(const std::string& path, std::string* reason);

/// The name diagnostics give `path`: "<stdin>" for "-", else `path`.
std::string InputLabel(const std::string& path);

}  // namespace hkim
