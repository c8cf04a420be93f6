// Lint rules: every rule has a failing case (reported once, at the value it concerns, with a
// fix) and a passing one; a profile with several faults gets each reported once.
#include "lint/lint.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "layering/layering.h"
#include "load/load.h"
#include "pipeline/profile_check.h"
#include "validate/validate.h"
#include "model/operator_versions.h"
#include "model/wrapper_image.h"
#include "test_files.h"

namespace hkim {
namespace {

// Lint-clean bases: an OpenShift profile with two isolated rails, an OKE one with 16 VFs.
constexpr const char* kOpenShift = R"(cluster: {name: lab, platform: openshift}
namespaces: [team-a]
node_shape:
  name: lab-h100
  gpus_per_node: 4
  nics_per_node: 2
  cpu_vendor: amd
network:
  fabric: roce-v2
  rdma_netns: exclusive
  rails:
    - name: rail0
      resource_name: openshift.io/rail0rdma
      rdma_device_hint: mlx5_6
      ipam: {type: whereabouts, range: 10.0.1.0/24}
    - name: rail1
      resource_name: openshift.io/rail1rdma
      rdma_device_hint: mlx5_7
      ipam: {type: whereabouts, range: 10.0.2.0/24}
nccl:
  cross_nic: 0
security:
  memlock_strategy: sys-resource-scc
  run_as_user: 0
iommu:
  policy: passthrough
workload:
  name: train
  image: quay.io/x/train:1
  replicas: 2
  gpus_per_pod: 4
  command: [python, train.py]
wrapper:
  image: quay.io/x/wrapper:1
gitops:
  repo_url: https://github.com/lab/bundles.git
  path: out/lab
)";

constexpr const char* kOke = R"(cluster: {name: oke, platform: oke}
namespaces: [gpu]
node_shape: {name: BM.GPU.H100.8, gpus_per_node: 8, nics_per_node: 16, cpu_vendor: intel}
network:
  fabric: roce-v2
  sriov_device_plugin: {resource_name: sriov_rdma_vf, device_ids: ["101e"]}
  nv_ipam: {}
  rails:
    - name: rdma
      resource_name: nvidia.com/sriov_rdma_vf
      attachments_per_pod: 16
      ipam:
        type: nv-ipam
        pool:
          name: default
          namespace: network-operator
          subnet: 192.168.0.0/16
          per_node_block_size: 100
          gateway: 192.168.0.1
nccl:
  socket_ifname: eth0
security: {memlock_strategy: crio-ulimits}
workload:
  name: job
  image: quay.io/x/train:1
  replicas: 2
  gpus_per_pod: 8
  command: [sleep, infinity]
wrapper: {image: quay.io/x/wrapper:1}
gitops: {repo_url: https://github.com/lab/bundles.git, path: out/oke}
)";

// Loads `base`, applies `sets` as --set assignments, and runs schema, model and lint (not the
// closure check validate adds: these small profiles install no operator; closure_test.cc). The
// bases name their images by tag, as most profiles do, and say things of every profile like them
// (the OpenShift one reboots the worker pool, the OKE operators are the default end-of-support
// release): those rules' findings are dropped unless `digest_findings` (their own tests below,
// through Only), so that every other test sees one rule at a time.
DiagnosticSink Check(const char* base, const std::vector<std::string>& sets,
                     bool digest_findings = false) {
  DiagnosticSink all;
  DiagnosticSink& sink = all;
  auto loaded = LoadProfileFromText("lab.yaml", base, sink);
  EXPECT_TRUE(loaded);
  if (!loaded) return sink;
  auto layered = MergeLayers({*loaded}, sink);
  EXPECT_TRUE(layered);
  if (!layered || !ApplySetAssignments(sets, *layered, sink)) return sink;
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  if (!schema || !ValidateProfile(layered->merged, *schema, sink) || sink.HasErrors()) return sink;
  if (auto profile = BuildProfileForLint(layered->merged, sink)) RunLint(*profile, layered->merged, sink);
  if (digest_findings) return all;
  DiagnosticSink kept;
  const std::set<std::string> said_of_every_base = {
      "lint.image-digest", "lint.node-agent-privileged", "lint.worker-pool-reboots",
      "lint.gpu-operator-support"};
  for (const Diagnostic& d : all.diagnostics()) {
    if (!said_of_every_base.count(d.rule)) kept.Report(d);
  }
  return kept;
}

// The findings of `rule` alone (Check drops some rules' findings unless asked).
DiagnosticSink Only(const DiagnosticSink& all, const std::string& rule) {
  DiagnosticSink kept;
  for (const Diagnostic& d : all.diagnostics()) {
    if (d.rule == rule) kept.Report(d);
  }
  return kept;
}

std::string Dump(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out += d.location.file + ":" + std::to_string(d.location.line) + ": " + d.rule + " " +
           d.data_path + ": " + d.message + "\n";
  }
  return out;
}

// Exactly one finding, of `rule`, at `pointer`, with a fix; nothing else.
void ExpectOnly(const DiagnosticSink& sink, const std::string& rule, const std::string& pointer,
                Severity severity = Severity::kError) {
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Dump(sink);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, rule) << Dump(sink);
  EXPECT_EQ(d.data_path, pointer);
  EXPECT_EQ(d.severity, severity);
  EXPECT_FALSE(d.fix.empty());
  EXPECT_FALSE(d.message.empty());
  EXPECT_TRUE(d.location.known()) << Dump(sink);
}

void ExpectClean(const DiagnosticSink& sink) {
  EXPECT_TRUE(sink.diagnostics().empty()) << Dump(sink);
}

TEST(Lint, TheBaseProfilesAreClean) {
  ExpectClean(Check(kOpenShift, {}));
  ExpectClean(Check(kOke, {}));
}

TEST(Lint, RulesAreSortedWithUniqueIdsAndSummaries) {
  const std::vector<LintRule>& rules = LintRules();
  ASSERT_GE(rules.size(), 15u);
  for (size_t i = 0; i < rules.size(); ++i) {
    EXPECT_EQ(std::string(rules[i].id).rfind("lint.", 0), 0u) << rules[i].id;
    EXPECT_FALSE(std::string(rules[i].summary).empty());
    if (i > 0) EXPECT_LT(std::string(rules[i - 1].id), std::string(rules[i].id));
  }
}

TEST(Lint, FindingIsLocatedAtTheSetValue) {
  DiagnosticSink sink = Check(kOpenShift, {"nccl.cross_nic=2"});
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Dump(sink);
  EXPECT_EQ(sink.diagnostics()[0].location.file, "--set");
  EXPECT_EQ(sink.diagnostics()[0].location.line, 1);
  EXPECT_EQ(sink.diagnostics()[0].location.column, 16);
}

TEST(Lint, DefaultValuesAreReportedWhereTheUserCouldWriteThem) {
  DiagnosticSink sink = Check(kOpenShift, {"nccl.cross_nic=null"});  // default 2
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Dump(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, "lint.cross-nic-isolated");
  EXPECT_EQ(sink.diagnostics()[0].location.file, "lab.yaml");
  EXPECT_EQ(sink.diagnostics()[0].location.line, 21);  // the `nccl:` mapping (its first key)
}

// --- workload ------------------------------------------------------------------------------

