// hkimgen discover: kubectl exports (tests/generator/discover/, clusters unlike the shipped
// profiles') → a commented profile that validates and renders.

#include "discover/discover.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands/discover_command.h"
#include "discover/draft_check.h"
#include "discover/emit.h"
#include "load/load.h"
#include "pipeline/pipeline.h"
#include "pipeline/profile_check.h"
#include "test_files.h"
#include "upstream_validator.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using discover_test::ExpectValidatesAndRenders;
using discover_test::Fixture;
using discover_test::kFixtures;
using test_files::ReadFile;
using ::testing::HasSubstr;
using ::testing::Not;

struct Drafted {
  std::string text;
  DiagnosticSink sink;
  std::vector<std::string> Rules(Severity severity) const {
    std::vector<std::string> rules;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.severity == severity) rules.push_back(d.rule);
    }
    return rules;
  }
};

Drafted Draft(const std::vector<std::string>& fixtures, const std::string& name = "",
              const std::vector<std::string>& namespaces = {}) {
  Drafted drafted;
  std::vector<discover::ExportInput> inputs;
  for (const std::string& f : fixtures) inputs.push_back({f, Fixture(f)});
  drafted.text = discover::Discover(inputs, {name, false, namespaces}, drafted.sink);
  return drafted;
}

TEST(Discover, OpenShiftExportGivesAProfileWithProvenanceThatValidatesAndRenders) {
  Drafted d = Draft({"openshift-amd.json"}, "rack7", {"llm-eval", "llm-train"});
  ASSERT_FALSE(d.sink.HasErrors());
  EXPECT_THAT(d.Rules(Severity::kWarning), testing::IsEmpty()) << d.text;
  const std::string& t = d.text;
  EXPECT_THAT(t, HasSubstr("platform: openshift  # Node rack7-gpu01 "
                           ".metadata.labels[node.openshift.io/os_id] = rhcos"));
  EXPECT_THAT(t, HasSubstr("GPU node group: NVIDIA-H200 on no instance type (3 nodes: "
                           "rack7-gpu01, rack7-gpu02, rack7-gpu03)"));
  EXPECT_THAT(t, HasSubstr("Other GPU node group, not in this profile: NVIDIA-A100-SXM4-80GB"));
  EXPECT_THAT(t, HasSubstr("# The export holds no Pods: another team's jobs on these nodes could "
                           "not be seen"));
  EXPECT_THAT(t,
              HasSubstr("gpus_per_node: 8  # Node rack7-gpu01 .status.capacity[nvidia.com/gpu]"));
  EXPECT_THAT(t, HasSubstr("nics_per_node: 2"));
  EXPECT_THAT(t,
              HasSubstr("cpu_vendor: amd  # Node rack7-gpu01 "
                        ".metadata.labels[feature.node.kubernetes.io/cpu-model.vendor_id] = AMD"));
  // The GPU product selects the three H200 nodes and no other.
  EXPECT_THAT(
      t, HasSubstr("node_selector:  # Node rack7-gpu01 .metadata.labels[nvidia.com/gpu.product], "
                   "on all 3 nodes of the group\n    nvidia.com/gpu.product: NVIDIA-H200\n"));
  EXPECT_THAT(t, HasSubstr("namespaces: [llm-eval, llm-train]  # --namespace"));
  EXPECT_THAT(t, HasSubstr("interface: ens1f0np0  # SriovNetworkNodeState rack7-gpu01 "
                           ".status.interfaces[0].name"));
  EXPECT_THAT(t, HasSubstr(".status.interfaces[1].name (PF 15b3:1021, 2 VFs)"));
  EXPECT_THAT(t, HasSubstr("fabric: roce-v2  # SriovNetworkNodeState rack7-gpu01 "
                           ".status.interfaces[0].linkType = ETH"));
  EXPECT_THAT(t, Not(HasSubstr("ens3f0np0")));  // a Mellanox PF without VFs is no rail
  EXPECT_THAT(t, HasSubstr("resource_name: openshift.io/ens1f0rdma  # Node rack7-gpu01 "
                           ".status.capacity[openshift.io/ens1f0rdma] = 2"));
  EXPECT_THAT(
      t, HasSubstr("nad_name: ens2f0-rdma  # NetworkAttachmentDefinition llm-eval/ens2f0-rdma"));
  EXPECT_THAT(t, HasSubstr("mtu_bytes: 9000  # NetworkAttachmentDefinition ens1f0-rdma"));
  EXPECT_THAT(t, HasSubstr("range: 172.20.40.0/24"));
  EXPECT_THAT(t, HasSubstr("routes: [172.21.41.0/24]"));
  EXPECT_THAT(t, HasSubstr("key: nvidia.com/gpu"));
  EXPECT_THAT(t, HasSubstr("effect: NoSchedule"));
  EXPECT_THAT(t, HasSubstr("replicas: 3"));
  EXPECT_THAT(t, HasSubstr("memlock_strategy: sys-resource-scc"));
  EXPECT_THAT(t, HasSubstr("image: nvcr.io/nvidia/pytorch:24.05-py3  # TODO:"));
  EXPECT_THAT(t, HasSubstr("repo_url: https://git.example.com/platform/gpu-bundles.git  # TODO:"));
  EXPECT_THAT(t, HasSubstr("nccl:  # TODO:"));
  EXPECT_THAT(t, Not(HasSubstr("macvlan")));
  ExpectValidatesAndRenders(t);
}

