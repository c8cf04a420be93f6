// The OKE VF DaemonSet's script, run as rendered in a fake host root with the node's commands
// stubbed, through a node's life: a fresh node (the kernel refuses exclusive RDMA netns mode with
// EBUSY, the mode is persisted for the next boot, no VFs are offered), its reboot (exclusive, VFs
// created and offered, the agent's log of the earlier boot not trusted), an MTU change (applied,
// no VF reset), a VF count change (reset), a kernel update (the initramfs rebuilt for it) and a
// node added later (as a fresh one). A node waiting for its reboot carries the label
// hkimgen.io/rdma-mode-pending=true, which the script sets and removes through the API (curl,
// stubbed here as the API server), and the pod's readiness probe says "waiting for reboot". For
// each profile change `hkimgen diff`'s words for the VF DaemonSet are held against what the
// rendered script does in the fake root.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "doctor/doctor.h"
#include "pipeline/pipeline.h"
#include "diff/bundle_diff.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;

constexpr char kTemplate[] = "operators-oke/daemonset-vf-config.yaml.mustache";

RenderedBundle Render(const std::vector<std::string>& sets) {
  LayerInputs inputs;
  inputs.profile_path = (fs::path(HKIM_SOURCE_DIR) / "profiles" / "oke-h100.yaml").string();
  inputs.set_values = sets;
  DiagnosticSink sink;
  std::optional<RenderedBundle> bundle = RenderProfileLayers(inputs, sink);
  std::string messages;
  for (const Diagnostic& d : sink.diagnostics()) messages += d.rule + ": " + d.message + "\n";
  EXPECT_TRUE(bundle) << messages;
  return bundle ? *bundle : RenderedBundle{};
}

std::string VfDaemonSet(const RenderedBundle& bundle) {
  for (const RenderedFile& file : bundle.files)
    if (file.template_name == kTemplate) return file.content;
  return "";
}

/// The VF DaemonSet as rendered for oke-h100 with `sets`: the script its container runs in
/// `chroot /host` (its here-document), the arguments it passes, and its readiness probe.
struct Agent {
  std::string script, probe, vfs, mtu, label, account;
};