TEST(Lint, CommandNnodesAgainstReplicas) {
  // Replicas 4 while torchrun is told 2 nodes: the job waits for ranks that never come.
  const Severity warning = Severity::kWarning;
  ExpectOnly(Check(kOke, {"workload.replicas=4", "workload.command={torchrun,--nnodes=2,train.py}"}),
             "lint.command-nnodes", "/workload/command/1", warning);
  ExpectOnly(Check(kOke, {"workload.replicas=4", "workload.command={torchrun,--nnodes,\"2\",train.py}"}),
             "lint.command-nnodes", "/workload/command/1", warning);
  ExpectOnly(Check(kOke, {"workload.replicas=4",
                          "workload.command={bash,-c,torchrun --nnodes=2 --nproc-per-node=8 t.py}"}),
             "lint.command-nnodes", "/workload/command/2", warning);
  ExpectOnly(Check(kOke, {"workload.replicas=4", "workload.command={torchrun,--nnodes=1:3,t.py}"}),
             "lint.command-nnodes", "/workload/command/1", warning);
  // The count the bundle sets, an elastic range that admits it, the matching literal, no flag.
  ExpectClean(Check(kOke, {"workload.replicas=4",
                           "workload.command={torchrun,--nnodes=$(HKIM_REPLICAS),t.py}"}));
  ExpectClean(Check(kOke, {"workload.replicas=4", "workload.command={torchrun,--nnodes=2:8,t.py}"}));
  ExpectClean(Check(kOke, {"workload.replicas=4", "workload.command={torchrun,--nnodes=4,t.py}"}));
  ExpectClean(Check(kOke, {"workload.replicas=4", "workload.command={python,--max-nnodes=2,t.py}"}));
}

// --- network -------------------------------------------------------------------------------

TEST(Lint, RailResourcePrefix) {
  ExpectOnly(Check(kOpenShift, {"network.rails[0].resource_name=example.com/rail0rdma"}),
             "lint.rail-resource-prefix", "/network/rails/0/resource_name");
  ExpectOnly(Check(kOpenShift, {"network.rails[0].resource_name=openshift.io/rail-0"}),
             "lint.rail-resource-prefix", "/network/rails/0/resource_name");
  ExpectClean(Check(kOpenShift, {"network.rails[0].resource_name=openshift.io/eno5np0rdma"}));
  ExpectClean(Check(kOpenShift, {"network.rails[0].resource_name=openshift.io/Eno_5rdma"}));
}

TEST(Lint, PodResourceWithoutRail) {
  // The seeds' test StatefulSet asked for eno2np0rdma while attaching the eno5..8 networks.
  ExpectOnly(Check(kOpenShift, {"workload.resources.requests.openshift\\.io/eno2np0rdma=1"}),
             "lint.pod-resource-rail", "/workload/resources/requests/openshift.io~1eno2np0rdma");
  ExpectClean(Check(kOpenShift, {"workload.resources.requests.cpu=32"}));
}

TEST(Lint, RailNicCount) {
  ExpectOnly(Check(kOpenShift, {"node_shape.nics_per_node=4"}), "lint.rail-nic-count",
             "/network/rails", Severity::kWarning);
  ExpectClean(Check(kOke, {"network.rails[0].attachments_per_pod=16"}));
}

TEST(Lint, IpPoolCapacity) {
  // A /30 holds 2 pods: fine for 2 replicas, not for 3.
  ExpectClean(Check(kOpenShift, {"network.rails[0].ipam.range=10.0.1.0/30"}));
  ExpectOnly(Check(kOpenShift, {"network.rails[0].ipam.range=10.0.1.0/30", "workload.replicas=3"}),
             "lint.ip-pool-capacity", "/network/rails/0/ipam/range");
  // Every namespace's NAD allocates from the same whereabouts range.
  ExpectOnly(Check(kOpenShift, {"network.rails[1].ipam.range=10.0.2.0/29", "namespaces={a,b,c,d}"}),
             "lint.ip-pool-capacity", "/network/rails/1/ipam/range");
  // nv-ipam: 2 nodes need 2 blocks of 100 addresses.
  ExpectOnly(Check(kOke, {"network.rails[0].ipam.pool.subnet=192.168.0.0/25",
                          "network.rails[0].ipam.pool.gateway=192.168.0.1"}),
             "lint.ip-pool-capacity", "/network/rails/0/ipam/pool/subnet");
}

TEST(Lint, NvIpamBlockSize) {
  // 16 VFs plus the gateway do not fit a block of 16 (fewer than 16 is model.ipam-block-size).
  ExpectOnly(Check(kOke, {"network.rails[0].ipam.pool.per_node_block_size=16"}),
             "lint.nv-ipam-block-size", "/network/rails/0/ipam/pool/per_node_block_size");
  ExpectClean(Check(kOke, {"network.rails[0].ipam.pool.per_node_block_size=17"}));
}

TEST(Lint, SubnetOverlapOfAnNvIpamPool) {
  const std::vector<std::string> pool = {
      "network.rails[1].ipam.type=nv-ipam", "network.rails[1].ipam.range=null",
      "network.rails[1].ipam.pool.name=rail1", "network.rails[1].ipam.pool.per_node_block_size=4"};
  std::vector<std::string> overlapping = pool;
  overlapping.push_back("network.rails[1].ipam.pool.subnet=10.0.1.0/24");
  ExpectOnly(Check(kOpenShift, overlapping), "lint.subnet-overlap",
             "/network/rails/1/ipam/pool/subnet");
  std::vector<std::string> separate = pool;
  separate.push_back("network.rails[1].ipam.pool.subnet=10.0.2.0/24");
  ExpectClean(Check(kOpenShift, separate));
}

// --- NCCL ----------------------------------------------------------------------------------

TEST(Lint, CrossNicOnIsolatedRails) {
  ExpectOnly(Check(kOpenShift, {"nccl.cross_nic=2"}), "lint.cross-nic-isolated", "/nccl/cross_nic");
  ExpectOnly(Check(kOpenShift, {"workload.env.NCCL_CROSS_NIC=\"1\""}), "lint.cross-nic-isolated",
             "/workload/env/NCCL_CROSS_NIC");
  // A route to the other rail's subnet: not isolated, cross-NIC traffic can flow.
  ExpectClean(Check(kOpenShift, {"nccl.cross_nic=2", "network.rails[0].ipam.routes={10.0.0.0/16}",
                                 "network.rails[1].ipam.routes={10.0.0.0/16}"}));
  ExpectClean(Check(kOke, {"nccl.cross_nic=2"}));  // one rail
}

TEST(Lint, GpudirectAndDmabuf) {
  ExpectOnly(Check(kOpenShift, {"nccl.gpudirect=dmabuf", "workload.env.NCCL_DMABUF_ENABLE=\"0\""}),
             "lint.gpudirect-dmabuf", "/workload/env/NCCL_DMABUF_ENABLE");
  ExpectOnly(Check(kOpenShift, {"workload.env.NCCL_DMABUF_ENABLE=\"0\""}), "lint.gpudirect-dmabuf",
             "/workload/env/NCCL_DMABUF_ENABLE");
  ExpectOnly(
      Check(kOpenShift, {"nccl.gpudirect=nvidia-peermem", "workload.env.NCCL_DMABUF_ENABLE=\"1\""}),
      "lint.gpudirect-dmabuf", "/workload/env/NCCL_DMABUF_ENABLE");
  ExpectOnly(Check(kOpenShift, {"nccl.gpudirect=dmabuf", "nccl.gdr_level=LOC"}),
             "lint.gpudirect-dmabuf", "/nccl/gdr_level");
  ExpectClean(Check(kOpenShift,
                    {"nccl.gpudirect=nvidia-peermem", "workload.env.NCCL_DMABUF_ENABLE=\"0\""}));
  ExpectClean(Check(kOpenShift, {"nccl.gpudirect=dmabuf", "nccl.gdr_level=SYS"}));
}

