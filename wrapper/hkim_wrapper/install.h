#pragma once

#include <string>
#include <vector>

namespace hkim::wrapper {

/// Absolute path of the running executable (/proc/self/exe), or, when /proc is unavailable,
/// `argv0` resolved: as a path when it holds a '/', else looked up in $PATH the way execvp
/// found it (`PATH` entries, an empty one meaning "."); "" when nothing works.
std::string SelfPath(const char* argv0);

/// `--install-to DIR`: copies `self` and every executable `hkim-*` file beside it into `dir`
/// (created if missing), keeping permission bits; each file is written to a temporary name and
/// renamed, so a reader never sees half a binary. Returns 0, or 2 with `*error` set.
/// `installed` receives the file names copied, sorted.
int InstallTo(const std::string& self, const std::string& dir, std::vector<std::string>* installed,
              std::string* error);

}  // namespace hkim::wrapper