Agent RenderedAgent(const std::vector<std::string>& sets = {}) {
  Agent agent;
  const YAML::Node ds = YAML::Load(VfDaemonSet(Render(sets)));
  if (!ds["spec"]) return agent;
  const YAML::Node container = ds["spec"]["template"]["spec"]["containers"][0];
  const std::string command = container["command"][2].as<std::string>();
  const std::string open = "<<'SCRIPT' || exit 1\n";
  const size_t begin = command.find(open);
  const size_t end = command.find("\nSCRIPT\n");
  if (begin == std::string::npos || end == std::string::npos) return agent;
  agent.script = command.substr(begin + open.size(), end - begin - open.size() + 1);
  for (const YAML::Node& part : container["readinessProbe"]["exec"]["command"])
    agent.probe = part.as<std::string>();  // the /bin/sh -c text
  for (const YAML::Node& env : container["env"]) {
    if (env["name"].as<std::string>() == "VFS_PER_PF") agent.vfs = env["value"].as<std::string>();
    if (env["name"].as<std::string>() == "MTU") agent.mtu = env["value"].as<std::string>();
    if (env["name"].as<std::string>() == "PENDING_LABEL") agent.label = env["value"].as<std::string>();
  }
  if (ds["spec"]["template"]["spec"]["serviceAccountName"])
    agent.account = ds["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>();
  return agent;
}

/// What `hkimgen diff` says of the VF DaemonSet when the profile changes by `sets`.
const BundleChange* DiffOfAgent(const BundleDiff& diff) {
  for (const BundleChange& change : diff.changes)
    if (change.object_kind == "DaemonSet" && change.object_name == "oke-h100-vf-config")
      return &change;
  return nullptr;
}

BundleDiff DiffAfter(const std::vector<std::string>& sets) {
  std::map<std::string, std::string> files;
  std::set<std::string> marker;
  for (const RenderedFile& file : Render({}).files) {
    files[file.file_name] = FileText(file);
    marker.insert(file.file_name);
  }
  return DiffBundle(Render(sets), files, marker);
}

std::string Words(const BundleChange& change) {
  std::string text = change.disruption;
  for (const std::string& note : change.notes) text += "\n" + note;
  return text;
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

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int Occurrences(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = 0; (at = text.find(part, at)) != std::string::npos; ++at) ++n;
  return n;
}

/// A fake GPU node: two rail PFs (rdma0, rdma1), the OCI agent's log, /proc/stat's boot time,
/// and stubs for the commands the script runs, each logging its call. `rdma` keeps the netns
/// mode in a file and answers EBUSY to the switch while `busy` exists (other network
/// namespaces: the GPU Operator's pods); `ip link set PF mtu N` writes the PF's mtu; `grubby`
/// names the default kernel; `sleep` is the agent finishing while the script waits.
class Node {
 public:
  explicit Node(const fs::path& dir) : dir_(dir), root_(dir / "host") {
    fs::remove_all(dir_);
    for (const char* pf : {"rdma0", "rdma1"}) {
      Write(root_ / "sys/class/net" / pf / "device/sriov_numvfs", "0\n");
      Write(root_ / "sys/class/net" / pf / "mtu", "1500\n");
    }
    fs::create_directories(root_ / "etc/modprobe.d");
    fs::create_directories(root_ / "etc/modules-load.d");
    fs::create_directories(root_ / "run");
    Write(root_ / "proc/modules", "");
    SetBootTime(1000);
    AgentWrites(1100);  // configured in this boot
    Write(dir_ / "kver", "5.15.0-200.el8uek.x86_64\n");
    const std::string calls = (dir_ / "calls").string();
    for (const char* tool : {"systemctl", "modprobe", "dracut"})
      Write(dir_ / "bin" / tool, "#!/bin/sh\necho \"" + std::string(tool) + " $*\" >> " + calls + "\n", true);
    Write(dir_ / "bin/crictl",
          "#!/bin/sh\necho \"crictl $*\" >> " + calls + "\n"
          "[ \"$1\" = pods ] && echo sriov-device-plugin-pod\nexit 0\n",
          true);
    Write(dir_ / "bin/ip",
          "#!/bin/sh\necho \"ip $*\" >> " + calls + "\n"
          "[ \"$1 $2 $4\" = 'link set mtu' ] && echo \"$5\" > " + (root_ / "sys/class/net").string() + "/$3/mtu\n"
          "exit 0\n",
          true);
    Write(dir_ / "bin/grubby", "#!/bin/sh\necho /boot/vmlinuz-$(cat " + (dir_ / "kver").string() + ")\n", true);
    // A script still waiting after five naps is stopped: the test then fails, not hangs.
    Write(dir_ / "bin/sleep",
          "#!/bin/sh\necho \"sleep $*\" >> " + calls + "\n"
          "[ \"$(grep -c '^sleep' " + calls + ")\" -gt 5 ] && kill -TERM $PPID\n"
          "echo 'Fully Configured' >> " + AgentLog().string() + "\n",
          true);
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
    // The API server: each PATCH of the node is logged with the token it carried (read from the
    // header file curl is given, never its command line) and the CA it trusts.
    Write(dir_ / "bin/curl",
          "#!/bin/bash\nurl= data= auth= ca= method=\n"
          "while [ $# -gt 0 ]; do case $1 in\n"
          "  -X) method=$2; shift ;; --data) data=$2; shift ;; --cacert) ca=$(cat \"$2\"); shift ;;\n"
          "  -H) case $2 in @*) auth=$(cat \"${2#@}\") ;; esac; shift ;; -o) shift ;; https://*) url=$1 ;;\n"
          "esac; shift; done\n"
          "echo \"curl $method $url $data [$auth] [ca $ca]\" >> " + calls + "\n"
          "[ -e " + (dir_ / "api-down").string() + " ] && { echo 'curl: (7) Failed to connect' >&2; exit 7; }\n"
          "exit 0\n",
          true);
    Write(dir_ / "mode", "shared\n");
    Write(dir_ / "busy", "");  // wave 0's pods hold network namespaces
  }
  ~Node() { fs::remove_all(dir_); }

  fs::path AgentLog() const {
    return root_ / "var/log/oracle-cloud-agent/plugins/oci-hpc/oci-hpc-configure/oci-hpc-mlx-configure.log";
  }
  void SetBootTime(long seconds) { Write(root_ / "proc/stat", "cpu  1 2 3\nbtime " + std::to_string(seconds) + "\n"); }
  void AgentWrites(long at) {
    fs::create_directories(AgentLog().parent_path());
    std::ofstream(AgentLog(), std::ios::app) << "Fully Configured\n";
    Shell("touch -d @" + std::to_string(at) + " " + AgentLog().string());
  }
  /// The node reboots into the default kernel: /run and the VFs are gone, the PFs come back at
  /// their default MTU, and ib_core takes exclusive mode when that kernel's initramfs carries
  /// the option (the stamp the script wrote names the kernel it was built for).
  void Reboot(long boot_time) {
    fs::remove_all(root_ / "run");
    fs::create_directories(root_ / "run");
    for (const char* pf : {"rdma0", "rdma1"}) {
      Write(root_ / "sys/class/net" / pf / "device/sriov_numvfs", "0\n");
      Write(root_ / "sys/class/net" / pf / "mtu", "1500\n");
    }
    SetBootTime(boot_time);
    const bool carries = Read(root_ / "etc/modprobe.d/hkimgen-rdma-netns.conf") ==
                             "options ib_core netns_mode=0\n" &&
                         Read(root_ / "etc/hkimgen-rdma-netns.initramfs") == Read(dir_ / "kver");
    Write(dir_ / "mode", carries ? "exclusive\n" : "shared\n");
  }
  /// Runs the script as the pod does: with its service account's token and the API's address
  /// in the environment (the container exports them), unless `token` is empty.
  ShellRun Run(const Agent& agent, const std::string& token = "t0ken-of-the-pod") {
    Write(dir_ / "script.sh", agent.script);
    fs::remove(dir_ / "calls");
    return Shell("cd " + dir_.string() + " && HKIMGEN_HOST_ROOT=" + root_.string() + " PATH=" +
                 (dir_ / "bin").string() + ":$PATH HKIMGEN_API_TOKEN=" + token +
                 " HKIMGEN_API_CA=the-cluster-ca HKIMGEN_API=10.96.0.1:443 bash script.sh " +
                 agent.vfs + " " + agent.mtu + " 0 gpu-node-7 " + agent.label);
  }
  /// The readiness probe run against the fake root: its exit status 0 (Ready) and what it says.
  ShellRun Probe(const Agent& agent) {
    std::string probe = agent.probe;
    const std::string host = root_.string() + "/";
    for (size_t at = 0; (at = probe.find("/host/", at)) != std::string::npos; at += host.size())
      probe.replace(at, 6, host);
    Write(dir_ / "probe.sh", probe);
    return Shell("sh " + (dir_ / "probe.sh").string());
  }
  bool Ready(const Agent& agent) { return Probe(agent).status == 0; }
  std::string Calls() { return Read(dir_ / "calls"); }
  std::string Vfs(const char* pf) { return Read(root_ / "sys/class/net" / pf / "device/sriov_numvfs"); }
  std::string Mtu(const char* pf) { return Read(root_ / "sys/class/net" / pf / "mtu"); }
  bool Marker(const char* name) { return fs::exists(root_ / "run" / (std::string("hkimgen-vf-config.") + name)); }

  fs::path dir_, root_;
};

/// The node's line in doctor's table for the script's output.
std::string DoctorTable(const ShellRun& run) {
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"vf-config.log", run.output}}, warnings);
  if (nodes.size() != 1) return "no summary";
  return FormatFleetTable(nodes);
}

class VfConfigScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Shell("command -v bash").status != 0) GTEST_SKIP() << "bash is not installed";
    agent_ = RenderedAgent();
    ASSERT_FALSE(agent_.script.empty()) << "the oke-h100 bundle renders no VF DaemonSet script";
    ASSERT_EQ(agent_.vfs, "1");
    ASSERT_EQ(agent_.mtu, "4220");
    ASSERT_EQ(agent_.label, "hkimgen.io/rdma-mode-pending");
    ASSERT_EQ(agent_.account, "oke-h100-vf-config");
    base_ = fs::temp_directory_path() / ("hkim-vf-config-" + std::to_string(getpid()));
  }
  void TearDown() override { fs::remove_all(base_); }

  /// A fresh node's first run: EBUSY, the mode persisted for the next boot's kernel, the MTU set,
  /// no VFs offered, the node labelled as waiting for its reboot, not Ready ("waiting for
  /// reboot"), WAIT in doctor with the label in its MARK column.
  void ExpectFreshNodeWaitsWithoutVfs(Node& node) {
    const ShellRun run = node.Run(agent_);
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(Has(run.output, "Device or resource busy")) << run.output;
    EXPECT_TRUE(Has(run.output, "reboot this node")) << run.output;
    EXPECT_EQ(Read(node.root_ / "etc/modprobe.d/hkimgen-rdma-netns.conf"), "options ib_core netns_mode=0\n");
    EXPECT_EQ(Occurrences(node.Calls(), "dracut -f --kver 5.15.0-200.el8uek.x86_64"), 1) << node.Calls();
    EXPECT_EQ(Read(node.root_ / "etc/hkimgen-rdma-netns.initramfs"), "5.15.0-200.el8uek.x86_64\n");
    // No VFs, so the device plugin (VF device IDs only) offers none: nothing is scheduled here.
    EXPECT_EQ(node.Vfs("rdma0"), "0\n");
    EXPECT_EQ(node.Vfs("rdma1"), "0\n");
    EXPECT_FALSE(Has(node.Calls(), "crictl rmp")) << node.Calls();
    EXPECT_EQ(node.Mtu("rdma0"), "4220\n");  // PF settings apply without VFs
    EXPECT_EQ(node.Mtu("rdma1"), "4220\n");
    EXPECT_TRUE(node.Marker("reboot-pending"));
    EXPECT_FALSE(node.Marker("done"));
    // The node's label, through the API with the pod's token in a header file and the cluster's CA.
    EXPECT_EQ(Occurrences(node.Calls(), "curl PATCH https://10.96.0.1:443/api/v1/nodes/gpu-node-7 "
                                        "{\"metadata\":{\"labels\":{\"hkimgen.io/rdma-mode-pending\":\"true\"}}} "
                                        "[Authorization: Bearer t0ken-of-the-pod] [ca the-cluster-ca]"),
              1)
        << node.Calls();
    const ShellRun probe = node.Probe(agent_);
    EXPECT_NE(probe.status, 0);
    EXPECT_TRUE(Has(probe.output, "waiting for reboot")) << probe.output;
    EXPECT_TRUE(Has(probe.output, "hkimgen.io/rdma-mode-pending=true")) << probe.output;
    const std::string table = DoctorTable(run);
    EXPECT_TRUE(Has(table, "gpu-node-7  WAIT")) << table;
    EXPECT_TRUE(Has(table, "waiting for reboot, no VFs offered")) << table;
    EXPECT_TRUE(Has(table, "label hkimgen.io/rdma-mode-pending=true")) << table;
    EXPECT_TRUE(Has(table, "kubectl drain gpu-node-7")) << table;
  }

  /// The node rebooted into exclusive mode and offering its VFs.
  void BootExclusive(Node& node) {
    node.Reboot(5000);
    const ShellRun run = node.Run(agent_);
    ASSERT_EQ(run.status, 0) << run.output;
    ASSERT_EQ(node.Vfs("rdma0"), "1\n") << run.output;
    node.Run(agent_);  // settled: the next run finds nothing to do
  }

  Agent agent_;
  fs::path base_;
};