TEST(Discover, OkeExportGivesANetworkOperatorProfileThatValidatesAndRenders) {
  Drafted d = Draft({"oke-intel.json"}, "oke-chicago", {"ml-jobs"});
  ASSERT_FALSE(d.sink.HasErrors());
  EXPECT_THAT(d.Rules(Severity::kWarning), testing::IsEmpty()) << d.text;
  const std::string& t = d.text;
  EXPECT_THAT(t, HasSubstr("platform: oke  # Node 10.140.0.17 "
                           ".metadata.labels[node.kubernetes.io/instance-type] = BM.GPU.H200.8"));
  EXPECT_THAT(t,
              HasSubstr("Other GPU node group, not in this profile: NVIDIA-A10 on VM.GPU.A10.2"));
  EXPECT_THAT(t, HasSubstr("cpu_vendor: intel  # Node 10.140.0.17"));
  EXPECT_THAT(t, HasSubstr("node.kubernetes.io/instance-type: BM.GPU.H200.8"));
  EXPECT_THAT(t, HasSubstr("nics_per_node: 16"));
  EXPECT_THAT(t, HasSubstr("resource_prefix: nvidia.com\n    resource_name: roce_vf"));
  EXPECT_THAT(t, HasSubstr("device_ids: [101e]  # TODO:"));  // no SR-IOV node state to read
  EXPECT_THAT(t, HasSubstr("attachments_per_pod: 16"));
  EXPECT_THAT(t, HasSubstr("mtu_bytes: 4220  # NetworkAttachmentDefinition roce-vf"));
  EXPECT_THAT(t, HasSubstr("cni_version: 0.4.0"));
  EXPECT_THAT(t, HasSubstr("pool:  # IPPool nvidia-network-operator/roce-pool .spec\n"
                           "          name: roce-pool\n"
                           "          namespace: nvidia-network-operator\n"
                           "          subnet: 10.224.0.0/16\n"
                           "          per_node_block_size: 32\n"
                           "          gateway: 10.224.0.1"));
  EXPECT_THAT(t, HasSubstr("[ml-jobs]"));
  EXPECT_THAT(t, HasSubstr("replicas: 4"));
  EXPECT_THAT(t, HasSubstr("memlock_strategy: crio-ulimits  # TODO:"));
  ExpectValidatesAndRenders(t);
}

TEST(Discover, InfinibandPortsGiveAnInfinibandFabric) {
  std::string text = Fixture("openshift-amd.json");
  for (size_t at = text.find("\"ETH\""); at != std::string::npos; at = text.find("\"ETH\"")) {
    text.replace(at, 5, "\"IB\"");
  }
  DiagnosticSink sink;
  const std::string drafted = discover::Discover({{"ib.json", text}}, {"ib", false}, sink);
  EXPECT_THAT(drafted, HasSubstr("fabric: infiniband  # SriovNetworkNodeState rack7-gpu01 "
                                 ".status.interfaces[0].linkType = IB"));
}

