// Command-line tests: the real hkim-wrapper binary on fixture sysfs trees, through
// --print-env, --check and a real `-- COMMAND` exec.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sysfs_fixture.h"
#include "test_support.h"

namespace hkim::wrapper {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace testing;

struct Result {
  int status = -1;
  std::string out, err;
};

using test_support::ReadFile;

// Runs `program` with exactly `env` (plus PATH), capturing stdout and stderr. `in_child` runs in
// the child before exec; when it returns false the child exits 77 (the test skips).
Result RunProgram(const std::vector<std::string>& args, std::vector<std::string> env,
                  const std::string& program = HKIM_WRAPPER_BIN,
                  const std::function<bool()>& in_child = nullptr,
                  const std::string& argv0 = "") {
  SysfsFixture io;
  const std::string out_path = io.root() + "/out", err_path = io.root() + "/err";
  env.push_back("PATH=/usr/local/bin:/usr/bin:/bin");
  std::vector<std::string> argv = {argv0.empty() ? program : argv0};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (in_child && !in_child()) ::_exit(77);
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(s.data());
    for (auto& s : env) e.push_back(s.data());
    a.push_back(nullptr);
    e.push_back(nullptr);
    ::execve(program.c_str(), a.data(), e.data());
    ::_exit(121);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Result r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  return r;
}

const char kBarcelonaNow[] =
    "NCCL_IB_DISABLE=0\n"
    "NCCL_IB_GID_INDEX=3\n"
    "NCCL_IB_HCA==mlx5_6,mlx5_7,mlx5_10,mlx5_11\n"
    "NCCL_SOCKET_IFNAME==eth0\n";

TEST(WrapperProgram, BarcelonaNowPrintEnv) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"},
                        PluginEnvironment(BarcelonaDevices(), true, true));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kBarcelonaNow);
  EXPECT_THAT(r.err, HasSubstr("hkim-wrapper: rdma -- 4 usable of 4 RDMA device(s)"));
}

TEST(WrapperProgram, BarcelonaFebruaryPrintEnvThroughTheEnvironmentVariableRoot) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices(true));
  auto env = PluginEnvironment(BarcelonaDevices(true), true, true);
  env.push_back("HKIM_SYSFS_ROOT=" + fixture.root());
  Result r = RunProgram({"--print-env"}, env);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NCCL_IB_HCA==mlx5_6,mlx5_7,mlx5_8,mlx5_9\n"));
}

TEST(WrapperProgram, OldPluginWithoutInfoGivesTheSameResult) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"},
                        PluginEnvironment(BarcelonaDevices(), false, false));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kBarcelonaNow);
}

TEST(WrapperProgram, MalformedInfoJsonWarnsAndFallsBackToSysfs) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  auto env = PluginEnvironment(BarcelonaDevices(), true, true);
  env[1] = "PCIDEVICE_OPENSHIFT_IO_ENO5NP0RDMA_INFO={\"0000:1a:00.2\":{\"rdma\":{\"rdma_dev\":";
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"}, env);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kBarcelonaNow);
  EXPECT_THAT(r.err, HasSubstr("env PCIDEVICE_OPENSHIFT_IO_ENO5NP0RDMA_INFO:1:"));
  EXPECT_THAT(r.err, HasSubstr("[env.info-json-malformed]"));
}

TEST(WrapperProgram, SharedModeUsesOnlyTheAllocatedDevices) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  for (const FixtureDevice& pf : HostPfDevices(6)) fixture.AddDevice(pf);
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"},
                        PluginEnvironment(BarcelonaDevices(), true, true));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kBarcelonaNow);
  EXPECT_THAT(
      r.err,
      HasSubstr("ignored (not allocated to this pod): mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5"));
}

TEST(WrapperProgram, OkeSixteenVfsWithAHyphenatedResourceAndUserVariables) {
  SysfsFixture fixture;
  BuildPod(&fixture, OkeDevices());
  auto env = PluginEnvironment(OkeDevices(), true, true, "NVIDIA_COM_RDMA-VF");
  env.push_back("NCCL_SOCKET_IFNAME=eth0");
  env.push_back("NCCL_IB_TC=41");
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"}, env);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "NCCL_IB_DISABLE=0\nNCCL_IB_GID_INDEX=3\n"
            "NCCL_IB_HCA==mlx5_18,mlx5_19,mlx5_20,mlx5_21,mlx5_22,mlx5_23,mlx5_24,mlx5_25,mlx5_26,"
            "mlx5_27,mlx5_28,mlx5_29,mlx5_30,mlx5_31,mlx5_32,mlx5_33\n");
  EXPECT_THAT(r.err, HasSubstr("kept NCCL_SOCKET_IFNAME=eth0"));
}

