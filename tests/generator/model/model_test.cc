// Model stage: defaults, enum mapping, and cross-field errors located at the offending value.
#include "model/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "load/load.h"
#include "test_files.h"
#include "validate/validate.h"

namespace hkim {
namespace {

// A small valid OpenShift profile; tests append or replace lines.
constexpr const char* kMinimal = R"(cluster:
  name: lab
  platform: openshift
namespaces: [team-a]
node_shape:
  name: lab-h100
  gpus_per_node: 4
  nics_per_node: 2
network:
  fabric: roce-v2
  rails:
    - name: rail0
      resource_name: openshift.io/rail0rdma
      ipam: {type: whereabouts, range: 10.0.1.0/24}
    - name: rail1
      resource_name: openshift.io/rail1rdma
      ipam: {type: whereabouts, range: 10.0.2.0/24}
workload:
  name: train
  image: quay.io/x/train:1
  replicas: 2
  gpus_per_pod: 4
  command: [python, train.py]
wrapper:
  image: quay.io/x/wrapper:1
gitops:
  repo_url: https://example.com/repo.git
  path: out/lab
)";

struct Built {
  std::optional<Profile> profile;
  DiagnosticSink sink;
};

// Load + schema validation + model, as the pipeline runs them.
Built Build(const std::string& text) {
  Built built;
  auto loaded = LoadProfileFromText("lab.yaml", text, built.sink);
  if (!loaded) return built;
  const ProfileSchema* schema = ProfileSchema::Embedded(built.sink);
  if (!schema || !ValidateProfile(*loaded, *schema, built.sink)) return built;
  built.profile = BuildProfile(*loaded, built.sink);
  return built;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

const Diagnostic* FindRule(const DiagnosticSink& sink, const std::string& rule) {
  for (const Diagnostic& d : sink.diagnostics())
    if (d.rule == rule) return &d;
  return nullptr;
}

std::string Dump(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics())
    out += d.rule + " " + d.data_path + ": " + d.message + "\n";
  return out;
}

TEST(Model, MinimalProfileGetsTheSchemaDefaults) {
  Built b = Build(kMinimal);
  ASSERT_TRUE(b.profile) << Dump(b.sink);
  const Profile& p = *b.profile;
  EXPECT_EQ(p.platform, Platform::kOpenShift);
  EXPECT_EQ(p.node_shape.cpu_vendor, CpuVendor::kIntel);
  EXPECT_TRUE(p.node_shape.topology.empty());
  EXPECT_EQ(p.network.rails[0].nad_name, "rail0-network");
  EXPECT_EQ(p.network.rails[0].mtu_bytes, 9000);
  EXPECT_EQ(p.network.rails[0].attachments_per_pod, 1);
  EXPECT_EQ(p.network.rails[1].pointer, "/network/rails/1");
  EXPECT_EQ(p.nccl.gid_policy, GidPolicy::kAuto);
  EXPECT_EQ(p.nccl.cross_nic, 2);
  EXPECT_EQ(p.nccl.ib_timeout, 20);
  EXPECT_EQ(p.nccl.gpudirect, GpuDirect::kAuto);
  EXPECT_EQ(p.security.memlock_strategy, MemlockStrategy::kSysResourceScc);
  EXPECT_EQ(p.security.service_account, "hkim-workload");
  EXPECT_EQ(p.iommu.policy, IommuPolicy::kAlreadyConfigured);
  EXPECT_EQ(p.workload.mode, WorkloadMode::kRdma);
  EXPECT_EQ(p.workload.on_no_rdma, OnNoRdma::kFail);
  EXPECT_EQ(p.workload.shm_size_bytes, int64_t{32} << 30);
  EXPECT_EQ(p.workload.service_name, "train-headless");
  EXPECT_EQ(p.workload.master_port, 29500);
  EXPECT_EQ(p.wrapper.rendezvous_port, 29650);
  EXPECT_EQ(p.health_check.mode, HealthCheckMode::kWarn);
  EXPECT_EQ(p.health_check.at_bytes, int64_t{1} << 30);
  EXPECT_EQ(p.gitops.revision, "HEAD");
  EXPECT_EQ(p.gitops.argocd_namespace, "openshift-gitops") << "OpenShift GitOps' namespace";
  EXPECT_EQ(p.gitops.destination_namespace, "team-a");
}

// model/model.cc hard-codes the defaults; they must say what the schema says.
TEST(Model, DefaultsAgreeWithTheSchema) {
  std::ifstream in(std::filesystem::path(HKIM_SOURCE_DIR) / "schemas/profile.schema.json");
  ASSERT_TRUE(in) << "schemas/profile.schema.json";
  const nlohmann::json schema = nlohmann::json::parse(in);
  const nlohmann::json& defs = schema["definitions"];
  const Profile p = *Build(kMinimal).profile;
  auto def = [&](const char* definition, const char* property) {
    return defs[definition]["properties"][property]["default"];
  };
  EXPECT_EQ(def("nccl", "ib_tc"), p.nccl.ib_tc);
  EXPECT_EQ(def("nccl", "ib_sl"), p.nccl.ib_sl);
  EXPECT_EQ(def("nccl", "ib_timeout"), p.nccl.ib_timeout);
  EXPECT_EQ(def("nccl", "ib_retry_count"), p.nccl.ib_retry_count);
  EXPECT_EQ(def("nccl", "ib_qps_per_connection"), p.nccl.ib_qps_per_connection);
  EXPECT_EQ(def("nccl", "ib_split_data_on_qps"), p.nccl.ib_split_data_on_qps);
  EXPECT_EQ(def("nccl", "cross_nic"), p.nccl.cross_nic);
  EXPECT_EQ(def("nccl", "gid_policy"), ToString(p.nccl.gid_policy));
  EXPECT_EQ(def("nccl", "gpudirect"), ToString(p.nccl.gpudirect));
  EXPECT_EQ(def("security", "memlock_strategy"), ToString(p.security.memlock_strategy));
  EXPECT_EQ(def("security", "service_account"), p.security.service_account);
  // No fixed default: the SCC is the bundle's own, <cluster.name>-nccl-rdma.
  EXPECT_FALSE(defs["security"]["properties"]["scc_name"].contains("default"));
  EXPECT_EQ(p.security.scc_name, "lab-nccl-rdma");
  EXPECT_EQ(def("iommu", "policy"), ToString(p.iommu.policy));
  EXPECT_EQ(def("iommu", "machine_config_role"), p.iommu.machine_config_role);
  EXPECT_EQ(def("workload", "shm_size"), p.workload.shm_size);
  EXPECT_EQ(def("workload", "mode"), ToString(p.workload.mode));
  EXPECT_EQ(def("workload", "on_no_rdma"), ToString(p.workload.on_no_rdma));
  EXPECT_EQ(def("workload", "master_port"), p.workload.master_port);
  EXPECT_EQ(def("rail", "mtu_bytes"), p.network.rails[0].mtu_bytes);
  EXPECT_EQ(def("rail", "cni_version"), p.network.rails[0].cni_version);
  EXPECT_EQ(def("health_check", "mode"), ToString(p.health_check.mode));
  EXPECT_EQ(def("health_check", "scope"), ToString(p.health_check.scope));
  EXPECT_EQ(def("health_check", "transport"), p.health_check.transport);
  EXPECT_EQ(def("gitops", "revision"), p.gitops.revision);
  EXPECT_EQ(def("periodic_health", "nights"), p.fabric_health.periodic.nights);
  EXPECT_EQ(def("periodic_health", "nodes"), p.fabric_health.periodic.nodes);
  // The periodic check has no single default: on for an RDMA pool, off in tcp mode.
  EXPECT_FALSE(defs["periodic_health"]["properties"]["enabled"].contains("default"));
  EXPECT_EQ(p.fabric_health.periodic.enabled, p.workload.mode == WorkloadMode::kRdma);
  // argocd_namespace has no single default: openshift-gitops on OpenShift, argocd elsewhere.
  EXPECT_FALSE(defs["gitops"]["properties"]["argocd_namespace"].contains("default"));
  EXPECT_EQ(p.gitops.argocd_namespace, "openshift-gitops");
  EXPECT_EQ(def("gitops", "destination_server"), p.gitops.destination_server);
  EXPECT_EQ(schema["properties"]["wrapper"]["properties"]["rendezvous_port"]["default"],
            p.wrapper.rendezvous_port);
  EXPECT_EQ(schema["properties"]["node_shape"]["properties"]["cpu_vendor"]["default"],
            ToString(p.node_shape.cpu_vendor));
}

TEST(Model, DestinationNameIsEmptyUnlessGivenAndThenKeptAsWritten) {
  EXPECT_EQ(Build(kMinimal).profile->gitops.destination_name, "");
  Built b = Build(Replace(kMinimal, "  path: out/lab\n",
                          "  path: out/lab\n  destination_name: oke-h100\n"));
  ASSERT_TRUE(b.profile) << Dump(b.sink);
  EXPECT_EQ(b.profile->gitops.destination_name, "oke-h100");
}

TEST(Model, DestinationNameAndServerTogetherAreOneErrorAtTheName) {
  Built b = Build(Replace(kMinimal, "  path: out/lab\n",
                          "  path: out/lab\n  destination_server: https://10.0.0.1:6443\n"
                          "  destination_name: oke-h100\n"));
  EXPECT_FALSE(b.profile);
  const Diagnostic* d = FindRule(b.sink, "model.destination-twice");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->location.line, 30);  // the destination_name line of the text
  EXPECT_NE(d->fix.find("destination_server"), std::string::npos);
}