TEST(Discover, SingleObjectsInSeveralFilesGiveTheSameProfileAsOneList) {
  const nlohmann::json list = nlohmann::json::parse(Fixture("openshift-amd.json"));
  std::vector<discover::ExportInput> inputs;
  for (size_t i = 0; i < list["items"].size(); ++i) {
    // Alternate JSON and YAML (JSON is YAML; the loader reads both).
    inputs.push_back(
        {"object-" + std::to_string(i) + ".json", list["items"][i].dump(i % 2 ? 2 : -1)});
  }
  DiagnosticSink sink;
  const std::string split = discover::Discover(inputs, {"rack7", false}, sink);
  EXPECT_FALSE(sink.HasErrors());
  EXPECT_EQ(split, Draft({"openshift-amd.json"}, "rack7").text);
}

TEST(Discover, InconsistentClusterIsReportedAsWarnings) {
  Drafted d = Draft({"oc-inconsistent.yaml"});
  ASSERT_FALSE(d.sink.HasErrors());
  EXPECT_THAT(d.Rules(Severity::kWarning),
              testing::IsSupersetOf({"discover.rails-differ", "discover.shared-subnet",
                                     "discover.resource-missing", "discover.too-few-vfs"}));
  // A finding about one object points at it (the second node's SR-IOV state, the second NAD).
  for (const Diagnostic& w : d.sink.diagnostics()) {
    if (w.rule != "discover.rails-differ" && w.rule != "discover.shared-subnet") continue;
    EXPECT_EQ(w.location.file, "oc-inconsistent.yaml");
    EXPECT_EQ(w.location.line, w.rule == "discover.rails-differ" ? 148 : 219) << w.message;
    EXPECT_EQ(w.location.column, 3);
  }
  EXPECT_THAT(d.text, HasSubstr("cpu_vendor: intel"));
  EXPECT_THAT(d.text, HasSubstr("name: my-cluster  # TODO:"));
  EXPECT_THAT(d.text, HasSubstr("interface: enp65s0f1np1"));
}

TEST(Discover, AllGroupsGivesOneProfilePerGroupWithDistinctNamesEachValidating) {
  std::vector<discover::ExportInput> inputs = {{"oke-intel.json", Fixture("oke-intel.json")}};
  DiagnosticSink sink;
  const std::vector<discover::Draft> drafts = discover::DiscoverDrafts(inputs, {"oke", true}, sink);
  ASSERT_EQ(drafts.size(), 2u);
  EXPECT_EQ(drafts[0].cluster_name, "oke-bm-gpu-h200-8");
  EXPECT_EQ(drafts[1].cluster_name, "oke-vm-gpu-a10-2");
  EXPECT_THAT(drafts[0].text, HasSubstr("name: oke-bm-gpu-h200-8  # --name and the group"));
  EXPECT_THAT(drafts[1].text, HasSubstr("GPU node group: NVIDIA-A10 on VM.GPU.A10.2 (2 nodes"));
  EXPECT_THAT(drafts[1].text, HasSubstr("path: out/oke-vm-gpu-a10-2"));
  // One cluster, two profiles: each has namespaces of its own.
  EXPECT_THAT(drafts[0].text, HasSubstr("namespaces: [gpu-training-bm-gpu-h200-8]  # TODO:"));
  EXPECT_THAT(drafts[1].text, HasSubstr("namespaces: [gpu-training-vm-gpu-a10-2]  # TODO:"));
  // The A10 VMs have no RDMA rail: their draft runs NCCL over the pod network.
  EXPECT_THAT(drafts[1].text, HasSubstr("  mode: tcp  # no RDMA rail on the group's nodes"));
  EXPECT_THAT(drafts[0].text, HasSubstr("# Other GPU node group, drafted as oke-vm-gpu-a10-2: "
                                        "NVIDIA-A10 on VM.GPU.A10.2"));
  for (const discover::Draft& draft : drafts) {
    EXPECT_THAT(draft.text, Not(HasSubstr("\n---\n")));  // one profile a file
    ExpectValidatesAndRenders(draft.text);
  }
  // Without --name, and for groups told apart only by their GPU product.
  DiagnosticSink unnamed;
  const std::vector<discover::Draft> rack = discover::DiscoverDrafts(
      {{"openshift-amd.json", Fixture("openshift-amd.json")}}, {"", true}, unnamed);
  ASSERT_EQ(rack.size(), 2u);
  EXPECT_EQ(rack[0].cluster_name, "my-cluster-nvidia-h200");
  EXPECT_EQ(rack[1].cluster_name, "my-cluster-nvidia-a100-sxm4-80gb");
}