TEST(Lint, NcclListThatExcludesEverything) {
  // The h-kim StatefulSet's "^mlx5_" meant as a regex: it excludes every HCA.
  ExpectOnly(Check(kOpenShift, {"workload.env.NCCL_IB_HCA=^mlx5_"}), "lint.nccl-list-excludes-all",
             "/workload/env/NCCL_IB_HCA");
  ExpectOnly(Check(kOpenShift, {"nccl.socket_ifname=^eth\\,net"}), "lint.nccl-list-excludes-all",
             "/nccl/socket_ifname");
  ExpectOnly(Check(kOpenShift, {"nccl.socket_ifname=eno5np0"}), "lint.nccl-list-excludes-all",
             "/nccl/socket_ifname");
  ExpectClean(Check(kOpenShift, {"nccl.socket_ifname=^lo\\,docker"}));
  ExpectClean(Check(kOpenShift, {"workload.env.NCCL_IB_HCA=^mlx5_0"}));
}

TEST(Lint, NcclListPrefixThatMatchesTooMuch) {
  ExpectOnly(Check(kOpenShift, {"workload.env.NCCL_IB_HCA=mlx5_1"}), "lint.nccl-list-prefix",
             "/workload/env/NCCL_IB_HCA", Severity::kWarning);
  ExpectOnly(Check(kOke, {"nccl.socket_ifname=net1"}), "lint.nccl-list-prefix",
             "/nccl/socket_ifname", Severity::kWarning);  // net10..net16 too
  ExpectClean(Check(kOpenShift, {"workload.env.NCCL_IB_HCA=mlx5_6\\,mlx5_7"}));
  ExpectClean(Check(kOpenShift, {"nccl.socket_ifname=net1"}));  // only net1, net2 exist
}

TEST(Lint, NcclVariableNamesNcclDoesNotRead) {
  // NCCL ignores a name it does not read; the table is NCCL's own (2.18-2.30).
  const DiagnosticSink typo = Check(kOpenShift, {"nccl.extra_env.NCCL_MAX_NCHANNELSS=16"});
  ExpectOnly(typo, "lint.nccl-env-name", "/nccl/extra_env/NCCL_MAX_NCHANNELSS",
             Severity::kWarning);
  EXPECT_NE(typo.diagnostics()[0].fix.find("did you mean NCCL_MAX_NCHANNELS?"), std::string::npos)
      << typo.diagnostics()[0].fix;
  // Removed in NCCL 2.5.6: read by none of the releases a training image carries.
  ExpectOnly(Check(kOpenShift, {"nccl.extra_env.NCCL_LL_THRESHOLD=0"}), "lint.nccl-env-name",
             "/nccl/extra_env/NCCL_LL_THRESHOLD", Severity::kWarning);
  ExpectClean(Check(kOpenShift, {"nccl.extra_env.NCCL_MAX_NCHANNELS=16"}));
  ExpectClean(Check(kOpenShift, {"nccl.extra_env.NCCL_NET_GDR_READ=1"}));
  ExpectClean(Check(kOpenShift, {"nccl.extra_env.NCCL_NVLS_ENABLE=0"}));
  ExpectClean(Check(kOpenShift, {"nccl.extra_env.UCX_TLS=rc"}));  // not NCCL's: not judged
}

TEST(Lint, RailsWithDifferentMtus) {
  // One rail at 1500 while the others carry 9000.
  ExpectOnly(Check(kOpenShift, {"network.rails[1].mtu_bytes=1500"}), "lint.rail-mtu-mismatch",
             "/network/rails/1/mtu_bytes", Severity::kWarning);
  ExpectClean(Check(kOpenShift, {"network.rails[0].mtu_bytes=4200", "network.rails[1].mtu_bytes=4200"}));
}

TEST(Lint, PinnedHcasAgainstRails) {
  ExpectOnly(Check(kOpenShift, {"nccl.ib_hca={mlx5_6}"}), "lint.hca-rails", "/nccl/ib_hca");
  // The stale February list on July's nodes.
  ExpectOnly(Check(kOpenShift, {"nccl.ib_hca={mlx5_6,mlx5_10}"}), "lint.hca-rails", "/nccl/ib_hca");
  ExpectOnly(Check(kOpenShift, {"workload.env.NCCL_IB_HCA==mlx5_6\\,mlx5_7\\,mlx5_8"}),
             "lint.hca-rails", "/workload/env/NCCL_IB_HCA");
  ExpectClean(Check(kOpenShift, {"nccl.ib_hca={mlx5_6,mlx5_7}"}));
}

// --- node ----------------------------------------------------------------------------------

TEST(Lint, GpusPerPodBelowGpusPerNode) {
  ExpectOnly(Check(kOpenShift, {"workload.gpus_per_pod=2"}), "lint.gpus-idle",
             "/workload/gpus_per_pod", Severity::kWarning);
  ExpectClean(Check(kOpenShift, {"workload.gpus_per_pod=4"}));
}

// Barcelona pinned host names to keep jobs off nodes with bad NIC firmware.
TEST(Lint, RailSubnetInsideThePlatformsOwnNetworks) {
  // A rail inside OpenShift's default pod network 10.128.0.0/14.
  ExpectOnly(Check(kOpenShift, {"network.rails[0].ipam.range=10.128.5.0/24"}),
             "lint.platform-network-overlap", "/network/rails/0/ipam/range", Severity::kWarning);
  ExpectOnly(Check(kOpenShift, {"network.rails[1].ipam.range=172.30.0.0/24"}),
             "lint.platform-network-overlap", "/network/rails/1/ipam/range", Severity::kWarning);
  ExpectClean(Check(kOpenShift, {"network.rails[0].ipam.range=10.132.0.0/24"}));
}

TEST(Lint, ExclusiveRdmaSwitchIsSaidNotInherited) {
  // The bundle's node policies bring the SriovNetworkPoolConfig (a reboot per node, other NADs
  // lose RDMA): the profile must say so.
  const std::string unsaid = test_files::Replace(kOpenShift, "  rdma_netns: exclusive\n", "");
  const std::vector<std::string> policies = {"operators.openshift_version='4.20'",
                                             "network.rails[0].interface=eno5np0",
                                             "network.rails[1].interface=eno6np0"};
  ExpectOnly(Check(unsaid.c_str(), policies), "lint.rdma-netns-switch", "/network",
             Severity::kWarning);
  for (const char* mode : {"exclusive", "shared"}) {
    std::vector<std::string> said = policies;
    said.push_back(std::string("network.rdma_netns=") + mode);
    ExpectClean(Check(unsaid.c_str(), said));
  }
}

TEST(Lint, NodeInBothIncludeAndExcludeLists) {
  const DiagnosticSink both = Check(
      kOpenShift, {"node_shape.include_nodes={u12,u25,u31}", "node_shape.exclude_nodes={u07,u25}"});
  ExpectOnly(both, "lint.node-lists-overlap", "/node_shape/exclude_nodes/1");
  if (!both.diagnostics().empty())
    EXPECT_NE(both.diagnostics()[0].message.find("'u25'"), std::string::npos);
  ExpectClean(Check(kOpenShift,
                    {"node_shape.include_nodes={u12,u31}", "node_shape.exclude_nodes={u07,u25}"}));
}

TEST(Lint, KueueFlavorMustNotTolerateTheHealthTaint) {
  const std::vector<std::string> kueue = {
      "scheduling.kueue.levels={topology.example.com/rack,kubernetes.io/hostname}",
      "node_shape.tolerations[0].operator=Exists"};
  ExpectOnly(Check(kOpenShift, kueue), "lint.kueue-tolerates-health-taint",
             "/node_shape/tolerations/0", Severity::kWarning);
  // Without scheduling the toleration is the workload's own business.
  ExpectClean(Check(kOpenShift, {"node_shape.tolerations[0].operator=Exists"}));
  ExpectClean(Check(kOpenShift, {kueue[0], "node_shape.tolerations[0].key=nvidia.com/gpu",
                                 "node_shape.tolerations[0].operator=Exists"}));
}