TEST(Model, GpusPerPodAboveGpusPerNodeIsLocatedAtTheValue) {
  Built b = Build(Replace(kMinimal, "  gpus_per_pod: 4", "  gpus_per_pod: 8"));
  EXPECT_FALSE(b.profile);
  const Diagnostic* d = FindRule(b.sink, "model.gpus-per-pod");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->data_path, "/workload/gpus_per_pod");
  EXPECT_EQ(d->location.file, "lab.yaml");
  EXPECT_EQ(d->location.line, 22);
  EXPECT_EQ(d->location.column, 17);
  EXPECT_EQ(d->message,
            "gpus_per_pod (8) is more than node_shape.gpus_per_node (4); the pods can never be "
            "scheduled");
  EXPECT_EQ(d->fix, "lower gpus_per_pod to at most 4");
}

TEST(Model, DuplicateRailNamesAreReportedAtTheSecondName) {
  Built b = Build(Replace(kMinimal, "    - name: rail1", "    - name: rail0"));
  const Diagnostic* d = FindRule(b.sink, "model.duplicate-rail");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->data_path, "/network/rails/1/name");
  EXPECT_EQ(d->location.line, 15);
  EXPECT_EQ(d->location.column, 13);
  EXPECT_EQ(d->message, "rail name 'rail0' is also used by /network/rails/0");
  // The NAD name derives from the rail name, so it collides too.
  EXPECT_NE(FindRule(b.sink, "model.duplicate-nad"), nullptr);
}

