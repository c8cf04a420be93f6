#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "finding.h"

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
};

/// The real process (getrlimit/setrlimit, /proc/self/status).
std::unique_ptr<MemlockSystem> MakeProcessMemlockSystem();

/// What the memlock step did and found.
struct MemlockResult {
  MemlockLimits before;
  MemlockLimits after;
  bool cap_ipc_lock = false;      ///< CAP_IPC_LOCK effective (registrations are not limited)
  bool cap_sys_resource = false;  ///< CAP_SYS_RESOURCE effective (hard limit can be raised)
  bool capabilities_known = false;
  bool sufficient = false;         ///< unlimited, or CAP_IPC_LOCK effective
  std::vector<std::string> steps;  ///< what was tried, in order, with the outcome
  Findings findings;               ///< memlock.too-low (kError) with the exact fix
};

/// Raises the soft limit to the hard limit, tries unlimited for both, then reads the limit
/// back and decides whether RDMA registrations can work.
MemlockResult RaiseMemlock(MemlockSystem& system);

/// "unlimited", "8 MiB", "64 KiB", "1234 bytes".
std::string FormatBytes(uint64_t bytes);

}  // namespace hkim::wrapper
