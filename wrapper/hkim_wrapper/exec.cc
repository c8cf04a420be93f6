#include "exec.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hkim::wrapper {
namespace {

std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

int StatusForErrno(int error, const std::string& command, std::string* message) {
  if (error == ENOENT) {
    *message = "cannot run '" + command + "': " +
               (command.find('/') == std::string::npos ? "command not found in PATH"
                                                       : "no such file or directory");
    return kExitNotFound;
  }
  *message = "cannot run '" + command + "': " + std::strerror(error) +
             (error == EACCES ? " (is it executable?)" : "");
  return kExitCannotExecute;
}

}  // namespace

std::vector<std::string> BuildEnvironment(const std::vector<std::string>& entries,
                                          const std::map<std::string, std::string>& set) {
  std::vector<std::string> env;
  env.reserve(entries.size() + set.size());
  for (const std::string& entry : entries) {
    size_t eq = entry.find('=');
    if (eq != std::string::npos && set.count(entry.substr(0, eq))) continue;
    env.push_back(entry);
  }
  for (const auto& [name, value] : set) env.push_back(name + "=" + value);
  return env;
}

int ExecCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                std::string* error) {
  if (argv.empty() || argv[0].empty()) {
    *error = "no command given";
    return kExitNotFound;
  }
  std::vector<char*> args = Pointers(argv);
  std::vector<char*> envp = Pointers(env);
  ::execvpe(args[0], args.data(), envp.data());
  return StatusForErrno(errno, argv[0], error);
}

int RunChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             std::string* error) {
  if (argv.empty() || argv[0].empty()) {
    *error = "no command given";
    return kExitNotFound;
  }
  std::vector<char*> args = Pointers(argv);
  std::vector<char*> envp = Pointers(env);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), envp.data());
  if (rc != 0) return StatusForErrno(rc, argv[0], error);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = std::string("waitpid failed: ") + std::strerror(errno);
      return kExitCannotExecute;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitCannotExecute;
}

}  // namespace hkim::wrapper