TEST(Discover, NoGpuNodeIsAnErrorNamingTheExportCommand) {
  Drafted d = Draft({"no-gpu.yaml"});
  EXPECT_EQ(d.text, "");
  ASSERT_EQ(d.Rules(Severity::kError), std::vector<std::string>{"discover.no-gpu-nodes"});
  EXPECT_THAT(d.sink.diagnostics().back().fix,
              HasSubstr("kubectl get -A -o json $(kubectl api-resources -o name | grep -xF -e "
                        "nodes -e sriovnetworknodestates.sriovnetwork.openshift.io"));
  // Fully qualified: `ippools` alone is also Calico's.
  EXPECT_THAT(d.sink.diagnostics().back().fix, HasSubstr("-e ippools.nv-ipam.nvidia.com"));
}

TEST(Discover, TruncatedExportIsLocatedByFileLineAndColumn) {
  const std::string whole = Fixture("oke-intel.json");
  std::vector<discover::ExportInput> inputs = {{"cut.json", whole.substr(0, whole.size() / 2)}};
  DiagnosticSink sink;
  EXPECT_EQ(discover::Discover(inputs, {}, sink), "");
  ASSERT_EQ(sink.ErrorCount(), 1);
  const Diagnostic& d = sink.diagnostics().front();
  EXPECT_EQ(d.location.file, "cut.json");
  EXPECT_GT(d.location.line, 100);
  EXPECT_GT(d.location.column, 0);
  EXPECT_EQ(d.rule, "yaml.syntax");
}

TEST(Discover, NadWithBrokenConfigIsAWarningAtItsLine) {
  std::string text = Fixture("oc-inconsistent.yaml");
  const std::string config_key = "config: '{\"cniVersion\"";
  ASSERT_NE(text.find(config_key), std::string::npos);
  text.replace(text.find(config_key), config_key.size(), "config: '{\"cniVersion");
  DiagnosticSink sink;
  discover::Discover({{"oc.yaml", text}}, {}, sink);
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule != "discover.nad-config") continue;
    found = true;
    EXPECT_EQ(d.location.file, "oc.yaml");
    EXPECT_GT(d.location.line, 0);
  }
  EXPECT_TRUE(found);
}

TEST(Discover, StringsThatWouldReadAsOtherTypesAreQuoted) {
  EXPECT_TRUE(discover::NeedsTypeQuotes("1021"));
  EXPECT_TRUE(discover::NeedsTypeQuotes("true"));
  EXPECT_TRUE(discover::NeedsTypeQuotes("on"));
  EXPECT_TRUE(discover::NeedsTypeQuotes(""));
  EXPECT_TRUE(discover::NeedsTypeQuotes("1e3"));
  EXPECT_FALSE(discover::NeedsTypeQuotes("101e"));
  EXPECT_FALSE(discover::NeedsTypeQuotes("10.0.0.0/24"));
  EXPECT_FALSE(discover::NeedsTypeQuotes("eno5np0"));
}

// The command as users run it: stdin and a file give the same bytes; --output-file never overwrites
// without --force.
class DiscoverCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestFolder("discover");
  }
  void TearDown() override { fs::remove_all(dir_); }
  test_files::CommandRun Run(const std::string& args) {
    return test_files::RunShell(std::string(HKIM_BINARY) + " discover " + args, HKIM_SOURCE_DIR,
                                dir_);
  }
  fs::path dir_;
};

TEST_F(DiscoverCommand, StdinAndFileGiveIdenticalOutput) {
  const std::string file = (kFixtures / "openshift-amd.json").string();
  auto from_file = Run(file + " --name rack7");
  auto from_stdin = Run("- --name rack7 < " + file);
  EXPECT_EQ(from_file.status, 0) << from_file.err;
  EXPECT_EQ(from_stdin.status, 0) << from_stdin.err;
  EXPECT_FALSE(from_file.out.empty());
  EXPECT_EQ(from_file.out, from_stdin.out);
}

