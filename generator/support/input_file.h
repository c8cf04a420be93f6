#pragma once

// Reading an input file as users name it: a path, or "-" for stdin (profiles, -f values files).

#include <cstddef>
#include <optional>
#include <string>

namespace hkim {

/// The text of the file at `path`, or of stdin when `path` is "-" (read once per process, so
/// several readers of "-" see the same text). On failure returns nullopt and sets `reason` to
/// the OS's words ("No such file or directory", "Is a directory", ...).
std::optional<std::string> ReadInputText(const std::string& path, std::string* reason);

/// Same, reading at most `limit` + 1 bytes (one past it, for the caller to refuse), for inputs
/// with a limit of their own (cluster exports: limits::kMaxExportBytes).
std::optional<std::string> ReadInputText(const std::string& path, std::string* reason,
                                         std::size_t limit);

/// The name diagnostics give `path`: "<stdin>" for "-", else `path`.
std::string InputLabel(const std::string& path);

}  // namespace hkim