TEST(Lint, PeriodicNodesIsDeprecatedTheCoordinatorListsThePool) {
  const DiagnosticSink stated = Check(kOke, {"fabric_health.periodic.nodes=12"});
  ExpectOnly(stated, "lint.deprecated-periodic-nodes", "/fabric_health/periodic/nodes",
             Severity::kNote);
  if (!stated.diagnostics().empty())
    EXPECT_NE(stated.diagnostics()[0].message.find("lists the pool's nodes"), std::string::npos);
  ExpectClean(Check(kOke, {}));
}

TEST(Lint, IncludeNodesFewerThanReplicasLeavesPodsPending) {
  // Two replicas, one pod per node: one listed node is not enough, nor two with one excluded.
  const DiagnosticSink few = Check(kOpenShift, {"node_shape.include_nodes={u12}"});
  ExpectOnly(few, "lint.include-nodes-too-few", "/node_shape/include_nodes");
  if (!few.diagnostics().empty())
    EXPECT_NE(few.diagnostics()[0].message.find("1 pod(s) stay Pending"), std::string::npos);
  const DiagnosticSink excluded = Check(
      kOpenShift, {"node_shape.include_nodes={u12,u25}", "node_shape.exclude_nodes={u25}"});
  ASSERT_EQ(excluded.diagnostics().size(), 2u);  // and lint.node-lists-overlap
  ExpectClean(Check(kOpenShift, {"node_shape.include_nodes={u12,u25}"}));
  ExpectClean(Check(kOpenShift, {"node_shape.exclude_nodes={u12,u25}"}));  // no include list
}

TEST(Lint, RdmaWithoutIommuPassthrough) {
  ExpectOnly(Check(kOpenShift, {"iommu.policy=skip"}), "lint.iommu-rdma", "/iommu/policy");
  ExpectClean(Check(kOpenShift, {"iommu.policy=already-configured"}));
  ExpectClean(Check(kOpenShift, {"iommu.policy=skip", "workload.mode=tcp", "network.rails=null"}));
}

TEST(Lint, IommuKernelArgumentsMatchTheCpuVendor) {
  ExpectOnly(
      Check(kOpenShift, {"node_shape.name=barcelona-h100-cx7", "node_shape.cpu_vendor=intel"}),
      "lint.iommu-vendor", "/node_shape/cpu_vendor");
  ExpectClean(Check(kOpenShift, {"node_shape.name=barcelona-h100-cx7"}));  // amd
  ExpectClean(
      Check(kOpenShift, {"node_shape.name=barcelona-h100-cx7", "node_shape.cpu_vendor=intel",
                         "iommu.policy=already-configured"}));
}

// --- security ------------------------------------------------------------------------------

TEST(Lint, PrivilegedNamesTheSaferScc) {
  DiagnosticSink sink = Check(kOpenShift, {"security.memlock_strategy=privileged"});
  ExpectOnly(sink, "lint.privileged", "/security/memlock_strategy", Severity::kWarning);
  EXPECT_NE(sink.diagnostics()[0].fix.find("sys-resource-scc"), std::string::npos);
  EXPECT_NE(sink.diagnostics()[0].fix.find("IPC_LOCK and SYS_RESOURCE"), std::string::npos);
  ExpectClean(Check(kOpenShift, {"security.memlock_strategy=crio-ulimits"}));
}

TEST(Lint, MemlockStrategyThatCannotLiftMemlock) {
  ExpectOnly(Check(kOpenShift, {"security.run_as_user=1000"}), "lint.memlock-uid",
             "/security/run_as_user");
  ExpectClean(
      Check(kOpenShift, {"security.run_as_user=1000", "security.memlock_strategy=crio-ulimits"}));
}

TEST(Lint, MemlockStrategyWithoutAUid) {
  ExpectOnly(Check(kOpenShift, {"security.run_as_user=null"}), "lint.memlock-uid-unset",
             "/security/memlock_strategy", Severity::kWarning);
  ExpectClean(
      Check(kOpenShift, {"security.run_as_user=null", "security.memlock_strategy=crio-ulimits"}));
}

TEST(Lint, LatestImageTags) {
  ExpectOnly(Check(kOpenShift, {"workload.image=quay.io/x/train:latest"}), "lint.image-latest",
             "/workload/image", Severity::kWarning);
  ExpectOnly(Check(kOpenShift, {"wrapper.image=localhost:5000/hkim-wrapper"}), "lint.image-latest",
             "/wrapper/image", Severity::kWarning);
  ExpectClean(Check(kOpenShift, {"workload.image=quay.io/x/train@sha256:0123abcd"}));
  // The wrapper's fix names its digest form and where the digest comes from.
  const DiagnosticSink wrapper = Check(kOpenShift, {"wrapper.image=quay.io/x/wrapper:latest"});
  ExpectOnly(wrapper, "lint.image-latest", "/wrapper/image", Severity::kWarning);
  EXPECT_NE(wrapper.diagnostics()[0].fix.find("@sha256:<64 hex>"), std::string::npos);
  EXPECT_NE(wrapper.diagnostics()[0].fix.find("scripts/build-image.sh"), std::string::npos);
  EXPECT_NE(wrapper.diagnostics()[0].fix.find("wrapper.digest: sha256:"), std::string::npos);
  EXPECT_NE(wrapper.diagnostics()[0].fix.find("--wrapper-digest"), std::string::npos);
  // A digest (profile or render --wrapper-digest) pins even a latest tag.
  ExpectClean(Check(kOpenShift, {"wrapper.image=quay.io/x/wrapper:latest",
                                 "wrapper.digest=sha256:" + std::string(64, 'a')}));
  const std::string digest = "@sha256:" + std::string(64, 'a');
  ExpectClean(Check(kOpenShift, {std::string("wrapper.image=quay.io/hkim/hkim-wrapper:") +
                                 WrapperImageVersion() + digest}));
}