TEST_F(DiscoverCommand, DraftedFileValidatesAndRendersWithTheBinary) {
  const std::string profile = (dir_ / "oke.yaml").string();
  auto run =
      Run((kFixtures / "oke-intel.json").string() + " --name oke-chicago --output-file " + profile);
  ASSERT_EQ(run.status, 0) << run.err;
  auto validate = test_files::RunShell(std::string(HKIM_BINARY) + " validate " + profile,
                                       HKIM_SOURCE_DIR, dir_);
  EXPECT_EQ(validate.status, 0) << validate.out << validate.err;
  auto render = test_files::RunShell(
      std::string(HKIM_BINARY) + " render " + profile + " -d " + (dir_ / "bundle").string(),
      HKIM_SOURCE_DIR, dir_);
  EXPECT_EQ(render.status, 0) << render.out << render.err;
  EXPECT_TRUE(fs::exists(dir_ / "bundle" / "kustomization.yaml"));
}

// The bundles of both drafted profiles build with kubectl kustomize and validate against the
// upstream schemas, like the shipped ones (bundle_test.cc); each check skips without its tool.
TEST_F(DiscoverCommand, DraftedBundlesBuildAndMatchUpstreamSchemas) {
  const bool kubectl = test_files::OnPath("kubectl");
  for (const std::string fixture : {"openshift-amd.json", "oke-intel.json"}) {
    const fs::path profile = dir_ / (fixture + ".yaml"), bundle = dir_ / (fixture + ".d");
    ASSERT_EQ(Run((kFixtures / fixture).string() + " --name lab --output-file " + profile.string())
                  .status,
              0);
    auto render = test_files::RunShell(
        std::string(HKIM_BINARY) + " render " + profile.string() + " -d " + bundle.string(),
        HKIM_SOURCE_DIR, dir_);
    ASSERT_EQ(render.status, 0) << render.err;
    if (kubectl) {
      auto built = test_files::RunShell("kubectl kustomize " + bundle.string(), dir_, dir_);
      EXPECT_EQ(built.status, 0) << fixture << ": " << built.err;
      EXPECT_THAT(built.out, HasSubstr("kind: StatefulSet"));
    }
    const test_files::UpstreamVerdict checked =
        test_files::ValidateUpstream(test_files::ManifestsUnder(bundle));
    if (!checked.skip.empty()) continue;
    EXPECT_EQ(checked.status, 0) << fixture << ": " << checked.text;
  }
}

TEST_F(DiscoverCommand, OutputIsNeverOverwrittenWithoutForce) {
  const fs::path target = dir_ / "mine.yaml";
  std::ofstream(target) << "my own file\n";
  const std::string file = (kFixtures / "oke-intel.json").string();
  auto refused = Run(file + " --output-file " + target.string());
  EXPECT_EQ(refused.status, 1);
  EXPECT_THAT(refused.err, HasSubstr("--force"));
  EXPECT_EQ(ReadFile(target), "my own file\n");
  auto forced = Run(file + " --output-file " + target.string() + " --force");
  EXPECT_EQ(forced.status, 0) << forced.err;
  EXPECT_THAT(ReadFile(target), HasSubstr("platform: oke"));
}

TEST_F(DiscoverCommand, NoGpuNodesAndTruncatedInputExitOne) {
  auto no_gpu = Run((kFixtures / "no-gpu.yaml").string());
  EXPECT_EQ(no_gpu.status, 1);
  EXPECT_THAT(no_gpu.err, HasSubstr("error: the export holds 1 node(s) and none reports"));
  EXPECT_THAT(no_gpu.err, HasSubstr("-e sriovnetworknodestates.sriovnetwork.openshift.io"));
  EXPECT_TRUE(no_gpu.out.empty());
  auto truncated = test_files::RunShell("head -c 3000 " + (kFixtures / "oke-intel.json").string() +
                                            " | " + HKIM_BINARY + " discover -",
                                        HKIM_SOURCE_DIR, dir_);
  EXPECT_EQ(truncated.status, 1);
  EXPECT_THAT(truncated.err,
              testing::ContainsRegex("<stdin>:[0-9]+:[0-9]+: error: .*\\[yaml.syntax\\]"));
  auto cut = Run("- < /dev/null");
  EXPECT_EQ(cut.status, 1);
  EXPECT_THAT(cut.err, HasSubstr("<stdin>:1:1: error: the export is empty: the command that "
                                 "wrote it printed nothing"));
  EXPECT_THAT(cut.err, HasSubstr("[discover.empty]"));
}

