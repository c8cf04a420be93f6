// Issue 37 item 1: the OKE VF DaemonSet's script, run as rendered in a fake host root with the
// node's commands stubbed. On a fresh node the kernel refuses `rdma system set netns exclusive`
// (EBUSY: the GPU Operator's pods hold network namespaces); the script must then persist the
// mode for the next boot (modprobe option + dracut -f), pass its readiness probe as "waiting for
// the declared reboot", and print a summary doctor lists as WAIT. After the reboot (the switch
// works, /run is empty) it is done, without rebuilding the initramfs again.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "doctor/doctor.h"
#include "pipeline/pipeline.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;

std::string RenderedVfDaemonSet() {
  DiagnosticSink sink;
  auto bundle = RenderProfileLayers(
      LayerInputs{(fs::path(HKIM_SOURCE_DIR) / "profiles" / "oke-h100.yaml").string(), {}, {}},
      sink);
  if (!bundle) return "";
  for (const RenderedFile& file : bundle->files)
    if (file.template_name == "operators-oke/daemonset-vf-config.yaml.mustache") return file.content;
  return "";
}

void Write(const fs::path& path, const std::string& text, bool executable = false) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  if (executable) fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ShellRun {
  int status = -1;
  std::string output;
};

ShellRun Shell(const std::string& command) {
  ShellRun run;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class VfConfigScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Shell("command -v bash").status != 0) GTEST_SKIP() << "bash is not installed";
    const YAML::Node ds = YAML::Load(RenderedVfDaemonSet());
    ASSERT_TRUE(ds["spec"]) << "the oke-h100 bundle renders no VF DaemonSet";
    const YAML::Node container = ds["spec"]["template"]["spec"]["containers"][0];
    const std::string command = container["command"][2].as<std::string>();
    // The script the container runs in `chroot /host` (its here-document).
    const std::string open = "<<'SCRIPT' || exit 1\n";
    const size_t begin = command.find(open);
    const size_t end = command.find("\nSCRIPT\n");
    ASSERT_NE(begin, std::string::npos);
    ASSERT_NE(end, std::string::npos);
    script_ = command.substr(begin + open.size(), end - begin - open.size() + 1);
    for (const YAML::Node& part : container["readinessProbe"]["exec"]["command"])
      probe_ = part.as<std::string>();  // the /bin/sh -c text
    dir_ = fs::temp_directory_path() / ("hkim-vf-config-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    root_ = dir_ / "host";
    Write(dir_ / "script.sh", script_);
    Write(root_ / "var/log/oracle-cloud-agent/plugins/oci-hpc/oci-hpc-configure/oci-hpc-mlx-configure.log",
          "Fully Configured\n");
    Write(root_ / "sys/class/net/rdma0/device/sriov_numvfs", "1\n");  // VFs already there
    fs::create_directories(root_ / "etc/modprobe.d");
    fs::create_directories(root_ / "etc/modules-load.d");
    fs::create_directories(root_ / "run");
    Write(root_ / "proc/modules", "");
    // The node's commands, each logging its call.
    const std::string calls = (dir_ / "calls").string();
    for (const char* tool : {"systemctl", "crictl", "modprobe", "ip"})
      Write(dir_ / "bin" / tool, "#!/bin/sh\necho \"" + std::string(tool) + " $*\" >> " + calls + "\n", true);
    Write(dir_ / "bin/dracut", "#!/bin/sh\necho \"dracut $*\" >> " + calls + "\n", true);
    // `rdma`: shared mode; the switch fails with EBUSY unless the test allows it.
    Write(dir_ / "bin/rdma",
          "#!/bin/sh\necho \"rdma $*\" >> " + calls + "\n"
          "mode=$(cat " + (dir_ / "mode").string() + ")\n"
          "case \"$*\" in\n"
          "  'system show netns') echo \"netns $mode copy-on-fork on\" ;;\n"
          "  'system set netns exclusive')\n"
          "    if [ -e " + (dir_ / "busy").string() + " ]; then\n"
          "      echo 'error: Device or resource busy' >&2; exit 1; fi\n"
          "    echo exclusive > " + (dir_ / "mode").string() + " ;;\n"
          "esac\n",
          true);
    Write(dir_ / "mode", "shared\n");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  ShellRun RunScript() {
    return Shell("cd " + dir_.string() + " && HKIMGEN_HOST_ROOT=" + root_.string() + " PATH=" +
                 (dir_ / "bin").string() + ":$PATH bash script.sh 1 4220 0 gpu-node-7");
  }
  bool Ready() {
    std::string probe = probe_;
    const std::string host = root_.string() + "/";
    for (size_t at = 0; (at = probe.find("/host/", at)) != std::string::npos; at += host.size())
      probe.replace(at, 6, host);
    return Shell("sh -c '" + probe + "'").status == 0;
  }
  int Count(const std::string& call) {
    const std::string calls = Read(dir_ / "calls");
    int n = 0;
    for (size_t at = 0; (at = calls.find(call, at)) != std::string::npos; ++at) ++n;
    return n;
  }

  std::string script_, probe_;
  fs::path dir_, root_;
};

