#include "install.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "sysfs_probe.h"

namespace hkim::wrapper {
namespace {

int MakeDirs(const std::string& dir) {
  std::string path;
  size_t start = 0;
  while (start <= dir.size()) {
    size_t slash = dir.find('/', start);
    path = dir.substr(0, slash == std::string::npos ? dir.size() : slash);
    if (!path.empty() && ::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

bool CopyFile(const std::string& from, const std::string& to, std::string* error) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    *error = "cannot read " + from + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  ::fstat(in, &st);
  const std::string temp = to + ".tmp-" + std::to_string(::getpid());
  int out = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
  if (out < 0) {
    *error = "cannot write " + temp + ": " + std::strerror(errno);
    ::close(in);
    return false;
  }
  char buffer[1 << 16];
  bool ok = true;
  for (;;) {
    ssize_t n = ::read(in, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = "cannot read " + from + ": " + std::strerror(errno);
      ok = false;
      break;
    }
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out, buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        *error = "cannot write " + temp + ": " + std::strerror(errno);
        ok = false;
        break;
      }
      done += w;
    }
    if (!ok) break;
  }
  ::close(in);
  if (ok && ::fchmod(out, st.st_mode & 07777) != 0) {
    *error = "cannot chmod " + temp + ": " + std::strerror(errno);
    ok = false;
  }
  if (::close(out) != 0 && ok) {
    *error = "cannot write " + temp + ": " + std::strerror(errno);
    ok = false;
  }
  if (ok && ::rename(temp.c_str(), to.c_str()) != 0) {
    *error = "cannot rename " + temp + " to " + to + ": " + std::strerror(errno);
    ok = false;
  }
  if (!ok) ::unlink(temp.c_str());
  return ok;
}

}  // namespace

std::string SelfPath(const char* argv0) {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n > 0) return std::string(buffer, static_cast<size_t>(n));
  if (argv0 == nullptr || *argv0 == '\0') return "";
  if (std::strchr(argv0, '/') != nullptr)
    return ::realpath(argv0, buffer) != nullptr ? buffer : "";
  // Started through $PATH without /proc (a pod that masks it): find it where execvp did.
  const char* path = std::getenv("PATH");
  std::string entries = path != nullptr ? path : "";
  size_t start = 0;
  while (start <= entries.size()) {
    size_t colon = entries.find(':', start);
    if (colon == std::string::npos) colon = entries.size();
    const std::string dir = colon == start ? "." : entries.substr(start, colon - start);
    const std::string candidate = dir + "/" + argv0;
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0 && ::realpath(candidate.c_str(), buffer) != nullptr)
      return buffer;
    start = colon + 1;
  }
  return "";
}

int InstallTo(const std::string& self, const std::string& dir, std::vector<std::string>* installed,
              std::string* error) {
  if (self.empty()) {
    *error = "cannot find the wrapper's own executable (/proc/self/exe unreadable)";
    return 2;
  }
  if (int rc = MakeDirs(dir); rc != 0) {
    *error = "cannot create " + dir + ": " + std::strerror(rc);
    return 2;
  }
  const size_t slash = self.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : self.substr(0, slash);
  const std::string self_name = slash == std::string::npos ? self : self.substr(slash + 1);
  std::vector<std::string> names = {self_name};
  for (const std::string& name : ListDirectory(folder)) {
    if (name.rfind("hkim-", 0) != 0 || name == self_name || name.find(".tmp-") != std::string::npos)
      continue;
    struct stat st;
    const std::string path = folder + "/" + name;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string from = name == self_name ? self : folder + "/" + name;
    if (!CopyFile(from, dir + "/" + name, error)) return 2;
    installed->push_back(name);
  }
  return 0;
}

}  // namespace hkim::wrapper