TEST(Lint, ImagesPinnedByDigest) {
  // The workload and wrapper images by tag: one cause, one finding, at the first image, naming
  // each image and its line, with one way to pin them all.
  const DiagnosticSink tags = Only(Check(kOpenShift, {}, true), "lint.image-digest");
  ASSERT_EQ(tags.diagnostics().size(), 1u) << Dump(tags);
  const Diagnostic& both = tags.diagnostics()[0];
  EXPECT_EQ(both.severity, Severity::kWarning);
  EXPECT_EQ(both.data_path, "/workload/image");
  EXPECT_EQ(both.location.line, 29);
  EXPECT_EQ(both.message,
            "2 images are pulled by a tag, not by a digest: the registry can move a tag, so "
            "nodes that pull at different times may run different builds: workload image "
            "'quay.io/x/train:1' (lab.yaml:29); wrapper image 'quay.io/x/wrapper:1' (lab.yaml:34)");
  EXPECT_NE(both.fix.find("--image-digest IMAGE=sha256:<64 hex> for each"), std::string::npos);
  EXPECT_NE(both.fix.find("skopeo inspect --format '{{.Digest}}' docker://IMAGE"),
            std::string::npos);
  EXPECT_NE(both.fix.find("wrapper.digest"), std::string::npos);
  EXPECT_LT(both.fix.size(), 400u) << both.fix;

  // One image by tag: the finding names how to pin that one.
  const std::string pinned = "sha256:" + std::string(64, 'c');
  const DiagnosticSink one = Only(
      Check(kOpenShift, {"wrapper.digest=" + pinned}, true), "lint.image-digest");
  ASSERT_EQ(one.diagnostics().size(), 1u) << Dump(one);
  const Diagnostic& workload = one.diagnostics()[0];
  EXPECT_EQ(workload.data_path, "/workload/image");
  EXPECT_EQ(workload.message,
            "workload image 'quay.io/x/train:1' (lab.yaml:29) is pulled by the tag 1, not by a "
            "digest: the registry can move a tag, so nodes that pull at different times may "
            "run different builds");
  EXPECT_NE(workload.fix.find("quay.io/x/train:1@sha256:<64 hex>"), std::string::npos);
  EXPECT_NE(workload.fix.find("--image-digest quay.io/x/train:1=sha256:<64 hex>"),
            std::string::npos);
  EXPECT_NE(workload.fix.find("skopeo inspect --format '{{.Digest}}' docker://quay.io/x/train:1"),
            std::string::npos);

  // Pinned in the profile, by wrapper.digest, or by images.digests (render --image-digest).
  const std::string digest = "sha256:" + std::string(64, 'c');
  ExpectClean(Only(
      Check(kOpenShift,
            {"workload.image=quay.io/x/train:1@" + digest, "wrapper.digest=" + digest}, true),
      "lint.image-digest"));
  ExpectClean(Only(Check(kOpenShift,
                             {"images.digests.quay\\.io/x/train:1=" + digest,
                              "images.digests.quay\\.io/x/wrapper:1=" + digest},
                             true),
                       "lint.image-digest"));

  // :latest or no tag is lint.image-latest's alone: one image, one finding.
  const DiagnosticSink latest = Check(
      kOpenShift, {"workload.image=quay.io/x/train:latest", "wrapper.digest=" + digest}, true);
  ExpectClean(Only(latest, "lint.image-digest"));
  ExpectOnly(Only(latest, "lint.image-latest"), "lint.image-latest", "/workload/image",
             Severity::kWarning);

  // A default image (the OKE VF DaemonSet's oraclelinux:9) is reported where it could be set.
  const DiagnosticSink oke = Only(
      Check(kOke,
            {"workload.image=quay.io/x/train:1@" + digest, "wrapper.digest=" + digest,
             "operators.vf_config.install=managed",
             // the NicClusterPolicy's images: a digest as their version pins them
             "network.sriov_device_plugin.version=" + digest, "network.nv_ipam.version=" + digest,
             "node_shape.selinux=permissive"},  // no lint.node-agent-privileged note
            true),
      "lint.image-digest");
  ExpectOnly(oke, "lint.image-digest", "/operators/vf_config/image", Severity::kWarning);
  ASSERT_FALSE(oke.diagnostics().empty());
  EXPECT_NE(oke.diagnostics()[0].message.find("'docker.io/library/oraclelinux:9' (the default, "),
            std::string::npos)
      << Dump(oke);
}

TEST(Lint, WrapperImageOfAnotherVersion) {
  const DiagnosticSink old = Check(kOpenShift, {"wrapper.image=quay.io/hkim/hkim-wrapper:0.0.9"});
  ExpectOnly(old, "lint.wrapper-image-version", "/wrapper/image", Severity::kWarning);
  EXPECT_NE(old.diagnostics()[0].fix.find(std::string("quay.io/hkim/hkim-wrapper:") +
                                          WrapperImageVersion()),
            std::string::npos);
  ExpectClean(Check(kOpenShift, {std::string("wrapper.image=mirror.local/hkim/hkim-wrapper:") +
                                 WrapperImageVersion()}));
  // Another project's image is not ours to judge.
  ExpectClean(Check(kOpenShift, {"wrapper.image=quay.io/x/wrapper:0.0.9"}));
  // A digest pins the bytes, not the contract: another version still warns.
  ExpectOnly(Check(kOpenShift, {"wrapper.image=mirror.local/hkim-wrapper:0.0.9",
                                "wrapper.digest=sha256:" + std::string(64, 'b')}),
             "lint.wrapper-image-version", "/wrapper/image", Severity::kWarning);
}

// Placeholders that only fail on the cluster.
TEST(Lint, RepoUrlLeftAtAPlaceholder) {
  for (const char* url : {"https://git.example.com/platform/gpu-bundles.git",  // hkimgen init
                          "https://github.com/<org>/bundles.git", "git@example.org:lab/b.git",
                          "ssh://git@gitlab.test:2222/lab/b.git", "https://localhost/lab/b.git",
                          "https://github.com/example/bundles.git",
                          "https://github.com/lab/CHANGE-ME.git"}) {
    const DiagnosticSink sink = Check(kOpenShift, {std::string("gitops.repo_url=") + url});
    ExpectOnly(sink, "lint.repo-url-placeholder", "/gitops/repo_url", Severity::kWarning);
    if (sink.diagnostics().empty()) continue;
    EXPECT_NE(sink.diagnostics()[0].message.find("repository not found"), std::string::npos);
    EXPECT_NE(sink.diagnostics()[0].message.find("Unknown"), std::string::npos);
    EXPECT_NE(sink.diagnostics()[0].fix.find("out/lab"), std::string::npos);
  }
  for (const char* url : {"https://github.com/lab/bundles.git", "git@gitlab.corp.net:ml/b.git",
                          "ssh://git@git.examples.io/lab/b.git",
                          "https://github.com/hkim/hkimgen-bundles.git"}) {
    ExpectClean(Check(kOpenShift, {std::string("gitops.repo_url=") + url}));
  }
}

TEST(Lint, WrapperImageNobodyCanPublish) {
  const std::string version = WrapperImageVersion();
  const DiagnosticSink example =
      Check(kOpenShift, {"wrapper.image=registry.example.internal/hkim/hkim-wrapper:" + version});
  ExpectOnly(example, "lint.wrapper-image-unpublished", "/wrapper/image", Severity::kWarning);
  if (!example.diagnostics().empty()) {
    const Diagnostic& d = example.diagnostics()[0];
    EXPECT_NE(d.message.find("ImagePullBackOff"), std::string::npos);
    EXPECT_NE(d.message.find("Pending"), std::string::npos);
    EXPECT_NE(d.fix.find("skopeo copy --preserve-digests"), std::string::npos);
    EXPECT_NE(d.fix.find("wrapper.digest"), std::string::npos);
  }
  // A digest does not make an example registry reachable.
  ExpectOnly(Check(kOpenShift, {"wrapper.image=registry.example.internal/hkim/hkim-wrapper:" +
                                    version,
                                "wrapper.digest=sha256:" + std::string(64, 'c')}),
             "lint.wrapper-image-unpublished", "/wrapper/image", Severity::kWarning);
  ExpectOnly(Check(kOpenShift, {"wrapper.image=quay.io/change-me/hkim-wrapper:" + version}),
             "lint.wrapper-image-unpublished", "/wrapper/image", Severity::kWarning);
  for (const std::string image : {"quay.io/hkim/hkim-wrapper:", "mirror.lab.net/hkim/hkim-wrapper:",
                                  "localhost:5000/hkim/hkim-wrapper:"}) {
    ExpectClean(Check(kOpenShift, {"wrapper.image=" + image + version}));
  }
}

// The live nccl-rdma-scc lists other teams' service accounts.
TEST(Lint, SccNotNamedAfterTheClusterIsATakeOver) {
  const DiagnosticSink adopted = Check(kOpenShift, {"security.scc_name=nccl-rdma-scc"});
  ExpectOnly(adopted, "lint.scc-adopted", "/security/scc_name", Severity::kWarning);
  EXPECT_NE(adopted.diagnostics()[0].fix.find("-nccl-rdma"), std::string::npos);
  ExpectClean(Check(kOpenShift, {}));
}