TEST(Model, OverlappingRailRangesAreAnError) {
  Built b = Build(Replace(kMinimal, "range: 10.0.2.0/24", "range: 10.0.0.0/16"));
  const Diagnostic* d = FindRule(b.sink, "model.ipam-overlap");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->data_path, "/network/rails/1/ipam/range");
  EXPECT_EQ(d->fix, "give every rail its own subnet");
}

TEST(Model, MoreAttachmentsThanNicsIsAnError) {
  Built b = Build(Replace(kMinimal, "  nics_per_node: 2", "  nics_per_node: 1"));
  const Diagnostic* d = FindRule(b.sink, "model.too-many-attachments");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->message,
            "a pod attaches 2 rail interfaces but a node has 1 (node_shape.nics_per_node)");
}

TEST(Model, GidIndexPolicyNeedsAnIndex) {
  Built b = Build(std::string(kMinimal) + "nccl:\n  gid_policy: index\n");
  const Diagnostic* d = FindRule(b.sink, "model.gid-index");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->data_path, "/nccl/gid_policy");
  EXPECT_EQ(d->location.line, 30);
  Built ok = Build(std::string(kMinimal) + "nccl:\n  gid_policy: index\n  gid_index: 3\n");
  ASSERT_TRUE(ok.profile) << Dump(ok.sink);
  EXPECT_EQ(ok.profile->nccl.gid_index, 3);
}