TEST_F(VfConfigScript, AFreshNodeOffersNoVfsUntilItsRebootThenOffersThemInExclusiveMode) {
  Node node(base_ / "a");
  ExpectFreshNodeWaitsWithoutVfs(node);

  // The reboot: the agent's log still ends in the earlier boot's "Fully Configured", written
  // before this boot began; the script waits for this boot's.
  node.Reboot(5000);
  const ShellRun after = node.Run(agent_);
  ASSERT_EQ(after.status, 0) << after.output;
  EXPECT_TRUE(Has(after.output, "waiting for the OCI HPC agent to configure the NICs in this boot"))
      << after.output;
  EXPECT_TRUE(Has(node.Calls(), "sleep 15")) << node.Calls();
  EXPECT_FALSE(Has(after.output, "Device or resource busy")) << after.output;
  EXPECT_EQ(node.Vfs("rdma0"), "1\n");
  EXPECT_EQ(node.Vfs("rdma1"), "1\n");
  EXPECT_EQ(node.Mtu("rdma0"), "4220\n");
  // Offered: the device plugin is restarted to read them; the agent is paused while the PFs change.
  EXPECT_EQ(Occurrences(node.Calls(), "crictl rmp -f sriov-device-plugin-pod"), 1) << node.Calls();
  EXPECT_TRUE(Has(node.Calls(), "systemctl stop oracle-cloud-agent")) << node.Calls();
  EXPECT_FALSE(Has(node.Calls(), "dracut")) << node.Calls();  // the initramfs carries the option
  EXPECT_TRUE(node.Marker("done"));
  EXPECT_FALSE(node.Marker("reboot-pending"));
  EXPECT_TRUE(node.Ready(agent_));
  // The label is removed (a merge patch of null).
  EXPECT_TRUE(Has(node.Calls(), "curl PATCH https://10.96.0.1:443/api/v1/nodes/gpu-node-7 "
                                "{\"metadata\":{\"labels\":{\"hkimgen.io/rdma-mode-pending\":null}}}"))
      << node.Calls();
  const std::string table = DoctorTable(after);
  EXPECT_TRUE(Has(table, "gpu-node-7  PASS")) << table;
  EXPECT_TRUE(Has(table, "label hkimgen.io/rdma-mode-pending removed")) << table;

  // The pod restarts in the same boot (a node's kubelet, an eviction): nothing is touched.
  const ShellRun again = node.Run(agent_);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_FALSE(Has(again.output, "waiting for the OCI HPC agent")) << again.output;
  EXPECT_EQ(node.Calls().find("crictl rmp"), std::string::npos) << node.Calls();
  EXPECT_EQ(node.Calls().find("systemctl stop"), std::string::npos) << node.Calls();
}