TEST(WrapperProgram, PortDownDropsTheDeviceButStarts) {
  SysfsFixture fixture;
  auto devices = BarcelonaDevices();
  devices[3].state = "1: DOWN";
  BuildPod(&fixture, devices);
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"},
                        PluginEnvironment(devices, true, true));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NCCL_IB_HCA==mlx5_6,mlx5_7,mlx5_10\n"));
  Result check = RunProgram({"--sysfs-root", fixture.root(), "--check"},
                            PluginEnvironment(devices, true, true));
  EXPECT_EQ(check.status, 1);
  EXPECT_THAT(check.out, HasSubstr("mlx5_11 (0000:9a:01.2) is not used: port 1 is DOWN"));
}

TEST(WrapperProgram, CheckPassesOnAHealthyPod) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--check"},
                        PluginEnvironment(BarcelonaDevices(), true, true));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("result: RDMA fully usable\n"));
}

TEST(WrapperProgram, NoPluginVariablesUsesTheVfs) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"}, {});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kBarcelonaNow);
  EXPECT_THAT(r.err, HasSubstr("[detect.vf-fallback]"));
}

TEST(WrapperProgram, NothingAtAllFailsUnderTheDefaultPolicy) {
  SysfsFixture fixture;
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"}, {});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("error: no RDMA device"));
  EXPECT_THAT(r.err, HasSubstr("fix: request the RDMA resources"));
  Result exec = RunProgram({"--sysfs-root", fixture.root(), "--", "sh", "-c", "echo started"}, {});
  EXPECT_EQ(exec.status, 1);
  EXPECT_EQ(exec.out, "");
  EXPECT_THAT(exec.err, HasSubstr("not starting sh"));
}

TEST(WrapperProgram, NothingAtAllRunsOverTcpUnderTheTcpPolicyLoudly) {
  SysfsFixture fixture;
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"}, {"HKIM_ON_NO_RDMA=tcp"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "NCCL_IB_DISABLE=1\nNCCL_SOCKET_IFNAME==eth0\n");
  EXPECT_THAT(r.err, HasSubstr("THE JOB RUNS AT TCP SPEED"));
  Result flag = RunProgram({"--sysfs-root", fixture.root(), "--on-no-rdma", "tcp", "--", "sh", "-c",
                            "echo $NCCL_IB_DISABLE"},
                           {});
  EXPECT_EQ(flag.status, 0);
  EXPECT_EQ(flag.out, "1\n");
}

TEST(WrapperProgram, TcpModeSkipsDetection) {
  Result r = RunProgram({"--sysfs-root", "/nonexistent", "--print-env"},
                        {"HKIM_MODE=tcp", "NCCL_IB_DISABLE=1", "NCCL_SOCKET_IFNAME=eth0"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("RDMA detection skipped"));
}

TEST(WrapperProgram, UserSetVariablesAreNeverOverridden) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  auto env = PluginEnvironment(BarcelonaDevices(), true, true);
  env.push_back("NCCL_IB_HCA=mlx5_6");
  env.push_back("NCCL_IB_GID_INDEX=3");
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--", "sh", "-c",
                         "echo $NCCL_IB_HCA $NCCL_IB_GID_INDEX $NCCL_IB_DISABLE"},
                        env);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "mlx5_6 3 0\n");
  EXPECT_THAT(
      r.err,
      HasSubstr("kept NCCL_IB_HCA=mlx5_6 (user's value; detected =mlx5_6,mlx5_7,mlx5_10,mlx5_11)"));
}

TEST(WrapperProgram, ExecPassesTheEnvironmentAndTheExitStatus) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  auto env = PluginEnvironment(BarcelonaDevices(), true, true);
  Result r = RunProgram(
      {"--sysfs-root", fixture.root(), "-q", "--", "sh", "-c", "echo \"$NCCL_IB_HCA\"; exit 42"},
      env);
  EXPECT_EQ(r.status, 42);
  EXPECT_EQ(r.out, "=mlx5_6,mlx5_7,mlx5_10,mlx5_11\n");
  EXPECT_THAT(r.err, Not(HasSubstr("hkim-wrapper: rdma")));  // -q: no banner
  EXPECT_THAT(r.err, HasSubstr("\"outcome\":\"rdma\""));     // but the JSON record
}

TEST(WrapperProgram, MissingCommandIs127AndNonExecutableIs126) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  auto env = PluginEnvironment(BarcelonaDevices(), true, true);
  Result missing = RunProgram({"--sysfs-root", fixture.root(), "--", "hkim-no-such-command"}, env);
  EXPECT_EQ(missing.status, 127);
  EXPECT_THAT(missing.err,
              HasSubstr("cannot run 'hkim-no-such-command': command not found in PATH"));
  fixture.WriteFile("not-executable", "#!/bin/sh\n");
  Result denied =
      RunProgram({"--sysfs-root", fixture.root(), "--", fixture.root() + "/not-executable"}, env);
  EXPECT_EQ(denied.status, 126);
  EXPECT_THAT(denied.err, HasSubstr("Permission denied"));
}