// Every shipped profile and base names the image this tree builds (scripts/build-image.sh).
TEST(Lint, ShippedProfilesNameThisVersionsWrapperImage) {
  const std::regex image(R"(\n  image: (\S*hkim-wrapper\S*)\n)");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(HKIM_SOURCE_DIR) / "profiles")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::smatch match;
    if (!std::regex_search(text, match, image)) continue;
    EXPECT_EQ(match[1].str(), std::string("quay.io/hkim/hkim-wrapper:") + WrapperImageVersion())
        << entry.path();
  }
}

// --- several faults ------------------------------------------------------------------------

// --- operators ---------------------------------------------------------------------------

// The lab profiles with every operator managed (defaults), rails on real PFs.
const std::string kOpenShiftOps = std::string(kOpenShift) +
                                  "operators:\n  openshift_version: \"4.19\"\n";
const std::vector<std::string> kInterfaces = {"network.rails[0].interface=ens1f0",
                                              "network.rails[1].interface=ens2f0"};
const std::string kOkeOps = std::string(kOke) + "operators: {}\n";

std::vector<std::string> With(std::vector<std::string> sets, const std::string& more) {
  sets.push_back(more);
  return sets;
}

TEST(Lint, OperatorBasesAreClean) {
  ExpectClean(Check(kOpenShiftOps.c_str(), kInterfaces));
  ExpectClean(Check(kOkeOps.c_str(), {}));
}

// CRI-O in short-name enforcing mode refuses an image without a registry host.
TEST(Lint, ShortImageNamesAreRefusedWithTheQualifiedName) {
  const DiagnosticSink vf = Check(kOkeOps.c_str(), {"operators.vf_config.image=oraclelinux:9"});
  ExpectOnly(vf, "lint.image-short-name", "/operators/vf_config/image");
  if (!vf.diagnostics().empty()) {
    EXPECT_NE(vf.diagnostics()[0].fix.find("docker.io/library/oraclelinux:9"), std::string::npos);
  }
  // A path without a host: Docker Hub's org form.
  const DiagnosticSink workload = Check(kOpenShift, {"workload.image=pytorch/pytorch:2.3.0"});
  ExpectOnly(workload, "lint.image-short-name", "/workload/image");
  if (!workload.diagnostics().empty()) {
    EXPECT_NE(workload.diagnostics()[0].fix.find("docker.io/pytorch/pytorch:2.3.0"),
              std::string::npos);
  }
  ExpectOnly(Check(kOke, {"network.sriov_device_plugin.repository=mellanox"}),
             "lint.image-short-name", "/network/sriov_device_plugin/repository");
  ExpectOnly(Check(kOpenShiftOps.c_str(),
                   With(kInterfaces, "operators.nfd.operand_image=node-feature-discovery:v4.19")),
             "lint.image-short-name", "/operators/nfd/operand_image");
  // Qualified: a host with a dot, a port, or localhost; the default VF image is qualified.
  ExpectClean(Check(kOkeOps.c_str(), {"operators.vf_config.image=docker.io/library/oraclelinux:9"}));
  ExpectClean(Check(kOkeOps.c_str(), {"operators.vf_config.image=localhost/oraclelinux:9"}));
  ExpectClean(Check(kOke, {"workload.image=registry:5000/train:1"}));
  ExpectClean(Check(kOkeOps.c_str(), {}));  // the default VF image is qualified
}

TEST(Lint, NadResourceProducer) {
  // No interface: no policy can select the PF, nothing produces the rail's resource.
  ExpectOnly(Check(kOpenShiftOps.c_str(), {"network.rails[1].interface=ens2f0"}),
             "lint.nad-resource-producer", "/network/rails/0");
  // Two rails on one PF: only one policy takes effect.
  ExpectOnly(Check(kOpenShiftOps.c_str(), {"network.rails[0].interface=ens1f0",
                                           "network.rails[1].interface=ens1f0"}),
             "lint.nad-resource-producer", "/network/rails/1/interface");
  // Policies on nodes the pods do not select.
  ExpectOnly(Check(kOpenShiftOps.c_str(),
                   With(kInterfaces, "operators.sriov_network_operator.node_selector.rack=r1")),
             "lint.nad-resource-producer", "/operators/sriov_network_operator/node_selector/rack");
  // Policies rendered elsewhere: nothing to check.
  ExpectClean(Check(kOpenShiftOps.c_str(),
                    {"operators.sriov_network_operator.node_policies=false"}));
}

TEST(Lint, VfsPerPf) {
  const auto two_vfs = With(With(kInterfaces, "network.rails[0].attachments_per_pod=2"),
                            "node_shape.nics_per_node=3");
  ExpectOnly(Check(kOpenShiftOps.c_str(), two_vfs), "lint.vfs-per-pf",
             "/operators/sriov_network_operator/num_vfs_per_pf");
  ExpectClean(Check(kOpenShiftOps.c_str(),
                    With(two_vfs, "operators.sriov_network_operator.num_vfs_per_pf=2")));
}

TEST(Lint, DeviceIdNic) {
  // BM.GPU.H100.8 has ConnectX-7 (PF 1021): its VFs are 101e, not ConnectX-5 Ex's 101a.
  const std::vector<std::string> h100 = {"node_shape.topology.preset=BM.GPU.H100.8"};
  ExpectOnly(Check(kOkeOps.c_str(), With(h100, "network.sriov_device_plugin.device_ids[0]=101a")),
             "lint.device-id-nic", "/network/sriov_device_plugin/device_ids");
  ExpectClean(Check(kOkeOps.c_str(), h100));
}

TEST(Lint, GpuOperatorRdma) {
  // The wrapper expects nvidia-peermem; the operator was told DMA-BUF.
  ExpectOnly(Check(kOpenShiftOps.c_str(), With(With(kInterfaces, "nccl.gpudirect=nvidia-peermem"),
                                               "operators.gpu_operator.rdma=dmabuf")),
             "lint.gpu-operator-rdma", "/operators/gpu_operator/rdma");
  ExpectClean(Check(kOpenShiftOps.c_str(), With(kInterfaces, "nccl.gpudirect=nvidia-peermem")));
  // DMA-BUF with the proprietary module, or with an R550 driver and no kernelModuleType.
  const auto dmabuf = With(kInterfaces, "nccl.gpudirect=dmabuf");
  ExpectOnly(Check(kOpenShiftOps.c_str(),
                   With(dmabuf, "operators.gpu_operator.driver.kernel_module_type=proprietary")),
             "lint.gpu-operator-rdma", "/operators/gpu_operator/driver/kernel_module_type");
  // v24.9.2 declares OpenShift 4.12-4.17 (lint.operator-release otherwise).
  ExpectOnly(Check(kOpenShiftOps.c_str(),
                   With(With(With(dmabuf, "operators.gpu_operator.version=v24.9.2"),
                             "operators.gpu_operator.driver.branch=550"),
                        "operators.openshift_version=\"4.17\"")),
             "lint.gpu-operator-rdma", "/operators/gpu_operator/version");
  ExpectClean(Check(kOpenShiftOps.c_str(), With(dmabuf, "operators.gpu_operator.driver.branch=550")));
}

