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

/// What reading an input with a limit of its own gave (cluster exports: up to
/// limits::kMaxExportBytes).
struct BoundedInput {
  std::optional<std::string> text;  ///< the whole input, when it was read and fits the limit
  std::string reason;               ///< why there is no text: the OS's words, or the size
  bool too_large = false;           ///< refused for its size: a file before reading (its size is
                                    ///< known), a pipe once it passed the limit
  bool stdin_taken = false;         ///< "-" when stdin was already read as another input
};

/// Reads `path` ("-": stdin) whole if it holds at most `limit` bytes. Memory stays within the
/// input's size (a file is read into one buffer of its size; a pipe stops one byte past the
/// limit). Stdin serves one kind of input per process: when ReadInputText read it as a profile,
/// this refuses it (and the other way round), so `validate - --cluster -` is an error rather
/// than the profile read as the export.
BoundedInput ReadBoundedInput(const std::string& path, std::size_t limit);

/// The name diagnostics give `path`: "<stdin>" for "-", else `path`.
std::string InputLabel(const std::string& path);

}  // namespace hkim