TEST_F(VfConfigScript, ANodeAddedLaterIsTreatedAsAFreshNode) {
  Node first(base_ / "a");
  ExpectFreshNodeWaitsWithoutVfs(first);
  BootExclusive(first);
  Node added(base_ / "b");  // autoscaling or repair, once the cluster runs
  ExpectFreshNodeWaitsWithoutVfs(added);
}

TEST_F(VfConfigScript, VfsLeftFromSharedModeAreRemovedUntilTheReboot) {
  Node node(base_ / "a");
  Write(node.root_ / "sys/class/net/rdma0/device/sriov_numvfs", "1\n");  // created elsewhere
  const ShellRun run = node.Run(agent_);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(node.Vfs("rdma0"), "0\n") << run.output;
  EXPECT_TRUE(Has(run.output, "rdma0: VFs 1 -> 0")) << run.output;
  // The device plugin reads the node again, so its capacity drops to 0.
  EXPECT_EQ(Occurrences(node.Calls(), "crictl rmp -f"), 1) << node.Calls();
  EXPECT_TRUE(node.Marker("reboot-pending"));
}

TEST_F(VfConfigScript, AnMtuChangeSetsThePfMtuWithoutResettingVfsAsDiffSays) {
  Node node(base_ / "a");
  node.Run(agent_);
  BootExclusive(node);
  const std::vector<std::string> change = {"operators.vf_config.mtu_bytes=9000"};
  const Agent changed = RenderedAgent(change);
  ASSERT_EQ(changed.mtu, "9000");
  // "1" without a newline: a write of the VF count (always "N\n") would show.
  Write(node.root_ / "sys/class/net/rdma0/device/sriov_numvfs", "1");
  const ShellRun run = node.Run(changed);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(node.Mtu("rdma0"), "9000\n");
  EXPECT_EQ(node.Mtu("rdma1"), "9000\n");
  EXPECT_TRUE(Has(node.Calls(), "ip link set rdma0 mtu 9000")) << node.Calls();
  EXPECT_EQ(node.Vfs("rdma0"), "1");  // untouched: no reset
  EXPECT_FALSE(Has(run.output, "VFs 1 ->")) << run.output;
  EXPECT_FALSE(Has(node.Calls(), "crictl rmp")) << node.Calls();
  EXPECT_TRUE(node.Marker("done"));

  // diff's words say the same: the MTU is set, no VF is reset, nothing disruptive.
  const BundleDiff diff = DiffAfter(change);
  const BundleChange* vf = DiffOfAgent(diff);
  ASSERT_NE(vf, nullptr) << FormatBundleDiff(diff, "out");
  EXPECT_FALSE(vf->disruptive);
  EXPECT_EQ(vf->effect, Disruption::kNone);
  EXPECT_TRUE(Has(Words(*vf), "sets every rail PF's MTU to the new value")) << Words(*vf);
  EXPECT_TRUE(Has(Words(*vf), "resets no VF and does not restart the SR-IOV device plugin"))
      << Words(*vf);
}

