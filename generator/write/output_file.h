#pragma once

// One file that a command writes at a path the user named (discover --output-file, init
// --output-file): created whole or not at all, never through a symlink at the path's last
// component, never over an existing file unless the user asked for that.

#include <string>
#include <string_view>

namespace hkim {

enum class OutputFileStatus {
  kWritten,
  kExists,  ///< the path exists (a file, a folder or a symlink, dangling or not) and !overwrite
  kFailed,  ///< the OS refused; `reason` says why; nothing was left at the path
};

/// Writes `text` to `path`. Without `overwrite`, the file is created with O_CREAT|O_EXCL (which
/// never follows a symlink and fails on any existing entry, so the check and the creation are
/// one step); with it, the text goes to a new temporary sibling that is renamed over the path
/// (rename replaces a symlink, it does not write through it). A failed write removes what it
/// created, so the path holds either the whole text or what was there before.
OutputFileStatus WriteOutputFile(const std::string& path, std::string_view text, bool overwrite,
                                 std::string* reason);

}  // namespace hkim
