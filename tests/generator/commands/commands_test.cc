// The authoring commands as users run them (validate, lint, explain, diff, schema, init), the
// generated field reference, and the starter profiles init writes.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "commands/init_command.h"
#include "support/embedded_files.h"
#include "load/load.h"
#include "pipeline/pipeline.h"
#include "pipeline/profile_check.h"
#include "schema/doc.h"
#include "test_files.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using hkim::test_files::ReadFile;

using CliRun = hkim::test_files::CommandRun;

// hkimgen with `args`; `out` holds its stdout and stderr.
CliRun Hkimgen(const std::string& args) {
  return hkim::test_files::RunCapturing(std::string(HKIM_BINARY) + " " + args + " 2>&1");
}

class Commands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestFolder("commands");
    fs::create_directories(dir_ / "base");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

// An OpenShift profile split into a base and a cluster file.
constexpr const char* kBase = R"(cluster:
  platform: openshift
node_shape:
  name: lab-h100
  gpus_per_node: 4
  nics_per_node: 2
  cpu_vendor: amd
network:
  fabric: roce-v2
  rails:
    - name: rail0
      resource_name: openshift.io/rail0rdma
      ipam: {type: whereabouts, range: 10.0.1.0/24}
    - name: rail1
      resource_name: openshift.io/rail1rdma
      ipam: {type: whereabouts, range: 10.0.2.0/24}
nccl:
  cross_nic: 0
security:
  run_as_user: 0
iommu:
  policy: passthrough
wrapper:
  image: quay.io/x/wrapper:1
  digest: sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
)";

constexpr const char* kProfile = R"(extends: base/lab.yaml
cluster:
  name: lab
namespaces: [team-a]
workload:
  name: train
  image: quay.io/x/train:1@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
  replicas: 2
  gpus_per_pod: 4
  command: [python, train.py]
gitops:
  repo_url: https://github.com/lab/bundles.git
  path: out/lab
)";

TEST_F(Commands, ValidateAcceptsALayeredProfile) {
  Write("base/lab.yaml", kBase);
  const std::string profile = Write("lab.yaml", kProfile);
  CliRun run = Hkimgen("validate " + profile);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("lab.yaml: valid"), std::string::npos) << run.out;
}

TEST_F(Commands, ValidateLocatesAnErrorInTheBaseFile) {
  std::string broken = kBase;
  broken.replace(broken.find("cross_nic: 0"), 12, "cross_nic: 2");
  Write("base/lab.yaml", broken);
  const std::string profile = Write("lab.yaml", kProfile);
  CliRun run = Hkimgen("validate " + profile);
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find("base/lab.yaml:18:14: error: NCCL_CROSS_NIC is 2"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("[lint.cross-nic-isolated]"), std::string::npos);
  EXPECT_NE(run.out.find(" 18 |   cross_nic: 2"), std::string::npos) << run.out;
}

TEST_F(Commands, SchemaErrorsInTheBaseFileAreLocatedThere) {
  std::string broken = kBase;
  broken.replace(broken.find("gpus_per_node: 4"), 16, "gpus_per_node: four");
  Write("base/lab.yaml", broken);
  const std::string profile = Write("lab.yaml", kProfile);
  CliRun run = Hkimgen("validate " + profile + " -o json");
  EXPECT_EQ(run.status, 1) << run.out;
  nlohmann::json report = nlohmann::json::parse(run.out);
  ASSERT_EQ(report["diagnostics"].size(), 1u) << run.out;
  EXPECT_EQ(fs::path(report["diagnostics"][0]["file"].get<std::string>()).filename(), "lab.yaml");
  EXPECT_NE(report["diagnostics"][0]["file"].get<std::string>().find("base/"), std::string::npos);
  EXPECT_EQ(report["diagnostics"][0]["line"], 5);
  EXPECT_EQ(report["ok"], false);
}

TEST_F(Commands, WarningsPassValidateUnlessStrictAndFailLint) {
  Write("base/lab.yaml", kBase);
  const std::string profile = Write("lab.yaml", kProfile);
  EXPECT_EQ(Hkimgen("validate " + profile + " --set workload.gpus_per_pod=2").status, 0);
  CliRun strict = Hkimgen("validate " + profile + " --set workload.gpus_per_pod=2 --strict");
  EXPECT_EQ(strict.status, 1) << strict.out;
  EXPECT_NE(strict.out.find("warning:"), std::string::npos);
  EXPECT_NE(strict.out.find("[lint.gpus-idle]"), std::string::npos);
  // lint is strict: the same warning fails it, unless accepted.
  EXPECT_EQ(Hkimgen("lint " + profile + " --set workload.gpus_per_pod=2").status, 1);
  CliRun allowed = Hkimgen("lint " + profile + " --set workload.gpus_per_pod=2 --allow lint.gpus-idle");
  EXPECT_EQ(allowed.status, 0) << allowed.out;
  EXPECT_NE(allowed.out.find("note: accepted (--allow): "), std::string::npos) << allowed.out;
}