TEST_F(DiscoverCommand, AllGroupsWritesOneFileAGroupIntoTheFolderAndNeverOverwrites) {
  const std::string file = (kFixtures / "oke-intel.json").string();
  const fs::path dir = dir_ / "drafts";  // created by discover
  auto run = Run(file + " --name oke --all-groups -d " + dir.string());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("wrote " + (dir / "oke-bm-gpu-h200-8.yaml").string()));
  // Each validates, and both together (one cluster: nothing the two bundles would share).
  for (const std::string files : {"oke-bm-gpu-h200-8.yaml", "oke-vm-gpu-a10-2.yaml",
                                  "oke-bm-gpu-h200-8.yaml oke-vm-gpu-a10-2.yaml"}) {
    auto validate =
        test_files::RunShell(std::string(HKIM_BINARY) + " validate " + files, dir.string(), dir_);
    EXPECT_EQ(validate.status, 0) << files << ": " << validate.out << validate.err;
  }
  // A second run finds the files: nothing is written, not even the one that is missing.
  fs::remove(dir / "oke-vm-gpu-a10-2.yaml");
  std::ofstream(dir / "oke-bm-gpu-h200-8.yaml") << "my own file\n";
  auto again = Run(file + " --name oke --all-groups -d " + dir.string());
  EXPECT_EQ(again.status, 1);
  EXPECT_THAT(again.err, HasSubstr((dir / "oke-bm-gpu-h200-8.yaml").string() +
                                   ": error: the file exists [io.exists]"));
  EXPECT_EQ(ReadFile(dir / "oke-bm-gpu-h200-8.yaml"), "my own file\n");
  EXPECT_FALSE(fs::exists(dir / "oke-vm-gpu-a10-2.yaml"));
  auto forced = Run(file + " --name oke --all-groups -d " + dir.string() + " --force");
  EXPECT_EQ(forced.status, 0) << forced.err;
  EXPECT_THAT(ReadFile(dir / "oke-bm-gpu-h200-8.yaml"), HasSubstr("platform: oke"));
  // One file is one group's: --all-groups with --output-file, or without -d, is a usage error.
  auto one_file = Run(file + " --all-groups --output-file " + (dir_ / "x.yaml").string());
  EXPECT_EQ(one_file.status, 1);
  EXPECT_THAT(one_file.err, HasSubstr("--all-groups drafts one file per GPU node group; "
                                      "--output-file names one [cli.usage]"));
  auto to_stdout = Run(file + " --all-groups");
  EXPECT_EQ(to_stdout.status, 1);
  EXPECT_THAT(to_stdout.err, HasSubstr("it needs -d DIR [cli.usage]"));
  EXPECT_TRUE(to_stdout.out.empty());
  // -o json holds every draft, written or not.
  auto json = Run(file + " --name oke --all-groups -o json");
  EXPECT_EQ(json.status, 0) << json.out;
  const nlohmann::json report = nlohmann::json::parse(json.out);
  ASSERT_EQ(report["result"]["drafts"].size(), 2u);
  EXPECT_EQ(report["result"]["drafts"][1]["cluster_name"], "oke-vm-gpu-a10-2");
  EXPECT_TRUE(report["result"]["drafts"][1]["output_file"].is_null());
}

TEST_F(DiscoverCommand, OneDraftGoesToDirSlashItsNameWithDashD) {
  auto run = Run((kFixtures / "openshift-amd.json").string() + " --name rack7 -d " + dir_.string());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(ReadFile(dir_ / "rack7.yaml"), HasSubstr("name: rack7  # --name"));
  // A symlink at the draft's path is an existing file: refused, and its target left alone.
  const fs::path links = dir_ / "links";
  fs::create_directories(links);
  std::ofstream(dir_ / "target.txt") << "theirs\n";
  fs::create_symlink(dir_ / "target.txt", links / "rack7.yaml");
  auto linked = Run((kFixtures / "openshift-amd.json").string() + " --name rack7 -d " +
                    links.string());
  EXPECT_EQ(linked.status, 1);
  EXPECT_THAT(linked.err, HasSubstr("error: the file exists [io.exists]"));
  EXPECT_EQ(ReadFile(dir_ / "target.txt"), "theirs\n");
  auto both = Run((kFixtures / "openshift-amd.json").string() + " -d " + dir_.string() +
                  " --output-file " + (dir_ / "y.yaml").string());
  EXPECT_EQ(both.status, 1);
  EXPECT_THAT(both.err, HasSubstr("--output-file and -d DIR both name where to write [cli.usage]"));
}

}  // namespace
}  // namespace hkim
