#include "nccl_conf.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hkim::wrapper {
namespace {

// Creates `path` with `content` only if nothing is there: the text goes to a private temporary
// file first, then link(2) publishes it atomically and fails with EEXIST instead of replacing.
bool WriteNew(const std::string& path, const std::string& content, bool* existed,
              std::string* error) {
  *existed = false;
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot create " + temp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write " + temp + ": " + std::strerror(errno);
      close(fd);
      unlink(temp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  const int rc = link(temp.c_str(), path.c_str());
  const int link_errno = errno;
  unlink(temp.c_str());
  if (rc == 0) return true;
  if (link_errno == EEXIST) {
    *existed = true;
    return false;
  }
  *error = "cannot create " + path + ": " + std::strerror(link_errno);
  return false;
}

}  // namespace

std::string FormatNcclConf(const std::map<std::string, std::string>& vars) {
  std::string out =
      "# Written by hkim-wrapper at pod start: its NCCL decisions for processes started outside\n"
      "# it (kubectl exec, mpirun over ssh). NCCL reads it through NCCL_CONF_FILE (2.23 and\n"
      "# newer) or ~/.nccl.conf (older); a variable already in the environment wins.\n";
  for (const auto& [name, value] : vars) out += name + "=" + value + "\n";
  return out;
}

Findings PublishNcclConf(const NcclConfRequest& request) {
  Findings findings;
  if (request.conf_file.empty()) return findings;
  const std::string where = "env NCCL_CONF_FILE";
  bool existed = false;
  std::string error;
  if (WriteNew(request.conf_file, FormatNcclConf(request.vars), &existed, &error)) {
    findings.push_back({Severity::kNote, where, "conf.written",
                        "wrote " + std::to_string(request.vars.size()) + " variable(s) to " +
                            request.conf_file + " for processes started with kubectl exec",
                        ""});
  } else if (existed) {
    findings.push_back(
        {Severity::kNote, where, "conf.exists",
         request.conf_file + " exists already (a restarted container, or written by hand): left "
                             "alone; processes started with kubectl exec read it as it is",
         "delete it to have the wrapper write this start's decisions"});
  } else {
    findings.push_back({Severity::kWarning, where, "conf.not-written",
                        error + "; processes started with kubectl exec will not get the "
                                "wrapper's NCCL settings",
                        "mount a writable volume at the folder of NCCL_CONF_FILE, or start them "
                        "as hkim-wrapper -- COMMAND"});
    return findings;
  }
  if (request.home_dir.empty()) return findings;
  const std::string home_conf = request.home_dir + "/.nccl.conf";
  struct stat info;
  if (lstat(home_conf.c_str(), &info) == 0) {
    findings.push_back({Severity::kNote, home_conf, "conf.home-exists",
                        home_conf + " exists: left alone (NCCL before 2.23 reads it instead of " +
                            request.conf_file + ")",
                        ""});
  } else if (symlink(request.conf_file.c_str(), home_conf.c_str()) == 0) {
    findings.push_back({Severity::kNote, home_conf, "conf.home-linked",
                        home_conf + " -> " + request.conf_file + " (for NCCL before 2.23)", ""});
  } else {
    findings.push_back({Severity::kWarning, home_conf, "conf.home-not-linked",
                        "cannot link " + home_conf + ": " + std::strerror(errno) +
                            "; NCCL before 2.23 started by kubectl exec will not read the "
                            "wrapper's settings",
                        "use NCCL 2.23 or newer, or start such processes as hkim-wrapper -- "
                        "COMMAND"});
  }
  return findings;
}

std::string PasswdHomeDir() {
  const struct passwd* entry = getpwuid(getuid());
  return entry == nullptr || entry->pw_dir == nullptr ? std::string() : std::string(entry->pw_dir);
}

}  // namespace hkim::wrapper