TEST_F(Commands, LintListsItsRules) {
  CliRun run = Hkimgen("lint --list-rules");
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.out.find("lint.cross-nic-isolated"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("schema.type"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("lint.privileged"), std::string::npos);
}

TEST_F(Commands, ExplainShowsEachLayer) {
  Write("base/lab.yaml", kBase);
  const std::string profile = Write("lab.yaml", kProfile);
  CliRun run = Hkimgen("explain " + profile + " nccl.cross_nic --set nccl.cross_nic=0");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("nccl.cross_nic = 0\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("base/lab.yaml:18:14\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--set:1:16   (final)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("NCCL_CROSS_NIC"), std::string::npos);
}

TEST_F(Commands, DiffExitCodesAndTheDisruptiveFlag) {
  Write("base/lab.yaml", kBase);
  const std::string profile = Write("lab.yaml", kProfile);
  const std::string out = (dir_ / "out").string();
  // Nothing rendered yet: a preview of the first render, every file new, said once.
  CliRun missing = Hkimgen("diff " + profile + " -d " + out + " --detailed-exitcode");
  EXPECT_EQ(missing.status, 2) << missing.out;
  EXPECT_NE(missing.out.find("the folder does not exist yet: every file of the bundle is new "
                             "[diff.new-dir]"),
            std::string::npos)
      << missing.out;
  EXPECT_NE(missing.out.find("+ added kustomization.yaml"), std::string::npos) << missing.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  ASSERT_EQ(Hkimgen("render " + profile + " -d " + out).status, 0);
  CliRun same = Hkimgen("diff " + profile + " -d " + out + " --detailed-exitcode");
  EXPECT_EQ(same.status, 0) << same.out;
  EXPECT_NE(same.out.find("no changes"), std::string::npos);
  // A different IOMMU kernel argument changes the MachineConfig: nodes reboot.
  CliRun changed = Hkimgen("diff " + profile + " -d " + out +
                           " --set node_shape.cpu_vendor=intel --detailed-exitcode");
  EXPECT_EQ(changed.status, 2) << changed.out;
  EXPECT_NE(changed.out.find("(MachineConfig 99-worker-lab-iommu-passthrough) [disruptive: "),
            std::string::npos)
      << changed.out;
  EXPECT_NE(changed.out.find("   kernelArguments:\n+  - intel_iommu=on\n   - iommu=pt\n"), std::string::npos)
      << changed.out;
  // Without --detailed-exitcode, changes are a success (0), as in terraform plan.
  EXPECT_EQ(Hkimgen("diff " + profile + " -d " + out + " --set node_shape.cpu_vendor=intel").status,
            0);
  CliRun json = Hkimgen("diff " + profile + " -d " + out +
                        " --set workload.replicas=3 -o json --detailed-exitcode");
  EXPECT_EQ(json.status, 2);
  nlohmann::json report = nlohmann::json::parse(json.out);
  nlohmann::json plan = report["result"];
  EXPECT_EQ(report["command"], "diff");
  // The StatefulSet changes (its pods run the fabric check); no Job comes or goes.
  std::map<std::string, std::string> by_kind;  // kind -> the change words seen
  for (const nlohmann::json& c : plan["changes"]) {
    by_kind[c["kind"].get<std::string>()] += c["change"].get<std::string>() + " ";
    if (c["kind"] == "StatefulSet") EXPECT_EQ(c["disruptive"], false);
  }
  EXPECT_EQ(by_kind["StatefulSet"], "changed ") << json.out;
  EXPECT_EQ(by_kind.count("Job"), 0u) << json.out;
  // Errors: 1, and nothing is written.
  EXPECT_EQ(Hkimgen("diff " + profile + " -d " + out + " --set workload.replicas=zero").status, 1);
  EXPECT_EQ(Hkimgen("diff " + (dir_ / "missing.yaml").string() + " -d " + out).status, 1);
}

TEST_F(Commands, RenderTakesLayersToo) {
  Write("base/lab.yaml", kBase);
  const std::string profile = Write("lab.yaml", kProfile);
  const std::string extra = Write("big.yaml", "workload:\n  replicas: 8\n");
  CliRun run = Hkimgen("render " + profile + " -f " + extra);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("replicas: 8"), std::string::npos);
}

