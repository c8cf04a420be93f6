#include "memlock.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace hkim::wrapper {
namespace {

// Plays the kernel's rules: the soft limit may go up to the hard one; the hard limit goes up
// only with CAP_SYS_RESOURCE.
class FakeSystem : public MemlockSystem {
 public:
  FakeSystem(MemlockLimits limits, std::optional<uint64_t> caps) : limits_(limits), caps_(caps) {}
  int Get(MemlockLimits* limits) override {
    *limits = limits_;
    return 0;
  }
  int Set(const MemlockLimits& wanted) override {
    bool sys_resource = caps_ && ((*caps_ >> 24) & 1);
    if (wanted.hard > limits_.hard && !sys_resource) return EPERM;
    if (wanted.soft > wanted.hard) return EINVAL;
    limits_ = wanted;
    return 0;
  }
  std::optional<uint64_t> EffectiveCapabilities() override { return caps_; }
  MemlockLimits limits_;
  std::optional<uint64_t> caps_;
};

constexpr uint64_t k8MiB = 8 << 20;

TEST(Memlock, NonRootWithBoundedIpcLockCannotRaiseAndSaysWhatFixesIt) {  // FIXTURES A.7a
  FakeSystem system({k8MiB, k8MiB}, 0);
  MemlockResult r = RaiseMemlock(system);
  EXPECT_FALSE(r.sufficient);
  EXPECT_EQ(r.after.soft, k8MiB);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].rule, "memlock.too-low");
  EXPECT_NE(r.findings[0].message.find("8 MiB"), std::string::npos);
  EXPECT_NE(r.findings[0].message.find("ENOMEM"), std::string::npos);
  for (const char* fix :
       {"SYS_RESOURCE", "UID 0", "IPC_LOCK", "default_ulimits", "memlock=-1:-1", "privileged"})
    EXPECT_NE(r.findings[0].fix.find(fix), std::string::npos) << fix;
}

TEST(Memlock, PrivilegedRaisesToUnlimited) {  // A.7b
  FakeSystem system({k8MiB, k8MiB}, 0x000001ffffffffffULL);
  MemlockResult r = RaiseMemlock(system);
  EXPECT_TRUE(r.sufficient);
  EXPECT_EQ(r.after.soft, kUnlimited);
  EXPECT_EQ(r.after.hard, kUnlimited);
  EXPECT_TRUE(r.findings.empty());
}

TEST(Memlock, RootWithEffectiveIpcLockIsEnoughWithoutRaising) {  // A.7c
  FakeSystem system({k8MiB, k8MiB}, 0x00000000000045fbULL);
  MemlockResult r = RaiseMemlock(system);
  EXPECT_TRUE(r.cap_ipc_lock);
  EXPECT_FALSE(r.cap_sys_resource);
  EXPECT_EQ(r.after.soft, k8MiB);
  EXPECT_TRUE(r.sufficient);
}

TEST(Memlock, CrioDropInAlreadyUnlimited) {  // A.7d
  FakeSystem system({kUnlimited, kUnlimited}, 0);
  MemlockResult r = RaiseMemlock(system);
  EXPECT_TRUE(r.sufficient);
  EXPECT_EQ(r.steps.size(), 2u);  // found, now: nothing to raise
}

TEST(Memlock, RaisesSoftToHardWhenHardIsUnlimited) {
  FakeSystem system({k8MiB, kUnlimited}, 0);
  MemlockResult r = RaiseMemlock(system);
  EXPECT_TRUE(r.sufficient);
  EXPECT_EQ(r.after.soft, kUnlimited);
}

TEST(Memlock, RaisesSoftToAFiniteHardLimitAndStillReportsTooLow) {
  FakeSystem system({64 << 10, k8MiB}, std::nullopt);
  MemlockResult r = RaiseMemlock(system);
  EXPECT_EQ(r.after.soft, k8MiB);
  EXPECT_FALSE(r.sufficient);
  EXPECT_NE(r.findings[0].message.find("capabilities unreadable"), std::string::npos);
}

TEST(Memlock, UnreadableCapabilitiesAreReportedEvenWhenTheLimitIsEnough) {
  FakeSystem system({kUnlimited, kUnlimited}, std::nullopt);
  MemlockResult r = RaiseMemlock(system);
  EXPECT_TRUE(r.sufficient);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].rule, "memlock.capabilities-unknown");
  EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
}

// A folder standing in for /proc: missing, with a huge or garbled status, or a good one.
class ProcFolder {
 public:
  ProcFolder() {
    char tmpl[] = "/tmp/hkim-proc-XXXXXX";
    root_ = ::mkdtemp(tmpl);
  }
  ~ProcFolder() { std::filesystem::remove_all(root_); }
  void WriteStatus(const std::string& text) {
    std::filesystem::create_directories(root_ + "/self");
    std::ofstream(root_ + "/self/status") << text;
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

TEST(Memlock, MissingProcLeavesCapabilitiesUnknownAndNamesThePath) {
  ProcFolder proc;
  MemlockResult r = RaiseMemlock(*MakeProcessMemlockSystem(proc.root()));
  EXPECT_FALSE(r.capabilities_known);
  const Finding& f = r.findings.back();
  EXPECT_EQ(f.rule, "memlock.capabilities-unknown");
  EXPECT_NE(f.message.find(proc.root() + "/self/status: No such file or directory"),
            std::string::npos)
      << f.message;
}

TEST(Memlock, HugeStatusWithoutCapEffIsReadOnlyInPart) {
  ProcFolder proc;
  proc.WriteStatus(std::string(8 << 20, 'x') + "\nCapEff:\t0000000000004000\n");
  MemlockResult r = RaiseMemlock(*MakeProcessMemlockSystem(proc.root()));
  EXPECT_FALSE(r.capabilities_known);  // the line lies beyond kMaxProcStatusBytes
  EXPECT_NE(r.findings.back().message.find("has no CapEff line"), std::string::npos);
}

TEST(Memlock, GarbledCapEffIsUnknownAndAGoodOneIsRead) {
  ProcFolder proc;
  proc.WriteStatus("Name:\tx\nCapEff:\tzz\n");
  EXPECT_FALSE(RaiseMemlock(*MakeProcessMemlockSystem(proc.root())).capabilities_known);
  proc.WriteStatus("Name:\tx\nCapInh:\t0\nCapEff:\t0000000000004000\nCapBnd:\t0\n");
  MemlockResult r = RaiseMemlock(*MakeProcessMemlockSystem(proc.root()));
  EXPECT_TRUE(r.capabilities_known);
  EXPECT_TRUE(r.cap_ipc_lock);
}

TEST(Memlock, FormatsSizes) {
  EXPECT_EQ(FormatBytes(kUnlimited), "unlimited");
  EXPECT_EQ(FormatBytes(k8MiB), "8 MiB");
  EXPECT_EQ(FormatBytes(65536), "64 KiB");
  EXPECT_EQ(FormatBytes(1000), "1000 bytes");
}

}  // namespace
}  // namespace hkim::wrapper
