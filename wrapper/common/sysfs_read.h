#pragma once

// The primitive reads of the sysfs stage: bounded, never blocking, never following data out of
// the tree; the *Reported forms say what they ignored, so a hostile or broken /sys shows up in
// the wrapper's report instead of vanishing.

#include <cstddef>
#include <string>
#include <vector>

#include "common/finding.h"

namespace hkim::wrapper {

/// Largest sysfs attribute read: the kernel's text attributes fit in one page.
inline constexpr size_t kMaxAttributeBytes = 4096;

/// Reads a small sysfs attribute: regular files only (never blocks on a FIFO), trailing
/// whitespace removed. Returns false and sets *error when it cannot: the open/read errno,
/// EISDIR for a folder, ESPIPE for a FIFO, socket or device node (never read), EFBIG for a file
/// longer than kMaxAttributeBytes (only that much plus one byte is read).
bool ReadAttribute(const std::string& path, std::string* value, int* error = nullptr);

/// Entries of a directory except "." and "..", unsorted, at most `limit`. `*error` gets
/// opendir's errno (0 when it opened); `*truncated` tells whether entries were left unread.
std::vector<std::string> ListDirectory(const std::string& path, size_t limit = 4096,
                                       int* error = nullptr, bool* truncated = nullptr);

/// Why ReadAttribute failed, in words ("a symlink loop", "longer than the 4096 bytes ...").
std::string ReadErrorText(int error);

/// ReadAttribute that reports what it ignores: a loop, a file too long for sysfs, a folder or
/// FIFO in a file's place, a permission or I/O error become a finding on `path`. Absence
/// (ENOENT, ENOTDIR) and EINVAL (the kernel's answer for an empty GID slot) stay silent: those
/// are normal.
bool ReadReported(const std::string& path, std::string* value, Findings* findings);

/// ListDirectory that reports a folder it cannot open (other than an absent one) and one with
/// more than `limit` entries (which of them were read depends on the file system's order).
std::vector<std::string> ListReported(const std::string& path, size_t limit, Findings* findings);

}  // namespace hkim::wrapper