TEST(WrapperProgram, ReportFileHoldsTheJsonRecord) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  const std::string report = fixture.root() + "/report.json";
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--report", report, "--", "true"},
                        PluginEnvironment(BarcelonaDevices(), true, true));
  EXPECT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(ReadFile(report));
  EXPECT_EQ(j["set"]["NCCL_IB_HCA"], "=mlx5_6,mlx5_7,mlx5_10,mlx5_11");
  EXPECT_EQ(j["devices"].size(), 4u);
  EXPECT_EQ(j["devices"][2]["gid_index"], 3);
  EXPECT_THAT(r.err, Not(HasSubstr("\"outcome\"")));
}

TEST(WrapperProgram, HostileInputIsReportedNeverACrash) {
  SysfsFixture fixture;
  auto devices = BarcelonaDevices();
  devices[1].gids = {{3, {"zzzz", "RoCE v2\n\x01", std::string(5000, 'n')}}};
  BuildPod(&fixture, devices);
  fixture.Symlink("class/infiniband/mlx5_99", "mlx5_99");  // a link to itself
  fixture.WriteFile("class/infiniband/mlx5_6/ports/1/rate", std::string(100000, 'r'));
  auto env = PluginEnvironment(devices, true, true);
  env.push_back("PCIDEVICE_JUNK=\x01\x02,0000:zz:00.0,,,../../etc/passwd");
  env.push_back("PCIDEVICE_JUNK_INFO=" + std::string(2000, '{'));
  env.push_back("PCIDEVICE_BIG_INFO=" +
                std::string(100000, '['));  // exec limits a value to 128 KiB
  env.push_back("PCIDEVICE_ARR_INFO={\"0000:1a:00.2\":[1,2,{\"rdma\":null}]}");
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env"}, env);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NCCL_IB_HCA==mlx5_6,mlx5_10,mlx5_11\n"));  // mlx5_7: no usable GID
  for (const char* rule :
       {"env.bad-pci-address", "env.info-json-malformed", "env.info-not-object", "device.unusable"})
    EXPECT_THAT(r.err, HasSubstr(rule));
}

TEST(WrapperProgram, ThousandsOfBadEntriesGiveABoundedReport) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  auto env = PluginEnvironment(BarcelonaDevices(), true, true);
  std::string junk;
  for (int i = 0; i < 5000; ++i) junk += "bad" + std::to_string(i) + ",";
  env.push_back("PCIDEVICE_JUNK=" + junk);
  for (int i = 0; i < 1000; ++i) env.push_back("PCIDEVICE_ZZ" + std::to_string(i) + "=x");
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--print-env", "--report", "/dev/null"},
                        env);
  EXPECT_EQ(r.status, 0) << r.err.substr(0, 2000);
  EXPECT_THAT(r.out, HasSubstr("NCCL_IB_HCA==mlx5_6,mlx5_7,mlx5_10,mlx5_11\n"));
  EXPECT_LT(std::count(r.err.begin(), r.err.end(), '\n'), 200) << r.err.substr(0, 2000);
  EXPECT_THAT(r.err, HasSubstr("more env.bad-pci-address finding(s)"));
  EXPECT_THAT(r.err, HasSubstr("[env.too-many-variables]"));
}

// A pod without /proc: a private mount namespace with an empty tmpfs on /proc (needs
// CAP_SYS_ADMIN, which CI's root container has; skipped where unshare is refused).
bool HideProc() {
  return ::unshare(CLONE_NEWNS) == 0 &&
         ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
         ::mount("none", "/proc", "tmpfs", 0, nullptr) == 0;
}

TEST(WrapperProgram, MissingProcIsReportedAndTheJobStillStarts) {
  SysfsFixture fixture;
  BuildPod(&fixture, BarcelonaDevices());
  Result r = RunProgram({"--sysfs-root", fixture.root(), "--", "/bin/sh", "-c", "echo started"},
                        PluginEnvironment(BarcelonaDevices(), true, true), HKIM_WRAPPER_BIN,
                        HideProc);
  if (r.status == 77) GTEST_SKIP() << "cannot mount over /proc here (no CAP_SYS_ADMIN)";
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "started\n");
  EXPECT_THAT(r.err, HasSubstr("/proc/self/status: No such file or directory"));
  EXPECT_THAT(r.err, HasSubstr("[memlock.capabilities-unknown]"));
}