TEST_F(Commands, SchemaPrintsTheEmbeddedSchema) {
  CliRun run = Hkimgen("schema");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(
      nlohmann::json::parse(run.out),
      nlohmann::json::parse(ReadFile(fs::path(HKIM_SOURCE_DIR) / "schemas/profile.schema.json")));
}

TEST_F(Commands, InitWritesAProfileThatValidates) {
  const std::string file = (dir_ / "new.yaml").string();
  CliRun init =
      Hkimgen("init --platform openshift --shape barcelona-h100-cx7 --name lab --output-file " +
              file);
  ASSERT_EQ(init.status, 0) << init.out;
  // The starter's repository is a placeholder (git.example.com ... # CHANGE): lint says so;
  // its images are named by tag (lint.image-digest); nothing else is found.
  CliRun validate = Hkimgen("validate --strict " + file);
  EXPECT_EQ(validate.status, 1) << validate.out;
  EXPECT_NE(validate.out.find("[lint.repo-url-placeholder]"), std::string::npos) << validate.out;
  EXPECT_NE(validate.out.find("[lint.image-digest]"), std::string::npos) << validate.out;
  CliRun accepted = Hkimgen(
      "validate --strict --allow lint.repo-url-placeholder --allow lint.image-digest " + file);
  EXPECT_EQ(accepted.status, 0) << accepted.out;
  EXPECT_EQ(
      Hkimgen("init --platform openshift --shape barcelona-h100-cx7 --output-file " + file).status,
      1)
      << "refuses to overwrite";
}

// Every platform × shape starter is clean: no error and no warning but the one that asks for the
// Git repository (its repo_url is git.example.com until the user fills it in) and the one that
// names its images pulled by tag; on OpenShift a note says the worker pool reboots.
TEST(Init, EveryStarterProfileValidatesWithoutFindings) {
  for (const std::string shape : InitShapes()) {
    InitOptions kubernetes;  // no starter of its own: init refuses it
    kubernetes.platform = "kubernetes";
    kubernetes.shape = shape;
    EXPECT_FALSE(StarterProfile(kubernetes)) << shape;
  }
  for (const std::string platform : {"openshift", "oke"}) {
    for (const std::string& shape : InitShapes()) {
      InitOptions options;
      options.platform = platform;
      options.shape = shape;
      std::optional<std::string> text = StarterProfile(options);
      ASSERT_TRUE(text) << platform << " " << shape;
      EXPECT_NE(text->find("# yaml-language-server: $schema="), std::string::npos);
      DiagnosticSink sink;
      auto loaded = LoadProfileFromText("starter.yaml", *text, sink);
      ASSERT_TRUE(loaded) << platform << " " << shape;
      EXPECT_TRUE(CheckLoadedProfile(*loaded, sink)) << platform << " " << shape;
      int placeholder = 0, by_tag = 0, reboots = 0;
      for (const Diagnostic& d : sink.diagnostics()) {
        if (d.rule == "lint.repo-url-placeholder" && d.severity == Severity::kWarning) {
          ++placeholder;
          continue;
        }
        // A starter names its images by tag: pinning them is the user's step (README); one
        // finding names them all.
        if (d.rule == "lint.image-digest" && d.severity == Severity::kWarning) {
          ++by_tag;
          continue;
        }
        if (d.rule == "lint.worker-pool-reboots" && d.severity == Severity::kNote) {
          ++reboots;
          continue;
        }
        // OKE: its node agents run privileged under SELinux enforcing, the default (a note).
        if (d.rule == "lint.node-agent-privileged" && d.severity == Severity::kNote) continue;
        ADD_FAILURE() << platform << " " << shape << ": " << d.location.line << ": " << d.rule
                      << " " << d.message;
      }
      EXPECT_EQ(placeholder, 1) << platform << " " << shape;
      EXPECT_EQ(by_tag, 1) << platform << " " << shape;
      EXPECT_EQ(reboots, platform == "openshift" ? 1 : 0) << platform << " " << shape;
    }
  }
}

