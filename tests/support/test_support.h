#pragma once

// What the test binaries of every part share (hkim_test_support, tests/support/CMakeLists.txt):
// reading a file, snapshotting a folder, running a command with its output captured, asking
// whether a program is installed. Nothing here knows hkimgen; tests/generator/test_files.h adds
// the generator's own helpers on top.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hkim::test_support {

/// The whole file, bytes as they are ("" when it cannot be read).
std::string ReadFile(const std::filesystem::path& path);

/// Every file under `dir` (relative path -> content).
std::map<std::string, std::string> SnapshotDir(const std::filesystem::path& dir);

struct CommandRun {
  int status = -1;  ///< exit status, -1 when killed by a signal
  std::string out, err;
};

/// Runs `command` (one shell line) in `workdir`; stdout and stderr go through files in `scratch`.
CommandRun RunShell(const std::string& command, const std::filesystem::path& workdir,
                    const std::filesystem::path& scratch);

/// Runs `command` (one shell line) and captures its stdout in `out` (`err` stays empty: add
/// 2>&1 to the line to capture both).
CommandRun RunCapturing(const std::string& command);

/// Whether `program` is found on $PATH (tests that need kubectl or npm skip without it).
bool OnPath(const std::string& program);

/// A new, empty folder for the running gtest test: "<temporary folder>/hkim-<what>-<pid>-<suite>.
/// <test>" (one an earlier run of the same test left is removed first). The test removes it.
std::filesystem::path FreshTestFolder(const std::string& what);

/// Writes `text` to a file named `stem`-PID.yaml in the temporary folder once per process and
/// returns its path; the file is removed when the process ends.
std::filesystem::path TempFileOnce(const std::string& stem, const std::string& text);

}  // namespace hkim::test_support