TEST(Model, GidIndexIsRoceOnly) {
  Built b = Build(Replace(kMinimal, "fabric: roce-v2", "fabric: infiniband") +
                  "nccl:\n  gid_policy: index\n  gid_index: 0\n");
  const Diagnostic* d = FindRule(b.sink, "model.gid-infiniband");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->location.line, 30);
  EXPECT_EQ(d->location.column, 15);
}

// InfiniBand rails would render as Ethernet SR-IOV NADs (type sriov, VLAN, spoof check): refused
// at network.fabric until the SR-IOV operator's ib-sriov networks are rendered.
TEST(Model, InfinibandRailsAreRefusedAtTheFabricLine) {
  const std::string text = Replace(kMinimal, "fabric: roce-v2", "fabric: infiniband");
  Built b = Build(text);
  const Diagnostic* d = FindRule(b.sink, "model.fabric-infiniband");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  const size_t at = text.find("fabric: infiniband");
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  EXPECT_EQ(d->location.line, line);
  EXPECT_EQ(d->location.column,
            static_cast<int>(at - text.rfind('\n', at)) + static_cast<int>(std::string("fabric: ").size()));
  EXPECT_NE(d->fix.find("fabric: roce-v2"), std::string::npos) << d->fix;
}

TEST(Model, ExtraEnvCannotShadowATypedSetting) {
  Built b = Build(std::string(kMinimal) + "nccl:\n  extra_env:\n    NCCL_IB_HCA: mlx5_0\n");
  const Diagnostic* d = FindRule(b.sink, "model.extra-env-typed");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->data_path, "/nccl/extra_env/NCCL_IB_HCA");
}

TEST(Model, GeneratedResourcesCannotBeSetByHand) {
  Built b = Build(Replace(kMinimal, "  command: [python, train.py]",
                          "  command: [python, train.py]\n  resources:\n    limits:\n"
                          "      nvidia.com/gpu: 2"));
  const Diagnostic* d = FindRule(b.sink, "model.generated-resource");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->data_path, "/workload/resources/limits/nvidia.com~1gpu");
}

TEST(Model, SccStrategyAndMachineConfigAreOpenShiftOnly) {
  std::string text = Replace(kMinimal, "platform: openshift", "platform: oke");
  text += "iommu:\n  policy: passthrough\n";
  Built b = Build(text);
  EXPECT_NE(FindRule(b.sink, "model.memlock-platform"), nullptr) << Dump(b.sink);
  EXPECT_NE(FindRule(b.sink, "model.iommu-platform"), nullptr);
  EXPECT_NE(FindRule(b.sink, "model.sriov-device-plugin"), nullptr);
}

TEST(Model, RdmaModeNeedsRails) {
  std::string text = kMinimal;
  text = text.substr(0, text.find("  rails:")) + text.substr(text.find("workload:"));
  Built b = Build(text);
  const Diagnostic* d = FindRule(b.sink, "model.rdma-without-rails");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  Built tcp = Build(
      Replace(text, "  command: [python, train.py]", "  command: [python, train.py]\n  mode: tcp"));
  ASSERT_TRUE(tcp.profile) << Dump(tcp.sink);
  EXPECT_FALSE(tcp.profile->UsesRails());
}