TEST_F(VfConfigScript, EbusyPersistsTheModeAndWaitsReadyForTheDeclaredReboot) {
  Write(dir_ / "busy", "");  // a fresh node: wave 0's pods hold network namespaces
  const ShellRun run = RunScript();
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("Device or resource busy"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("reboot this node"), std::string::npos) << run.output;
  // Persisted the way the node boots it.
  EXPECT_EQ(Read(root_ / "etc/modprobe.d/hkimgen-rdma-netns.conf"), "options ib_core netns_mode=0\n");
  EXPECT_EQ(Count("dracut -f"), 1);
  // Ready: waiting for its declared reboot, not done.
  EXPECT_TRUE(fs::exists(root_ / "run/hkimgen-vf-config.reboot-pending"));
  EXPECT_FALSE(fs::exists(root_ / "run/hkimgen-vf-config.done"));
  EXPECT_TRUE(Ready());
  // doctor names the node as waiting, not failing.
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"vf-config.log", run.output}}, warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(nodes.size(), 1u) << run.output;
  EXPECT_EQ(nodes[0].node, "gpu-node-7");
  EXPECT_TRUE(nodes[0].passed);
  const std::string table = FormatFleetTable(nodes);
  EXPECT_NE(table.find("gpu-node-7  WAIT"), std::string::npos) << table;
  EXPECT_NE(table.find("Waiting for a declared step"), std::string::npos) << table;
  EXPECT_NE(table.find("kubectl drain gpu-node-7"), std::string::npos) << table;
  EXPECT_NE(table.find("0 failing, 1 waiting"), std::string::npos) << table;

  // The reboot: /run is empty, the kernel takes the mode (here: the switch succeeds).
  fs::remove(dir_ / "busy");
  fs::remove(root_ / "run/hkimgen-vf-config.reboot-pending");
  const ShellRun after = RunScript();
  ASSERT_EQ(after.status, 0) << after.output;
  EXPECT_TRUE(fs::exists(root_ / "run/hkimgen-vf-config.done"));
  EXPECT_FALSE(fs::exists(root_ / "run/hkimgen-vf-config.reboot-pending"));
  EXPECT_TRUE(Ready());
  EXPECT_EQ(Count("dracut -f"), 1);  // the initramfs already carries the option
  const auto done = CollectSummaries({{"vf-config.log", after.output}}, warnings);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_NE(FormatFleetTable(done).find("gpu-node-7  PASS"), std::string::npos);
}

TEST_F(VfConfigScript, AFailedInitramfsRebuildIsNotReady) {
  Write(dir_ / "busy", "");
  Write(dir_ / "bin/dracut", "#!/bin/sh\nexit 1\n", true);
  const ShellRun run = RunScript();
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("dracut -f failed"), std::string::npos) << run.output;
  EXPECT_FALSE(Ready());  // waiting would be for a reboot that changes nothing
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"vf-config.log", run.output}}, warnings);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_FALSE(nodes[0].passed);
}

}  // namespace
}  // namespace hkim
