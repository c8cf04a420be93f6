#include "memlock.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hkim::wrapper {
namespace {

constexpr int kCapIpcLock = 14;
constexpr int kCapSysResource = 24;

uint64_t FromRlim(rlim_t v) { return v == RLIM_INFINITY ? kUnlimited : static_cast<uint64_t>(v); }
rlim_t ToRlim(uint64_t v) { return v == kUnlimited ? RLIM_INFINITY : static_cast<rlim_t>(v); }

class ProcessMemlockSystem : public MemlockSystem {
 public:
  explicit ProcessMemlockSystem(std::string proc) : status_path_(std::move(proc) + "/self/status") {}
  int Get(MemlockLimits* limits) override {
    struct rlimit r;
    if (::getrlimit(RLIMIT_MEMLOCK, &r) != 0) return errno;
    limits->soft = FromRlim(r.rlim_cur);
    limits->hard = FromRlim(r.rlim_max);
    return 0;
  }
  int Set(const MemlockLimits& limits) override {
    struct rlimit r = {ToRlim(limits.soft), ToRlim(limits.hard)};
    return ::setrlimit(RLIMIT_MEMLOCK, &r) == 0 ? 0 : errno;
  }
  std::optional<uint64_t> EffectiveCapabilities() override {
    std::string status;
    if (!ReadBounded(&status)) return std::nullopt;
    const size_t at = status.find("\nCapEff:");
    if (at == std::string::npos) {
      problem_ = status_path_ + " has no CapEff line";
      return std::nullopt;
    }
    const std::string hex = status.substr(at + 8, status.find('\n', at + 1) - at - 8);
    errno = 0;
    char* end = nullptr;
    const unsigned long long caps = std::strtoull(hex.c_str(), &end, 16);
    if (errno != 0 || end == hex.c_str()) {
      problem_ = status_path_ + ": CapEff is not a hexadecimal number";
      return std::nullopt;
    }
    return caps;
  }
  std::string CapabilitiesProblem() override { return problem_; }

 private:
  // Reads at most kMaxProcStatusBytes: a file put in procfs's place cannot exhaust memory.
  bool ReadBounded(std::string* text) {
    const int fd = ::open(status_path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      problem_ = status_path_ + ": " + std::strerror(errno);
      return false;
    }
    text->assign("\n");  // so the first line also follows a newline
    char buffer[4096];
    ssize_t n = 0;
    while (text->size() < kMaxProcStatusBytes &&
           (n = ::read(fd, buffer, sizeof(buffer))) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text->append(buffer, static_cast<size_t>(n));
    }
    const int error = errno;
    ::close(fd);
    if (n < 0) {
      problem_ = status_path_ + ": " + std::strerror(error);
      return false;
    }
    return true;
  }

  std::string status_path_;
  std::string problem_;
};

std::string Describe(const MemlockLimits& l) {
  return "soft " + FormatBytes(l.soft) + ", hard " + FormatBytes(l.hard);
}

}  // namespace

std::unique_ptr<MemlockSystem> MakeProcessMemlockSystem(const std::string& proc) {
  return std::make_unique<ProcessMemlockSystem>(proc);
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes == kUnlimited) return "unlimited";
  const uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
  if (bytes >= kGiB && bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

MemlockResult RaiseMemlock(MemlockSystem& system) {
  MemlockResult result;
  if (auto caps = system.EffectiveCapabilities()) {
    result.capabilities_known = true;
    result.cap_ipc_lock = (*caps >> kCapIpcLock) & 1;
    result.cap_sys_resource = (*caps >> kCapSysResource) & 1;
  }
  int error = system.Get(&result.before);
  if (error != 0) {
    result.steps.push_back(std::string("getrlimit failed: ") + std::strerror(error));
    result.after = result.before;
  } else {
    MemlockLimits current = result.before;
    result.steps.push_back("found " + Describe(current));
    // 1. soft up to hard: always allowed.
    if (current.soft != current.hard && current.soft != kUnlimited) {
      error = system.Set({current.hard, current.hard});
      if (error == 0) {
        result.steps.push_back("raised the soft limit to the hard limit (" +
                               FormatBytes(current.hard) + ")");
        current.soft = current.hard;
      } else {
        result.steps.push_back(std::string("raising soft to hard failed: ") + std::strerror(error));
      }
    }
    // 2. both to unlimited: needs CAP_SYS_RESOURCE unless the hard limit already is.
    if (current.soft != kUnlimited || current.hard != kUnlimited) {
      error = system.Set({kUnlimited, kUnlimited});
      result.steps.push_back(error == 0 ? std::string("raised to unlimited")
                                        : std::string("raising to unlimited failed: ") +
                                              std::strerror(error));
    }
    // 3. verify.
    if (system.Get(&result.after) != 0) result.after = current;
    result.steps.push_back("now " + Describe(result.after));
  }
  result.sufficient = result.after.soft == kUnlimited || result.cap_ipc_lock;
  if (!result.sufficient) {
    result.findings.push_back(
        {Severity::kError, "memlock", "memlock.too-low",
         "locked-memory limit is " + FormatBytes(result.after.soft) +
             " and cannot be raised, and CAP_IPC_LOCK is not effective" +
             (result.capabilities_known ? "" : " (capabilities unreadable)") +
             ": RDMA registrations larger than that per process fail with ENOMEM "
             "(NCCL: ibv_reg_mr failed, Cannot allocate memory)",
         "one of: an SCC allowing SYS_RESOURCE with capabilities.add [IPC_LOCK, SYS_RESOURCE] so "
         "the "
         "wrapper can raise the limit; running as UID 0 (runAsUser: 0, SCC runAsUser RunAsAny) "
         "with "
         "capabilities.add [IPC_LOCK] so the capability is effective; the CRI-O drop-in "
         "/etc/crio/crio.conf.d/99-memlock.conf with [crio.runtime] default_ulimits = "
         "[\"memlock=-1:-1\"] (a MachineConfig on OpenShift); or privileged: true"});
  }
  if (!result.capabilities_known) {
    result.findings.push_back(
        {Severity::kWarning, "memlock", "memlock.capabilities-unknown",
         "cannot read the effective capabilities (" + system.CapabilitiesProblem() +
             "); judging by the locked-memory limit alone, as if CAP_IPC_LOCK were not effective",
         "mount /proc in the container (container runtimes do unless told otherwise)"});
  }
  return result;
}

}  // namespace hkim::wrapper