// Host name lists, in profile order; a name that is no label value is refused
// by the schema at its item.
TEST(Model, IncludeAndExcludeNodesAreHostNamesInProfileOrder) {
  Built b = Build(Replace(kMinimal, "  nics_per_node: 2",
                          "  nics_per_node: 2\n  include_nodes: [u25, u12]\n"
                          "  exclude_nodes: [u07]"));
  ASSERT_TRUE(b.profile) << Dump(b.sink);
  EXPECT_EQ(b.profile->node_shape.include_nodes, (std::vector<std::string>{"u25", "u12"}));
  EXPECT_EQ(b.profile->node_shape.exclude_nodes, (std::vector<std::string>{"u07"}));
  Built none = Build(kMinimal);
  ASSERT_TRUE(none.profile) << Dump(none.sink);
  EXPECT_TRUE(none.profile->node_shape.include_nodes.empty());
  Built bad = Build(Replace(kMinimal, "  nics_per_node: 2",
                            "  nics_per_node: 2\n  exclude_nodes: [\"u07 u08\"]"));
  EXPECT_FALSE(bad.profile);
  ASSERT_FALSE(bad.sink.diagnostics().empty());
  EXPECT_EQ(bad.sink.diagnostics()[0].data_path, "/node_shape/exclude_nodes/0");
}

TEST(Model, TopologyPresetFillsTheDescription) {
  Built b = Build(Replace(kMinimal, "  nics_per_node: 2",
                          "  nics_per_node: 2\n  topology:\n    preset: barcelona-h100-cx7"));
  ASSERT_TRUE(b.profile) << Dump(b.sink);
  const NodeTopology& t = b.profile->node_shape.topology;
  EXPECT_EQ(t.preset, "barcelona-h100-cx7");
  EXPECT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_EQ(t.pointer, "/node_shape/topology");
  // Synthetic preset: not shipped as NCCL_TOPO_FILE unless the profile vouches for it.
  EXPECT_FALSE(t.verified);
  Built vouched = Build(Replace(kMinimal, "  nics_per_node: 2",
                                "  nics_per_node: 2\n  topology:\n    preset: barcelona-h100-cx7"
                                "\n    verified: true"));
  ASSERT_TRUE(vouched.profile) << Dump(vouched.sink);
  EXPECT_TRUE(vouched.profile->node_shape.topology.verified);
}

TEST(Model, TopologyWithTheWrongGpuCountIsAnError) {
  Built b = Build(Replace(kMinimal, "  nics_per_node: 2",
                          "  nics_per_node: 2\n  topology:\n    preset: BM.GPU.H100.8"));
  const Diagnostic* d = FindRule(b.sink, "model.topology-gpus");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->message, "the topology describes 8 GPUs but gpus_per_node is 4");
}

TEST(Model, CustomTopologyWithDuplicateDevicesIsAnError) {
  const std::string custom = R"(  nics_per_node: 2
  topology:
    gpu: {pci_device: "0x2330", sm: 90}
    nic: {pci_device: "0x1021", speed_mbps: 400000}
    numa_nodes:
      - id: 0
        pcie_switches:
          - bus_id: "0000:10:00.0"
            gpus: ["0000:15:00.0", "0000:16:00.0"]
            nics: [{bus_id: "0000:17:00.0", rdma_devices: [mlx5_0]}]
          - bus_id: "0000:20:00.0"
            gpus: ["0000:25:00.0", "0000:26:00.0"]
            nics: [{bus_id: "0000:27:00.0", rdma_devices: [mlx5_0]}])";
  Built b = Build(Replace(kMinimal, "  nics_per_node: 2", custom));
  const Diagnostic* d = FindRule(b.sink, "model.topology");
  ASSERT_NE(d, nullptr) << Dump(b.sink);
  EXPECT_EQ(d->message, "RDMA device mlx5_0 appears twice");
}

TEST(Model, ByteSizesParseWithUnits) {
  EXPECT_EQ(ParseByteSize("32Gi"), int64_t{32} << 30);
  EXPECT_EQ(ParseByteSize("8G"), int64_t{8000000000});
  EXPECT_EQ(ParseByteSize("1048576"), int64_t{1048576});
  EXPECT_EQ(ParseByteSize("1.5Gi"), std::nullopt);
  EXPECT_EQ(ParseByteSize("Gi"), std::nullopt);
  EXPECT_EQ(ParseByteSize("99999999999999999999"), std::nullopt);
}

TEST(Model, ShippedProfilesBuild) {
  for (const std::string& name : test_files::ShippedProfiles()) {
    Built b = Build(test_files::ReadProfile(name));
    EXPECT_TRUE(b.profile) << name << "\n" << Dump(b.sink);
  }
}

}  // namespace
}  // namespace hkim