TEST_F(VfConfigScript, AVfCountChangeResetsTheVfsAndRestartsTheDevicePluginAsDiffSays) {
  Node node(base_ / "a");
  node.Run(agent_);
  BootExclusive(node);
  const std::vector<std::string> change = {"operators.vf_config.vfs_per_pf=2"};
  const Agent changed = RenderedAgent(change);
  ASSERT_EQ(changed.vfs, "2");
  const ShellRun run = node.Run(changed);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(node.Vfs("rdma0"), "2\n");
  EXPECT_EQ(node.Vfs("rdma1"), "2\n");
  EXPECT_TRUE(Has(run.output, "rdma0: VFs 1 -> 2")) << run.output;
  EXPECT_EQ(Occurrences(node.Calls(), "crictl rmp -f"), 1) << node.Calls();
  EXPECT_FALSE(Has(node.Calls(), "mtu")) << node.Calls();  // the MTU already matches

  const BundleDiff diff = DiffAfter(change);
  const BundleChange* vf = DiffOfAgent(diff);
  ASSERT_NE(vf, nullptr) << FormatBundleDiff(diff, "out");
  EXPECT_TRUE(vf->disruptive);
  EXPECT_EQ(vf->effect, Disruption::kVfReset);
  EXPECT_TRUE(Has(vf->disruption, "sets the VFs to 0, creates them again and restarts the SR-IOV "
                                  "device plugin"))
      << vf->disruption;
}

TEST_F(VfConfigScript, AKernelUpdateRebuildsTheInitramfsOfTheKernelThatBootsNext) {
  Node node(base_ / "a");
  node.Run(agent_);
  BootExclusive(node);
  // A kernel update installs a new default kernel; the pod runs again (here: a restart).
  Write(node.dir_ / "kver", "5.15.0-300.el8uek.x86_64\n");
  const ShellRun run = node.Run(agent_);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(Occurrences(node.Calls(), "dracut -f --kver 5.15.0-300.el8uek.x86_64"), 1) << node.Calls();
  EXPECT_EQ(Read(node.root_ / "etc/hkimgen-rdma-netns.initramfs"), "5.15.0-300.el8uek.x86_64\n");
  EXPECT_TRUE(Has(run.output, "initramfs of kernel 5.15.0-300.el8uek.x86_64 rebuilt")) << run.output;
  EXPECT_FALSE(Has(node.Calls(), "crictl rmp")) << node.Calls();
  // It boots exclusive (Reboot checks the stamp against the kernel it boots) and offers its VFs.
  node.Reboot(9000);
  node.AgentWrites(9100);
  const ShellRun booted = node.Run(agent_);
  ASSERT_EQ(booted.status, 0) << booted.output;
  EXPECT_FALSE(Has(booted.output, "Device or resource busy")) << booted.output;
  EXPECT_EQ(node.Vfs("rdma0"), "1\n");
  EXPECT_FALSE(Has(node.Calls(), "dracut")) << node.Calls();
}