TEST(WrapperProgram, UsageErrorsExit2) {
  Result r = RunProgram({"--on-no-rdma", "maybe", "--", "true"}, {});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("hkim-wrapper: error: --on-no-rdma maybe: expected fail or tcp"));
  EXPECT_EQ(RunProgram({"--", "true"}, {"HKIM_NCCL_CHECK=sometimes"}).status, 2);
}

// The wrapper copied beside a fake hkim-nccl-check, as the init container installs it.
class HealthCheckProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    BuildPod(&fixture_, BarcelonaDevices());
    std::filesystem::copy_file(HKIM_WRAPPER_BIN, bin_.root() + "/hkim-wrapper");
    ::chmod((bin_.root() + "/hkim-wrapper").c_str(), 0755);
    env_ = PluginEnvironment(BarcelonaDevices(), true, true);
  }
  void FakeCheck(int status) {
    bin_.WriteFile(
        "hkim-nccl-check",
        "#!/bin/sh\n[ \"$NCCL_IB_HCA\" = \"=mlx5_6,mlx5_7,mlx5_10,mlx5_11\" ] || exit 99\n"
        "echo check-ran >&2\nexit " +
            std::to_string(status));
    ::chmod((bin_.root() + "/hkim-nccl-check").c_str(), 0755);
  }
  Result RunJob(const std::string& mode) {
    auto env = env_;
    env.push_back("HKIM_NCCL_CHECK=" + mode);
    return RunProgram({"--sysfs-root", fixture_.root(), "--", "sh", "-c", "echo job-ran"}, env,
                      bin_.root() + "/hkim-wrapper");
  }
  SysfsFixture fixture_, bin_;
  std::vector<std::string> env_;
};

TEST_F(HealthCheckProgram, FailingCheckStopsThePodWithItsStatus) {
  FakeCheck(5);
  Result r = RunJob("fail");
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("check-ran"));
  EXPECT_THAT(
      r.err,
      HasSubstr(
          "hkim-nccl-check failed with status 5 (HKIM_NCCL_CHECK=fail); the job is not started"));
}

TEST_F(HealthCheckProgram, WarnGoesOnAndPassingCheckStartsTheJob) {
  FakeCheck(5);
  Result warn = RunJob("warn");
  EXPECT_EQ(warn.status, 0);
  EXPECT_EQ(warn.out, "job-ran\n");
  FakeCheck(0);
  Result pass = RunJob("fail");
  EXPECT_EQ(pass.status, 0);
  EXPECT_EQ(pass.out, "job-ran\n");
  EXPECT_THAT(pass.err, HasSubstr("health check: hkim-nccl-check passed"));
}

TEST_F(HealthCheckProgram, MissingCheckFollowsThePolicy) {
  Result fail = RunJob("fail");
  EXPECT_EQ(fail.status, 127);
  EXPECT_THAT(fail.err, HasSubstr("hkim-nccl-check is missing or not executable"));
  Result warn = RunJob("warn");
  EXPECT_EQ(warn.status, 0);
  EXPECT_EQ(warn.out, "job-ran\n");
}

TEST_F(HealthCheckProgram, WithoutProcTheCheckIsFoundBesideAWrapperStartedThroughPath) {
  FakeCheck(0);
  auto env = env_;
  env.push_back("HKIM_NCCL_CHECK=fail");
  env.push_back("PATH=/nonexistent:" + bin_.root() + ":/usr/bin:/bin");  // first PATH wins
  Result r = RunProgram({"--sysfs-root", fixture_.root(), "--", "sh", "-c", "echo job-ran"}, env,
                        bin_.root() + "/hkim-wrapper", HideProc, "hkim-wrapper");
  if (r.status == 77) GTEST_SKIP() << "cannot mount over /proc here (no CAP_SYS_ADMIN)";
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "job-ran\n");
  EXPECT_THAT(r.err, HasSubstr("health check: hkim-nccl-check passed"));
}

TEST_F(HealthCheckProgram, InstallToCopiesTheWrapperAndTheCheck) {
  FakeCheck(0);
  Result r =
      RunProgram({"--install-to", bin_.root() + "/shared"}, {}, bin_.root() + "/hkim-wrapper");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(::access((bin_.root() + "/shared/hkim-wrapper").c_str(), X_OK), 0);
  EXPECT_EQ(::access((bin_.root() + "/shared/hkim-nccl-check").c_str(), X_OK), 0);
  // The installed copy works.
  Result copy = RunProgram({"--sysfs-root", fixture_.root(), "--print-env"}, env_,
                           bin_.root() + "/shared/hkim-wrapper");
  EXPECT_EQ(copy.status, 0);
  EXPECT_EQ(copy.out, kBarcelonaNow);
}

}  // namespace
}  // namespace hkim::wrapper
