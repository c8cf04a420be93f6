#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/finding.h"

namespace hkim::wrapper {

inline constexpr uint64_t kUnlimited = UINT64_MAX;

/// RLIMIT_MEMLOCK in bytes; kUnlimited for RLIM_INFINITY.
struct MemlockLimits {
  uint64_t soft = 0;
  uint64_t hard = 0;
};

/// The process facilities the memlock step uses, behind an interface so tests can play the
/// cases of FIXTURES A.7 (non-root, privileged, root + IPC_LOCK, CRI-O drop-in).
class MemlockSystem {
 public:
  virtual ~MemlockSystem() = default;
  /// getrlimit(RLIMIT_MEMLOCK); returns errno or 0.
  virtual int Get(MemlockLimits* limits) = 0;
  /// setrlimit(RLIMIT_MEMLOCK); returns errno or 0.
  virtual int Set(const MemlockLimits& limits) = 0;
  /// CapEff from /proc/self/status; nullopt when unreadable.
  virtual std::optional<uint64_t> EffectiveCapabilities() = 0;
  /// After EffectiveCapabilities gave nullopt: where it looked and why it failed, for the
  /// report ("/proc/self/status: No such file or directory").
  virtual std::string CapabilitiesProblem() { return "capabilities unreadable"; }
};

/// The real process (getrlimit/setrlimit, <proc>/self/status). `proc` is where procfs is
/// mounted; a pod without it (or with an odd one) gets "capabilities unknown", never a crash.
std::unique_ptr<MemlockSystem> MakeProcessMemlockSystem(const std::string& proc = "/proc");

/// Most bytes of <proc>/self/status read (the kernel writes about 1.5 KiB).
inline constexpr size_t kMaxProcStatusBytes = 64 * 1024;

/// What the memlock step did and found.
struct MemlockResult {
  MemlockLimits before;
  MemlockLimits after;
  bool cap_ipc_lock = false;      ///< CAP_IPC_LOCK effective (registrations are not limited)
  bool cap_sys_resource = false;  ///< CAP_SYS_RESOURCE effective (hard limit can be raised)
  bool capabilities_known = false;
  bool sufficient = false;         ///< unlimited, or CAP_IPC_LOCK effective
  std::vector<std::string> steps;  ///< what was tried, in order, with the outcome
  Findings findings;  ///< memlock.too-low (kError) with the exact fix; memlock.capabilities-unknown
};

/// Raises the soft limit to the hard limit, tries unlimited for both, then reads the limit
/// back and decides whether RDMA registrations can work.
MemlockResult RaiseMemlock(MemlockSystem& system);

/// "unlimited", "8 MiB", "64 KiB", "1234 bytes".
std::string FormatBytes(uint64_t bytes);

}  // namespace hkim::wrapper
