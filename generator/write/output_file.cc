#include "write/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

namespace hkim {
namespace {

bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t done = write(fd, text.data(), text.size());
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(done));
  }
  return true;
}

// Creates `path` (which must not exist) holding `text`; on failure removes it again and
// returns the errno (0 on success).
int CreateWhole(const std::string& path, std::string_view text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  bool ok = WriteAll(fd, text);
  int saved = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok) return 0;
  unlink(path.c_str());
  return saved != 0 ? saved : EIO;
}

}  // namespace

OutputFileStatus WriteOutputFile(const std::string& path, std::string_view text, bool overwrite,
                                 std::string* reason) {
  if (!overwrite) {
    const int error = CreateWhole(path, text);
    if (error == 0) return OutputFileStatus::kWritten;
    *reason = std::strerror(error);
    return error == EEXIST ? OutputFileStatus::kExists : OutputFileStatus::kFailed;
  }
  // A sibling, so that the rename stays within one file system.
  const std::filesystem::path target(path);
  std::random_device entropy;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::filesystem::path temporary =
        target.parent_path() /
        ("." + target.filename().string() + ".hkimgen-" + std::to_string(entropy()) + ".tmp");
    const int error = CreateWhole(temporary.string(), text);
    if (error == EEXIST) continue;
    if (error != 0) {
      *reason = std::strerror(error);
      return OutputFileStatus::kFailed;
    }
    if (rename(temporary.c_str(), path.c_str()) != 0) {
      *reason = std::strerror(errno);
      unlink(temporary.c_str());
      return OutputFileStatus::kFailed;
    }
    return OutputFileStatus::kWritten;
  }
  *reason = std::strerror(EEXIST);
  return OutputFileStatus::kFailed;
}

}  // namespace hkim