TEST(Lint, OperatorVersion) {
  // Older than v24.9: only reachable with a version accepted outside the catalog.
  DiagnosticSink old = Check(kOkeOps.c_str(), {"operators.gpu_operator.version=v23.9.1",
                                               "operators.gpu_operator.accept_unlisted_version="
                                               "the add-on of an old region"});
  ASSERT_EQ(old.diagnostics().size(), 2u) << Dump(old);
  EXPECT_EQ(old.diagnostics()[0].rule + " " + old.diagnostics()[1].rule,
            "lint.operator-release-unlisted lint.operator-version")
      << Dump(old);
  ExpectOnly(Check(kOkeOps.c_str(), {"operators.gpu_operator.version=v24.9.2",
                                     "operators.gpu_operator.driver.kernel_module_type=open"}),
             "lint.operator-version", "/operators/gpu_operator/driver/kernel_module_type");
  // NFD's operand image needs the OpenShift version.
  ExpectOnly(Check((std::string(kOpenShift) + "operators: {}\n").c_str(), kInterfaces),
             "lint.operator-version", "/operators");
  ExpectClean(Check(kOkeOps.c_str(), {"operators.network_operator.version=v24.10.0"}));
}

// Kueue and Volcano are release lines of the catalog too: a typo'd version is refused with the
// closest release, a listed tag or chart version passes.
TEST(Lint, KueueAndVolcanoReleasesOutsideTheCatalogAreErrors) {
  DiagnosticSink sink = Check(kOkeOps.c_str(), {"operators.volcano.version=1.15.9"});
  ExpectOnly(sink, "lint.operator-release", "/operators/volcano/version");
  EXPECT_EQ(sink.diagnostics()[0].fix.rfind("did you mean v1.15.", 0), 0u)
      << sink.diagnostics()[0].fix;
  ExpectClean(Check(kOkeOps.c_str(), {"operators.volcano.version=1.15.1"}));
  ExpectClean(Check(kOkeOps.c_str(), {"operators.volcano.version=v1.14.4"}));
  sink = Check(kOkeOps.c_str(), {"operators.kueue.version=v0.19.9"});
  bool refused = false;
  for (const Diagnostic& d : sink.diagnostics())
    refused |= d.rule == "lint.operator-release" && d.data_path == "/operators/kueue/version" &&
               d.message.find("Kueue v0.19.9 is not in hkimgen's release catalog") != std::string::npos;
  EXPECT_TRUE(refused);
}

TEST(Lint, OperatorReleaseOutsideTheCatalogIsAnErrorWithTheKnownList) {
  DiagnosticSink sink = Check(kOkeOps.c_str(), {"operators.gpu_operator.version=v99.1.0"});
  ExpectOnly(sink, "lint.operator-release", "/operators/gpu_operator/version");
  EXPECT_NE(sink.diagnostics()[0].message.find("not in hkimgen's release catalog"),
            std::string::npos);
  EXPECT_NE(sink.diagnostics()[0].fix.find("v25.10.1, v26.3.0"), std::string::npos)
      << sink.diagnostics()[0].fix;
  // A near miss names the closest release.
  sink = Check(kOkeOps.c_str(), {"operators.gpu_operator.version=v25.10.2"});
  ExpectOnly(sink, "lint.operator-release", "/operators/gpu_operator/version");
  EXPECT_EQ(sink.diagnostics()[0].fix.rfind("did you mean v25.10.", 0), 0u)
      << sink.diagnostics()[0].fix;
  ExpectOnly(Check(kOkeOps.c_str(), {"operators.network_operator.version=v23.10.0"}),
             "lint.operator-release", "/operators/network_operator/version");
  ExpectOnly(Check(kOkeOps.c_str(), {"operators.network_operator.version=v26.7.0"}),
             "lint.operator-release", "/operators/network_operator/version");
  // On OpenShift too: the CSV would be guessed.
  ExpectOnly(Check(kOpenShiftOps.c_str(), With(kInterfaces, "operators.gpu_operator.version="
                                                            "v99.1.0")),
             "lint.operator-release", "/operators/gpu_operator/version");
}

TEST(Lint, OperatorReleaseAcceptedOutsideTheCatalogIsAWarningNamingTheReason) {
  DiagnosticSink sink = Check(kOkeOps.c_str(), {"operators.gpu_operator.version=v26.9.0",
                                                "operators.gpu_operator.accept_unlisted_version="
                                                "vendor hotfix build"});
  ExpectOnly(sink, "lint.operator-release-unlisted", "/operators/gpu_operator/version",
             Severity::kWarning);
  EXPECT_NE(sink.diagnostics()[0].message.find("\"vendor hotfix build\""), std::string::npos);
  EXPECT_NE(sink.diagnostics()[0].message.find("-o imageset"), std::string::npos);
}

TEST(Lint, OperatorReleaseMustDeclareTheProfilesOpenShift) {
  // v26.7.0 declares OpenShift 4.18-4.22; the profile says 4.17.
  ExpectOnly(Check(kOpenShiftOps.c_str(), With(With(kInterfaces, "operators.gpu_operator.version="
                                                                 "v26.7.0"),
                                               "operators.openshift_version=\"4.17\"")),
             "lint.operator-release", "/operators/gpu_operator/version");
  ExpectClean(Check(kOpenShiftOps.c_str(),
                    With(kInterfaces, "operators.gpu_operator.version=v26.7.0")));
}

TEST(Lint, OperatorPlatform) {
  ExpectOnly(Check(kOkeOps.c_str(), {"operators.nfd.install=managed"}), "lint.operator-platform",
             "/operators/nfd");
  ExpectOnly(Check(kOpenShiftOps.c_str(),
                   With(kInterfaces, "operators.gpu_operator.repo_url=https://example.com/charts")),
             "lint.operator-platform", "/operators/gpu_operator/repo_url");
  ExpectOnly(Check(kOkeOps.c_str(), {"operators.gpu_operator.channel=stable"}),
             "lint.operator-platform", "/operators/gpu_operator/channel");
}

TEST(Lint, InstallPlanManualIsAWarning) {
  ExpectOnly(Check(kOpenShiftOps.c_str(),
                   With(kInterfaces, "operators.gpu_operator.install_plan_approval=Manual")),
             "lint.install-plan-manual", "/operators/gpu_operator/install_plan_approval",
             Severity::kWarning);
  // A preinstalled operator has no Subscription in the bundle.
  ExpectClean(Check(kOpenShiftOps.c_str(),
                    With(With(kInterfaces, "operators.gpu_operator.install_plan_approval=Manual"),
                         "operators.gpu_operator.install=preinstalled")));
}

TEST(Lint, PrivilegedVfConfigIsAWarningWhereSelinuxDoesNotNeedIt) {
  ExpectOnly(Check(kOkeOps.c_str(), {"operators.vf_config.privileged=true", "node_shape.selinux=permissive"}),
             "lint.vf-config-privileged", "/operators/vf_config/privileged", Severity::kWarning);
  // Under enforcing the agents run privileged anyway: the note says so, not this warning.
  ExpectClean(Check(kOkeOps.c_str(), {"operators.vf_config.privileged=true"}));
}


TEST(Lint, NodeAgentsPrivilegedUnderSelinuxEnforcingIsANoteNamingEach) {
  const std::string rule = "lint.node-agent-privileged";
  for (const char* set : {"", "node_shape.selinux=enforcing"}) {
    std::vector<std::string> sets;
    if (*set) sets.push_back(set);
    const DiagnosticSink notes = Only(Check(kOkeOps.c_str(), sets, true), rule);
    ExpectOnly(notes, rule, "/node_shape/selinux", Severity::kNote);
    const Diagnostic& d = notes.diagnostics()[0];
    for (const char* agent : {"-vf-config (writes sriov_numvfs", "-sriov-cni and", "-rdma-cni (copy"})
      EXPECT_NE(d.message.find(agent), std::string::npos) << d.message;
    EXPECT_NE(d.message.find(*set ? "is enforcing" : "unstated, taken as enforcing"), std::string::npos);
    EXPECT_NE(d.fix.find("node_shape.selinux: permissive"), std::string::npos);
  }
  for (const char* mode : {"permissive", "disabled"})
    ExpectClean(Only(Check(kOkeOps.c_str(), {std::string("node_shape.selinux=") + mode}, true), rule));
  // OpenShift bundles render no node agents: nothing to say.
  ExpectClean(Only(Check(kOpenShiftOps.c_str(), {}, true), rule));
}

