#include "common/sysfs_read.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hkim::wrapper {
namespace {

bool IsNormalAbsence(int error) { return error == ENOENT || error == ENOTDIR; }

Finding ReadFinding(const std::string& path, int error, const std::string& what) {
  const char* rule = error == ELOOP                        ? "sysfs.symlink-loop"
                     : error == EFBIG                      ? "sysfs.too-large"
                     : error == EISDIR || error == ESPIPE ? "sysfs.not-a-file"
                                                           : "sysfs.unreadable";
  return {Severity::kWarning, path, rule, "cannot " + what + ": " + ReadErrorText(error) +
                                              "; ignoring it",
          ""};
}

}  // namespace

std::string ReadErrorText(int error) {
  switch (error) {
    case ELOOP:
      return "a symlink loop";
    case EFBIG:
      return "longer than the " + std::to_string(kMaxAttributeBytes) +
             " bytes a sysfs attribute holds (only that much was read)";
    case EISDIR:
      return "a folder where a file belongs";
    case ESPIPE:
      return "a FIFO, socket or device node, not a file (never read)";
    default:
      return std::strerror(error);
  }
}

bool ReadAttribute(const std::string& path, std::string* value, int* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = errno;
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (error) *error = S_ISDIR(st.st_mode) ? EISDIR : ESPIPE;
    ::close(fd);
    return false;
  }
  // One byte more than an attribute can hold tells a too-long file from a full page.
  char buffer[kMaxAttributeBytes + 1];
  size_t total = 0;
  while (total < sizeof(buffer)) {
    ssize_t n = ::read(fd, buffer + total, sizeof(buffer) - total);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (error) *error = errno;
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    total += static_cast<size_t>(n);
  }
  ::close(fd);
  if (total > kMaxAttributeBytes) {
    if (error) *error = EFBIG;
    return false;
  }
  std::string text(buffer, total);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' ||
                           text.back() == '\r' || text.back() == '\0'))
    text.pop_back();
  *value = text;
  return true;
}

std::vector<std::string> ListDirectory(const std::string& path, size_t limit, int* error,
                                       bool* truncated) {
  std::vector<std::string> out;
  if (error) *error = 0;
  if (truncated) *truncated = false;
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) {
    if (error) *error = errno;
    return out;
  }
  while (struct dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (out.size() >= limit) {
      if (truncated) *truncated = true;
      break;
    }
    out.push_back(name);
  }
  ::closedir(dir);
  return out;
}

bool ReadReported(const std::string& path, std::string* value, Findings* findings) {
  int error = 0;
  if (ReadAttribute(path, value, &error)) return true;
  if (!IsNormalAbsence(error) && error != EINVAL && findings != nullptr)
    findings->push_back(ReadFinding(path, error, "read it"));
  return false;
}

std::vector<std::string> ListReported(const std::string& path, size_t limit, Findings* findings) {
  int error = 0;
  bool truncated = false;
  std::vector<std::string> names = ListDirectory(path, limit, &error, &truncated);
  if (findings == nullptr) return names;
  if (error != 0 && !IsNormalAbsence(error)) {
    findings->push_back(ReadFinding(path, error, "list the folder"));
  } else if (truncated) {
    findings->push_back({Severity::kWarning, path, "sysfs.too-many-entries",
                         "more than " + std::to_string(limit) + " entries; reading " +
                             std::to_string(limit) + " of them and ignoring the rest",
                         ""});
  }
  return names;
}

}  // namespace hkim::wrapper