// The shipped bases (profiles/base/): each platform base with each of its shapes, plus the
// few lines a cluster adds, validates without a finding.
TEST(BaseProfiles, PlatformAndShapeBasesComposeIntoCleanProfiles) {
  const fs::path base = fs::path(HKIM_SOURCE_DIR) / "profiles/base";
  const fs::path dir =
      fs::temp_directory_path() / ("hkim-base-profiles-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cluster_tail = R"(
cluster: {name: lab}
namespaces: [team-a]
workload: {name: train, image: quay.io/x/train:1, replicas: 2, command: [sleep, infinity]}
gitops: {repo_url: https://github.com/lab/r.git, path: out/lab}
)";
  std::vector<std::pair<std::string, std::string>> cases = {
      {"openshift.yaml", "barcelona-h100-cx7.yaml"},
      {"oke.yaml", "BM.GPU.H100.8.yaml"},
      {"oke.yaml", "BM.GPU.A100-v2.8.yaml"},
      {"oke.yaml", "BM.GPU4.8.yaml"}};
  for (const auto& [platform, shape] : cases) {
    std::string text = "extends: [" + (base / platform).string() + ", " +
                       (base / "shapes" / shape).string() + "]\n" + cluster_tail;
    if (platform == "openshift.yaml") {
      // The cluster's OpenShift version picks the NFD operand image (base/openshift.yaml).
      text += "operators: {openshift_version: \"4.19\"}\n";
      text += "network:\n  rails:\n";
      for (int i = 0; i < 4; ++i) {
        text += "    - {name: eno" + std::to_string(5 + i) +
                "np0, ipam: {type: whereabouts, range: 10.0." + std::to_string(103 + i) +
                ".0/24}}\n";
      }
    }
    const fs::path file = dir / ("lab-" + shape);
    std::ofstream(file) << text;
    DiagnosticSink sink;
    auto checked = CheckLayeredProfile(LayerInputs{file.string(), {}, {}}, sink);
    ASSERT_TRUE(checked) << shape;
    EXPECT_TRUE(checked->profile) << platform << " + " << shape;
    for (const Diagnostic& d : sink.diagnostics()) {
      // The bases and the tail name images by tag; lint.image-digest is tested on its own.
      if (d.rule == "lint.image-digest" && d.severity == Severity::kWarning) continue;
      // OKE: its node agents run privileged under SELinux enforcing, the default (a note).
      if (d.rule == "lint.node-agent-privileged" && d.severity == Severity::kNote) continue;
      // OpenShift: the base's MachineConfig goes to the worker pool (a note).
      if (d.rule == "lint.worker-pool-reboots" && d.severity == Severity::kNote) continue;
      ADD_FAILURE() << platform << " + " << shape << ": " << d.location.file << ":"
                    << d.location.line << ": " << d.rule << " " << d.message;
    }
    if (checked->profile) {
      EXPECT_EQ(checked->profile->node_shape.name + ".yaml", shape);
      EXPECT_EQ(checked->layered.layers.size(), 3u);
    }
  }
  fs::remove_all(dir);
}

// The shipped Barcelona profile, rewritten as base + shape + what is Barcelona's own, renders
// the same bundle byte for byte. If the shipped profile changes, change this copy with it (or
// make the shipped profile extend the bases).
TEST(BaseProfiles, LayeredBarcelonaRendersLikeTheShippedProfile) {
  const fs::path source = HKIM_SOURCE_DIR;
  const fs::path file =
      fs::temp_directory_path() / ("hkim-layered-barcelona-" + std::to_string(getpid()) + ".yaml");
  std::ofstream(file) << "extends: [" << (source / "profiles/base/openshift.yaml").string() << ", "
                      << (source / "profiles/base/shapes/barcelona-h100-cx7.yaml").string() << "]\n"
                      << R"(cluster:
  name: barcelona
namespaces: [nccl-test]
node_shape:
  exclude_nodes: [moc-r4pcc02u15-yunshi, moc-r4pcc02u16-yunshi]
network:
  rdma_netns: shared
  rails:
    - {name: eno5np0, nad_name: eno5np0-network, ipam: {type: whereabouts, range: 10.0.103.0/24, routes: [192.168.77.0/24]}}
    - {name: eno6np0, nad_name: eno6np0-network, ipam: {type: whereabouts, range: 10.0.104.0/24, routes: [192.168.78.0/24]}}
    - {name: eno7np0, nad_name: eno7np0-network, ipam: {type: whereabouts, range: 10.0.105.0/24, routes: [192.168.79.0/24]}}
    - {name: eno8np0, nad_name: eno8np0-network, ipam: {type: whereabouts, range: 10.0.106.0/24, routes: [192.168.80.0/24]}}
nccl:
  ib_tc: 106
  ib_sl: 0
  ib_timeout: 23
  ib_retry_count: 7
  gdr_level: 5
  debug: INFO
  extra_env:
    NCCL_DEBUG_SUBSYS: INIT,NET
    NCCL_NET_GDR_READ: "1"
    NCCL_IB_AR_THRESHOLD: "8192"
    NCCL_IB_PCI_RELAXED_ORDERING: "1"
    NCCL_MIN_NCHANNELS: "8"
    NCCL_MAX_NCHANNELS: "16"
    NCCL_PROTO: Simple
    NCCL_ALGO: Ring
    NCCL_BUFFSIZE: "8388608"
    NCCL_NTHREADS: "640"
    NCCL_NSOCKS_PERTHREAD: "8"
    NCCL_NVLS_ENABLE: "0"
    NCCL_NET_SHARED_BUFFERS: "1"
    NCCL_NET_OVERHEAD: "0"
    NCCL_IGNORE_CPU_AFFINITY: "1"
security:
  service_account: h-kim-sa
iommu: {machine_config_role: h100, machine_config_pool: existing, already_set: [iommu=pt]}
workload:
  name: h-kim
  image: quay.io/jschless/ml-dev-env:prism-pytorch-25.06
  replicas: 2
  command: ["sleep", "infinity"]
  shm_size: 32Gi
  master_port: 29500
  service_name: h-kim-headless
  resources:
    requests: {cpu: "32", memory: 1200Gi}
    limits: {cpu: "64", memory: 1200Gi}
health_check:
  min_busbw_gbps: 50
  at_bytes: 1Gi
  max_bytes: 1Gi
  transport: any
fabric_health:
  gate: {mode: fail, min_busbw_gbps: 40, at_bytes: 1Gi, max_bytes: 1Gi, transport: NET/IB/GDRDMA}
  periodic: {nodes: 3, nights: 3}
  min_rail_fraction: 0.75
preconditions:
  - kind: machine-config-pool
    what: h100
    why: the cluster's admins made MachineConfigPool h100 for the GPU nodes by hand (FACTS.md Barcelona §7)
    check: oc get machineconfigpool h100
  - kind: node-label
    what: node-role.kubernetes.io/h100
    why: the cluster's admins label the GPU nodes with the h100 role; the MachineConfigs and SR-IOV policies select it
    check: oc get nodes -l node-role.kubernetes.io/h100
operators:
  openshift_version: "4.20"
  sriov_network_operator: {install: preinstalled, node_policies: false}
  nfd: {install: preinstalled}
  gpu_operator: {install: preinstalled, version: v25.10.1}
gitops:
  argocd_namespace: openshift-gitops
  project: default
  repo_url: https://github.com/hkim/hkimgen-bundles.git
  path: out/barcelona-h100-cx7
  revision: main
  destination_server: https://api.barcelona.nerc.mghpcc.org:6443
)";
  DiagnosticSink sink;
  auto layered = RenderProfileLayers(LayerInputs{file.string(), {}, {}}, sink);
  auto shipped = RenderProfileFile((source / "profiles/barcelona-h100-cx7.yaml").string(), sink);
  fs::remove(file);
  ASSERT_TRUE(layered && shipped) << (sink.diagnostics().empty() ? ""
                                                                 : sink.diagnostics()[0].message);
  EXPECT_EQ(BundleStream(*layered), BundleStream(*shipped));
}

// docs/profile-reference.md is generated from the schema; regenerate it when the schema changes.
TEST(ProfileReference, DocIsCurrent) {
  const std::string_view* schema_text = FindEmbeddedFile("schemas/profile.schema.json");
  ASSERT_NE(schema_text, nullptr);
  const std::string expected = ProfileReferenceMarkdown(nlohmann::json::parse(*schema_text));
  const std::string actual = ReadFile(fs::path(HKIM_SOURCE_DIR) / "docs/profile-reference.md");
  EXPECT_TRUE(actual == expected)
      << "docs/profile-reference.md is stale: regenerate it with\n"
         "  ./build/generator/hkimgen schema -o markdown > docs/profile-reference.md";
}

TEST(ProfileReference, EveryFieldIsDocumented) {
  const std::string_view* schema_text = FindEmbeddedFile("schemas/profile.schema.json");
  ASSERT_NE(schema_text, nullptr);
  std::vector<SchemaField> fields = CollectSchemaFields(nlohmann::json::parse(*schema_text));
  ASSERT_GT(fields.size(), 50u);
  bool saw_rail_mtu = false;
  for (const SchemaField& f : fields) {
    if (f.path == "network.rails[].mtu_bytes") {
      saw_rail_mtu = true;
      EXPECT_EQ(f.type, "integer");
      EXPECT_EQ(f.default_text, "9000");
    }
  }
  EXPECT_TRUE(saw_rail_mtu);
}

}  // namespace
}  // namespace hkim