TEST_F(VfConfigScript, TheAgentsLogOfAnEarlierBootIsNotTakenForThisOnes) {
  Node node(base_ / "a");
  node.Run(agent_);
  BootExclusive(node);
  // The next boot: the agent has begun writing (after the boot began) but is not done yet.
  node.Reboot(9000);
  std::ofstream(node.AgentLog(), std::ios::app) << "configuring rdma0\n";
  Shell("touch -d @9100 " + node.AgentLog().string());
  const ShellRun run = node.Run(agent_);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "waiting for the OCI HPC agent to configure the NICs in this boot"))
      << run.output;
  EXPECT_EQ(node.Vfs("rdma0"), "1\n");  // once this boot's "Fully Configured" came
}

TEST_F(VfConfigScript, TheDevicePluginIsNotRestartedWhileAVfSitsInAPod) {
  Node node(base_ / "a");
  node.Run(agent_);
  BootExclusive(node);
  // rdma0's VF is in a pod (its netdev left the host's namespace); rdma1 lost its VF.
  fs::create_directories(node.root_ / "sys/class/net/rdma0/device/virtfn0/net");
  Write(node.root_ / "sys/class/net/rdma1/device/sriov_numvfs", "0\n");
  const ShellRun run = node.Run(agent_);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(node.Vfs("rdma1"), "1\n");
  EXPECT_FALSE(Has(node.Calls(), "crictl rmp")) << node.Calls();
  EXPECT_TRUE(Has(run.output, "sriov-network-device-plugin #565")) << run.output;
  const std::string table = DoctorTable(run);
  EXPECT_TRUE(Has(table, "gpu-node-7  WAIT")) << table;
  EXPECT_TRUE(node.Ready(agent_));
}

TEST_F(VfConfigScript, AFailedInitramfsRebuildIsNotReady) {
  Node node(base_ / "a");
  Write(node.dir_ / "bin/dracut", "#!/bin/sh\nexit 1\n", true);
  const ShellRun run = node.Run(agent_);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "dracut -f --kver 5.15.0-200.el8uek.x86_64 failed")) << run.output;
  EXPECT_FALSE(node.Ready(agent_));  // waiting would be for a reboot that changes nothing
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"vf-config.log", run.output}}, warnings);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_FALSE(nodes[0].passed);
}

// Without the API (no token, or the server unreachable) the node's state is the same; the label's
// absence is said in the log and doctor's MARK column, and readiness still says why it waits.
TEST_F(VfConfigScript, WithoutTheApiTheNodeStillWaitsAndSaysItIsNotLabelled) {
  Node node(base_ / "a");
  const ShellRun no_token = node.Run(agent_, "");
  ASSERT_EQ(no_token.status, 0) << no_token.output;
  EXPECT_FALSE(Has(node.Calls(), "curl")) << node.Calls();
  EXPECT_TRUE(Has(DoctorTable(no_token), "not marked: the pod has no Kubernetes API token"))
      << DoctorTable(no_token);
  EXPECT_EQ(node.Vfs("rdma0"), "0\n");
  EXPECT_TRUE(Has(node.Probe(agent_).output, "waiting for reboot"));

  Write(node.dir_ / "api-down", "");
  const ShellRun down = node.Run(agent_);
  ASSERT_EQ(down.status, 0) << down.output;
  EXPECT_EQ(Occurrences(node.Calls(), "curl PATCH"), 3) << node.Calls();  // three tries
  EXPECT_TRUE(Has(DoctorTable(down), "not marked: curl: (7) Failed to connect")) << DoctorTable(down);
}

}  // namespace
}  // namespace hkim
