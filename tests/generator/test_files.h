#pragma once

// What several generator tests share: reading a file, snapshotting a folder for byte-for-byte
// comparisons, and running a shell command with its output captured.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace hkim::test_files {

/// The whole file, bytes as they are ("" when it cannot be read).
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Every file under `dir` (relative path -> content).
inline std::map<std::string, std::string> SnapshotDir(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[std::filesystem::relative(entry.path(), dir).string()] = ReadFile(entry.path());
    }
  }
  return files;
}

struct CommandRun {
  int status = -1;  ///< exit status, -1 when killed by a signal
  std::string out, err;
};

/// Runs `command` (one shell line) in `workdir`; stdout and stderr go through files in `scratch`.
inline CommandRun RunShell(const std::string& command, const std::filesystem::path& workdir,
                           const std::filesystem::path& scratch) {
  const std::filesystem::path out = scratch / "stdout", err = scratch / "stderr";
  const std::string line = "cd '" + workdir.string() + "' && " + command + " >'" + out.string() +
                           "' 2>'" + err.string() + "'";
  CommandRun run;
  const int raw = std::system(line.c_str());
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.out = ReadFile(out);
  run.err = ReadFile(err);
  return run;
}

}  // namespace hkim::test_files
