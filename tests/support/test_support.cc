#include "test_support.h"

#include <sys/wait.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace hkim::test_support {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::map<std::string, std::string> SnapshotDir(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), dir).string()] = ReadFile(entry.path());
    }
  }
  return files;
}

CommandRun RunShell(const std::string& command, const fs::path& workdir, const fs::path& scratch) {
  const fs::path out = scratch / "stdout", err = scratch / "stderr";
  const std::string line = "cd '" + workdir.string() + "' && " + command + " >'" + out.string() +
                           "' 2>'" + err.string() + "'";
  CommandRun run;
  const int raw = std::system(line.c_str());
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.out = ReadFile(out);
  run.err = ReadFile(err);
  return run;
}

CommandRun RunCapturing(const std::string& command) {
  CommandRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    run.out.append(buffer.data(), n);
  }
  const int raw = ::pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

bool OnPath(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

fs::path TempFileOnce(const std::string& stem, const std::string& text) {
  // One file per stem, written on first use and removed at exit.
  struct File {
    fs::path path;
    ~File() {
      std::error_code ec;
      fs::remove(path, ec);
    }
  };
  static std::map<std::string, std::unique_ptr<File>> files;
  std::unique_ptr<File>& file = files[stem];
  if (!file) {
    file = std::make_unique<File>();
    file->path = fs::temp_directory_path() / (stem + "-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(file->path) << text;
  }
  return file->path;
}

fs::path FreshTestFolder(const std::string& what) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "none";
  const fs::path folder =
      fs::temp_directory_path() / ("hkim-" + what + "-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

}  // namespace hkim::test_support