TEST(Lint, SharedVfConfigIsAWarning) {
  // The VF DaemonSet is per node pool: sharing it leaves this shape without VFs.
  ExpectOnly(Check(kOkeOps.c_str(), {"operators.vf_config.install=shared"}),
             "lint.vf-config-shared", "/operators/vf_config/install", Severity::kWarning);
  ExpectClean(Check(kOkeOps.c_str(), {"operators.vf_config.install=preinstalled"}));
  ExpectClean(Check(kOkeOps.c_str(), {"operators.network_operator.install=shared",
                                      "operators.gpu_operator.install=shared"}));
}

TEST(Lint, EveryFaultOfABrokenProfileIsReportedOnce) {
  DiagnosticSink sink =
      Check(kOpenShift, {"nccl.cross_nic=2", "workload.env.NCCL_IB_HCA=^mlx5_", "iommu.policy=skip",
                         "workload.gpus_per_pod=8", "security.memlock_strategy=privileged"});
  std::multiset<std::string> rules;
  for (const Diagnostic& d : sink.diagnostics()) rules.insert(d.rule);
  EXPECT_EQ(rules, (std::multiset<std::string>{"lint.cross-nic-isolated", "lint.iommu-rdma",
                                               "lint.nccl-list-excludes-all", "lint.privileged",
                                               "model.gpus-per-pod"}))
      << Dump(sink);
  EXPECT_EQ(sink.ErrorCount(), 4);
}

// tests/generator/lint_cases/*.yaml: broken profiles (some layered over base/) whose
// `# expect: RULE FILE:LINE:COL` lines list every diagnostic they must produce, and no other.
TEST(LintCases, EachCaseReportsExactlyItsExpectedFaults) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(HKIM_SOURCE_DIR) / "tests/generator/lint_cases";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_GE(cases.size(), 4u);
  static const std::regex kExpect(R"(^# expect: (\S+) (\S+)$)");
  for (const fs::path& file : cases) {
    std::multiset<std::string> expected, actual;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_match(line, m, kExpect)) expected.insert(m[1].str() + " " + m[2].str());
    }
    ASSERT_FALSE(expected.empty()) << file;
    DiagnosticSink sink;
    CheckLayeredProfile(LayerInputs{file.string(), {}, {}}, sink);
    for (const Diagnostic& d : sink.diagnostics()) {
      EXPECT_FALSE(d.fix.empty()) << file << ": " << d.rule;
      // The cases name their images by tag; lint.image-digest has its own tests (as in Check).
      if (d.rule == "lint.image-digest") continue;
      actual.insert(d.rule + " " + fs::relative(d.location.file, dir).generic_string() + ":" +
                    std::to_string(d.location.line) + ":" + std::to_string(d.location.column));
    }
    EXPECT_EQ(actual, expected) << file;
  }
}

TEST(Lint, WorkerPoolRebootsEveryWorkerIsANote) {
  const std::string rule = "lint.worker-pool-reboots";
  // passthrough renders the IOMMU MachineConfig for role worker (the default): every worker
  // reboots, CPU nodes included; said where the role is (or could be) written.
  const DiagnosticSink worker = Only(Check(kOpenShift, {}, true), rule);
  ExpectOnly(worker, rule, "/iommu/machine_config_role", Severity::kNote);
  ASSERT_FALSE(worker.diagnostics().empty());
  EXPECT_NE(worker.diagnostics()[0].message.find("(the default)"), std::string::npos);
  EXPECT_NE(worker.diagnostics()[0].message.find("CPU nodes included"), std::string::npos);
  EXPECT_NE(worker.diagnostics()[0].fix.find("iommu.machine_config_role: gpu"), std::string::npos);
  EXPECT_NE(worker.diagnostics()[0].fix.find("MachineConfigPool lab-gpu"), std::string::npos);
  // A GPU pool of its own, no MachineConfig at all, or OKE: nothing to say.
  ExpectClean(Only(Check(kOpenShift, {"iommu.machine_config_role=h100"}, true), rule));
  ExpectClean(Only(Check(kOpenShift, {"iommu.policy=already-configured"}, true), rule));
  ExpectClean(Only(Check(kOpenShift, {"iommu.already_set={iommu=pt}"}, true), rule));
  ExpectClean(Only(Check(kOke, {}, true), rule));
  // CRI-O's memlock MachineConfig goes to the pool too.
  ExpectOnly(Only(Check(kOpenShift,
                        {"iommu.policy=already-configured", "security.memlock_strategy=crio-ulimits",
                         "security.run_as_user=null"},
                        true),
                  rule),
             rule, "/iommu/machine_config_role", Severity::kNote);
}

TEST(Lint, GpuOperatorOfAnEndOfSupportLineIsAWarningOffline) {
  const std::string rule = "lint.gpu-operator-support";
  // The catalog's life-cycle table marks v25.10 end-of-support; the bundle installs it.
  const DiagnosticSink old =
      Only(Check(kOkeOps.c_str(), {"operators.gpu_operator.version=v25.10.1"}, true), rule);
  ExpectOnly(old, rule, "/operators/gpu_operator/version", Severity::kWarning);
  ASSERT_FALSE(old.diagnostics().empty());
  EXPECT_NE(old.diagnostics()[0].message.find("GPU Operator v25.10.1, whose line NVIDIA no "
                                                "longer supports"),
            std::string::npos)
      << Dump(old);
  const std::optional<GpuOperatorRelease> newest = NewestSupportedGpuOperatorRelease("");
  ASSERT_TRUE(newest);
  EXPECT_NE(old.diagnostics()[0].fix.find("set operators.gpu_operator.version: " +
                                          newest->version),
            std::string::npos)
      << old.diagnostics()[0].fix;
  // The default release is said to be the default.
  const DiagnosticSink unset = Only(Check(kOkeOps.c_str(), {}, true), rule);
  ExpectOnly(unset, rule, "/operators/gpu_operator/version", Severity::kWarning);
  // A supported line, or one the cluster's admins install (validate --cluster notes it).
  ExpectClean(Only(Check(kOkeOps.c_str(), {"operators.gpu_operator.version=" + newest->version},
                         true),
                   rule));
  ExpectClean(Only(Check(kOkeOps.c_str(), {"operators.gpu_operator.version=v25.10.1",
                                           "operators.gpu_operator.install=preinstalled"},
                         true),
                   rule));
}

TEST(NcclNameList, ParsesExcludeExactAndPorts) {
  NcclNameList l = ParseNcclNameList("^=mlx5_0:1,mlx5_1");
  EXPECT_TRUE(l.exclude);
  EXPECT_TRUE(l.exact);
  EXPECT_EQ(l.names, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_FALSE(l.Matches("mlx5_10"));
  EXPECT_TRUE(ParseNcclNameList("mlx5_1").Matches("mlx5_10"));
}

TEST(Cidr, ParsesAndOverlaps) {
  auto a = ParseCidr("10.0.103.0/24");
  auto b = ParseCidr("10.0.0.0/16");
  auto c = ParseCidr("10.0.104.7/24");
  ASSERT_TRUE(a && b && c);
  EXPECT_TRUE(a->Overlaps(*b));
  EXPECT_FALSE(a->Overlaps(*c));
  EXPECT_EQ(a->Size(), 256u);
  EXPECT_FALSE(ParseCidr("10.0.103.0/33"));
  EXPECT_FALSE(ParseCidr("10.0.103/24"));
}

}  // namespace
}  // namespace hkim
