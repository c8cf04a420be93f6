// --cluster: profiles compared with cluster exports: barcelona.json (make_fixtures.py: the
// cluster profiles/barcelona-h100-cx7.yaml describes before its first sync, as discover drafts
// from it), drifts of the cluster Barcelona's bundle synced (simulated_cluster.h, one change
// each), and discover's drafts checked against the exports they came from.

#include "cluster_check/cluster_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "discover/discover.h"
#include "discover/json_locate.h"
#include "layering/layering.h"
#include "pipeline/profile_check.h"
#include "cluster_check/check_fixture.h"
#include "test_files.h"

namespace hkim {
namespace {

using cluster_check_test::Check;
using cluster_check_test::CheckSynced;
using cluster_check_test::Checked;
using cluster_check_test::FindItem;
using cluster_check_test::CheckText;
using cluster_check_test::kBarcelona;
using cluster_check_test::kFixtures;
using cluster_check_test::kSource;
using test_files::ReadFile;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(ClusterCheck, ProfileMatchesTheClusterItDescribes) {
  Checked c = Check(kBarcelona, "barcelona.json");
  EXPECT_EQ(c.Errors(), 0) << c.All();
  EXPECT_EQ(c.sink.WarningCount(), 0) << c.All();
  ASSERT_EQ(c.report.picked.size(), 2u);
  ASSERT_EQ(c.report.nodes.size(), 2u);
  for (const cluster_check::NodeRow& row : c.report.nodes) {
    EXPECT_TRUE(row.ok) << row.node;
    EXPECT_EQ(row.gpus, 4);
    EXPECT_EQ(row.rails_ok, 4);
    EXPECT_EQ(row.vfs, 4);
    EXPECT_EQ(row.resources.at("openshift.io/eno5np0rdma"), 1);
  }
  const std::string table = cluster_check::FormatNodeTable(c.report);
  EXPECT_THAT(table, HasSubstr("NODE"));
  EXPECT_THAT(table, HasSubstr("h100-n01  4     4/4"));
  const nlohmann::json json = cluster_check::NodeTableJson(c.report);
  EXPECT_EQ(json["picked"], 2);
  EXPECT_EQ(json["nodes"][1]["node"], "h100-n02");
  EXPECT_EQ(json["nodes"][1]["rails_ok"], 4);
}

TEST(ClusterCheck, RenamedPfIsNamedWithNodeAndInterfaceAtTheRailsLine) {
  // Re-imaging renamed a PF on one node (the seeds' mlx5_10 -> mlx5_8 day).
  Checked c = CheckSynced(kBarcelona, {}, [](nlohmann::json& items) {
    FindItem(items, "SriovNetworkNodeState", "gpu-02")["status"]["interfaces"][2]["name"] = "eno9np0";
  });
  auto found = c.Of("cluster.rail-pf");
  ASSERT_EQ(found.size(), 1u) << c.All();
  const Diagnostic& d = *found.front();
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.data_path, "/network/rails/2/interface");
  EXPECT_THAT(d.location.file, HasSubstr("barcelona-h100-cx7.yaml"));
  EXPECT_GT(d.location.line, 0);
  EXPECT_THAT(d.message, HasSubstr("SriovNetworkNodeState/gpu-02 (synced.json:"));
  EXPECT_THAT(d.message, HasSubstr("has no PF eno7np0"));
  EXPECT_THAT(d.message, HasSubstr("Mellanox PFs no rail names: eno9np0"));
  EXPECT_THAT(d.fix, HasSubstr("renamed"));
  EXPECT_EQ(c.report.nodes[1].rails_missing, std::vector<std::string>{"eno7np0: eno7np0"});
  EXPECT_FALSE(c.report.nodes[1].ok);
  EXPECT_TRUE(c.report.nodes[0].ok);
}

TEST(ClusterCheck, NodeWithoutRdmaVfsIsAnErrorWhileItsPeersHaveThem) {
  // One node's PF lost its VFs and the device plugin advertises none of that rail.
  Checked c = CheckSynced(kBarcelona, {}, [](nlohmann::json& items) {
    nlohmann::json& pf = FindItem(items, "SriovNetworkNodeState", "gpu-02")["status"]["interfaces"][1];
    pf["numVfs"] = 0;
    pf["Vfs"] = nlohmann::json::array();
    nlohmann::json& status = FindItem(items, "Node", "gpu-02")["status"];
    status["capacity"]["openshift.io/eno6np0rdma"] = "0";
    status["allocatable"]["openshift.io/eno6np0rdma"] = "0";
  });
  auto vfs = c.Of("cluster.rail-vfs");
  ASSERT_EQ(vfs.size(), 1u) << c.All();
  EXPECT_EQ(vfs.front()->data_path, "/network/rails/1/attachments_per_pod");
  EXPECT_THAT(vfs.front()->message, HasSubstr("SriovNetworkNodeState/gpu-02"));
  auto resource = c.Of("cluster.resource");
  ASSERT_EQ(resource.size(), 1u) << c.All();
  EXPECT_EQ(resource.front()->data_path, "/network/rails/1/resource_name");
  EXPECT_THAT(resource.front()->message, HasSubstr("Node/gpu-02"));
  EXPECT_THAT(resource.front()->message, HasSubstr("advertises 0 openshift.io/eno6np0rdma"));
}

TEST(ClusterCheck, VfsNoNodeHasYetAreANoteThatTheBundleCreatesThem) {
  nlohmann::json doc = nlohmann::json::parse(ReadFile(kFixtures / "barcelona.json"));
  for (nlohmann::json& item : doc["items"]) {
    if (item["kind"] == "SriovNetworkNodeState")
      for (nlohmann::json& pf : item["status"]["interfaces"]) pf["numVfs"] = 0, pf["Vfs"] = {};
    if (item["kind"] == "Node")
      for (auto& [key, value] : item["status"]["capacity"].items())
        if (key.find("rdma") != std::string::npos) value = "0";
  }
  // The bundle's own node policies create them, whoever installed the SR-IOV operator: the
  // check asks the plan, not who installed the operator.
  Checked c = CheckText(kBarcelona, "fresh.json", doc.dump(),
                        {"operators.sriov_network_operator.install=preinstalled",
                         "operators.sriov_network_operator.node_policies=true"});
  EXPECT_EQ(c.Errors(), 0) << c.All();
  EXPECT_FALSE(c.Of("cluster.vfs-pending").empty());
  EXPECT_FALSE(c.Of("cluster.resource-pending").empty());
}

// The hand-made h100 pool is gone and one GPU node lost its role label.
void RemovePoolAndOneRoleLabel(nlohmann::json& items) {
  nlohmann::json kept = nlohmann::json::array();
  for (nlohmann::json& item : items)
    if (!(item["kind"] == "MachineConfigPool" && item["metadata"]["name"] == "h100")) kept.push_back(item);
  items = kept;
  FindItem(items, "Node", "gpu-02")["metadata"]["labels"].erase("node-role.kubernetes.io/h100");
}

// Barcelona's bundle renders no MachineConfig, node policy or pool: pool h100 and its role label
// are nothing it relies on, whatever the cluster has.
TEST(ClusterCheck, APoolNothingRenderedGoesThroughIsNoPrecondition) {
  Checked c = CheckSynced(kBarcelona, {}, RemovePoolAndOneRoleLabel);
  EXPECT_TRUE(c.Of("cluster.pool-missing").empty()) << c.All();
  EXPECT_TRUE(c.Of("cluster.node-role").empty()) << c.All();
}

// With a MachineConfig of its own (no argument set already), Barcelona's bundle goes through pool h100.
TEST(ClusterCheck, MissingPoolAndRoleLabelAreNamed) {
  Checked c = CheckSynced(kBarcelona, {"iommu.already_set={}"}, RemovePoolAndOneRoleLabel);
  auto pool = c.Of("cluster.pool-missing");
  ASSERT_EQ(pool.size(), 1u) << c.All();
  EXPECT_EQ(pool.front()->data_path, "/iommu/machine_config_pool");
  EXPECT_THAT(pool.front()->message, HasSubstr("no MachineConfigPool h100"));
  auto role = c.Of("cluster.node-role");
  ASSERT_EQ(role.size(), 1u) << c.All();
  EXPECT_EQ(role.front()->data_path, "/iommu/machine_config_role");
  EXPECT_THAT(role.front()->message, HasSubstr("Node/gpu-02"));
  EXPECT_THAT(role.front()->fix, HasSubstr("oc label node gpu-02 node-role.kubernetes.io/h100="));
}

// Objects of the bundle's names that someone else made: the SCC by hand, a NAD of another team
// (synced by its own Argo CD Application) with another resource, and a NAD whose range overlaps
// rail eno6np0's.
void TakenOver(nlohmann::json& items) {
  nlohmann::json& scc = FindItem(items, "SecurityContextConstraints", "barcelona-nccl-rdma");
  scc["metadata"].erase("annotations");
  scc["allowHostIPC"] = true;
  for (nlohmann::json& item : items) {
    if (item["kind"] != "NetworkAttachmentDefinition" || item["metadata"]["name"] != "eno5np0-network" ||
        item["metadata"]["namespace"] != "nccl-test")
      continue;
    item["metadata"]["labels"] = {{"app.kubernetes.io/instance", "team-b-networks"}};
    item["metadata"]["annotations"] = {{"k8s.v1.cni.cncf.io/resourceName", "openshift.io/teamb"}};
    item["spec"]["config"] = R"({"cniVersion": "1.0.0", "type": "sriov", "ipam": {"type": "whereabouts", "range": "10.9.0.0/24"}})";
  }
  items.push_back({{"apiVersion", "argoproj.io/v1alpha1"}, {"kind", "Application"},
                   {"metadata", {{"name", "team-b-networks"}, {"namespace", "openshift-gitops"}}}});
  items.push_back({{"apiVersion", "k8s.cni.cncf.io/v1"}, {"kind", "NetworkAttachmentDefinition"},
                   {"metadata", {{"name", "storage"}, {"namespace", "storage"}}},
                   {"spec", {{"config", R"({"cniVersion": "1.0.0", "type": "sriov", "ipam": {"type": "whereabouts", "range": "10.0.104.128/25"}})"}}}});
}

TEST(ClusterCheck, ExistingObjectsTheBundleWouldTakeOverAreNamedWithBoth) {
  Checked c = CheckSynced(kBarcelona, {}, TakenOver);
  auto takeover = c.Of("cluster.takeover");
  ASSERT_EQ(takeover.size(), 2u) << c.All();
  std::string text;
  for (const Diagnostic* d : takeover) text += d->message + "\n";
  EXPECT_THAT(text, HasSubstr("SecurityContextConstraints/barcelona-nccl-rdma (synced.json:"));
  EXPECT_THAT(text, HasSubstr("created outside Argo CD"));
  EXPECT_THAT(text, HasSubstr("NetworkAttachmentDefinition/nccl-test/eno5np0-network"));
  EXPECT_THAT(text, HasSubstr("synced by Argo CD Application team-b-networks"));
  EXPECT_THAT(text, HasSubstr("this bundle syncs as Application barcelona"));
  auto overlap = c.Of("cluster.ip-overlap");
  ASSERT_EQ(overlap.size(), 1u) << c.All();
  EXPECT_EQ(overlap.front()->data_path, "/network/rails/1/ipam");
  EXPECT_THAT(overlap.front()->message, HasSubstr("NetworkAttachmentDefinition/storage/storage"));
}

TEST(ClusterCheck, ObjectSyncedByThisBundleIsNoTakeover) {
  nlohmann::json doc = nlohmann::json::parse(ReadFile(kFixtures / "barcelona.json"));
  doc["items"].push_back({{"apiVersion", "security.openshift.io/v1"},
                          {"kind", "SecurityContextConstraints"},
                          {"metadata",
                           {{"name", "barcelona-nccl-rdma"},
                            {"annotations",
                             {{"argocd.argoproj.io/tracking-id",
                               "barcelona-platform:security.openshift.io/"
                               "SecurityContextConstraints:/barcelona-nccl-rdma"}}}}}});
  Checked c = CheckText(kBarcelona, "synced.json", doc.dump());
  EXPECT_TRUE(c.Of("cluster.takeover").empty()) << c.All();
}

TEST(ClusterCheck, ShippedProfileAgainstAnotherClusterIsRefused) {
  Checked c = Check("profiles/oke-h100.yaml", "barcelona.json");
  auto none = c.Of("cluster.no-nodes");
  ASSERT_EQ(none.size(), 1u) << c.All();
  EXPECT_EQ(none.front()->data_path, "/node_shape/node_selector");
  EXPECT_THAT(none.front()->message, HasSubstr("node.kubernetes.io/instance-type=BM.GPU.H100.8"));
  EXPECT_THAT(none.front()->message, HasSubstr("3 nodes, 2 with GPUs"));
  auto unpicked = c.Of("cluster.node-unpicked");
  ASSERT_EQ(unpicked.size(), 1u) << c.All();
  EXPECT_THAT(unpicked.front()->message, HasSubstr("Node/h100-n01"));
  EXPECT_THAT(unpicked.front()->message, HasSubstr("Node/h100-n02"));
}

TEST(ClusterCheck, FindingsAboutManyNodesFoldIntoOne) {
  nlohmann::json doc = nlohmann::json::parse(ReadFile(kFixtures / "barcelona.json"));
  const nlohmann::json node = doc["items"][0];
  for (int i = 3; i <= 9; ++i) {
    nlohmann::json copy = node;
    copy["metadata"]["name"] = "h100-n0" + std::to_string(i);
    copy["status"]["capacity"]["nvidia.com/gpu"] = "2";
    doc["items"].push_back(copy);
  }
  Checked c = CheckText(kBarcelona, "many.json", doc.dump());
  auto gpus = c.Of("cluster.node-gpus");
  ASSERT_EQ(gpus.size(), 1u) << c.All();
  EXPECT_THAT(gpus.front()->message, HasSubstr("and 4 more: has 2 GPUs"));
}

// A draft passes validate and the check against its own export.
void ExpectDraftPassesAgainstItsExport(const std::string& label, const std::string& text) {
  DiagnosticSink sink;
  const std::string draft = discover::Discover({{label, text}}, {"lab", false}, sink);
  ASSERT_FALSE(draft.empty()) << label;
  DiagnosticSink checks;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("draft.yaml", draft, checks);
  ASSERT_TRUE(loaded);
  BundlePlan plan;
  std::optional<Profile> profile = CheckLoadedProfile(*loaded, checks, &plan);
  ASSERT_TRUE(profile) << label;
  std::string errors;
  for (const Diagnostic& d : checks.diagnostics())
    if (d.severity == Severity::kError) errors += d.rule + " " + d.message + "\n";
  EXPECT_EQ(checks.ErrorCount(), 0) << label << "\n" << errors << draft;
  DiagnosticSink against;
  auto cluster = cluster_check::LoadClusterExport({{label, text}}, against);
  ASSERT_NE(cluster, nullptr);
  auto report = cluster_check::CheckProfile(*profile, plan, *loaded, *cluster, against);
  std::string found;
  for (const Diagnostic& d : against.diagnostics())
    found += d.rule + " " + d.message + "\n";
  EXPECT_EQ(against.ErrorCount(), 0) << label << "\n" << found << draft;
  EXPECT_FALSE(report.picked.empty());
}

TEST(ClusterCheck, DiscoverDraftsPassAgainstTheExportsTheyCameFrom) {
  const fs::path discover = kSource / "tests/generator/discover";
  for (const std::string fixture : {"openshift-amd.json", "oke-intel.json"})
    ExpectDraftPassesAgainstItsExport(fixture, ReadFile(discover / fixture));
  ExpectDraftPassesAgainstItsExport("barcelona.json", ReadFile(kFixtures / "barcelona.json"));
}

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// A100 nodes and no VF in the export: the shape's NIC gives the VF device id.
TEST(ClusterCheck, DiscoverTakesTheA100VfDeviceIdFromTheShape) {
  std::string text = ReadFile(kSource / "tests/generator/discover/oke-intel.json");
  text = Replaced(text, "BM.GPU.H200.8", "BM.GPU.A100-v2.8");
  text = Replaced(text, "NVIDIA-H200", "NVIDIA-A100-SXM4-80GB");
  DiagnosticSink sink;
  const std::string draft = discover::Discover({{"a100.json", text}}, {"a100", false}, sink);
  ASSERT_FALSE(draft.empty());
  DiagnosticSink load;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("draft.yaml", draft, load);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->document["network"]["sriov_device_plugin"]["device_ids"],
            nlohmann::json::array({"101a"}))
      << draft;
  EXPECT_THAT(draft, HasSubstr("BM.GPU.A100-v2.8 has NIC 0x1019, whose VFs are 101a"));
  ExpectDraftPassesAgainstItsExport("a100.json", text);
}

// 16 interfaces per node and a 16-address block whose gateway takes one.
TEST(ClusterCheck, DiscoverRaisesAnNvIpamBlockTooSmallForTheInterfaces) {
  std::string text = ReadFile(kSource / "tests/generator/discover/oke-intel.json");
  text = Replaced(text, "\"perNodeBlockSize\": 32", "\"perNodeBlockSize\": 16");
  DiagnosticSink sink;
  const std::string draft = discover::Discover({{"block.json", text}}, {"blk", false}, sink);
  DiagnosticSink load;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("draft.yaml", draft, load);
  ASSERT_TRUE(loaded) << draft;
  const nlohmann::json& rail = loaded->document["network"]["rails"][0];
  EXPECT_EQ(rail["ipam"]["pool"]["per_node_block_size"], 17) << draft;
  EXPECT_THAT(draft, HasSubstr("raised from the IPPool's 16"));
  ExpectDraftPassesAgainstItsExport("block.json", text);
}

TEST(ClusterCheck, JsonPointersAreFoundInTheTextOnDemand) {
  const std::string text = "{\"a\": [1, {\"b\\/c\": \"x]\"}, {\"d\": {\"e\": 3}}],\n \"f\": 2}";
  EXPECT_EQ(text.substr(discover::FindJsonPointer(text, "/a/2/d/e"), 1), "3");
  EXPECT_EQ(text.substr(discover::FindJsonPointer(text, "/a/1/b~1c"), 4), "\"x]\"");
  EXPECT_EQ(text.substr(discover::FindJsonPointer(text, "/f"), 1), "2");
  EXPECT_EQ(discover::FindJsonPointer(text, "/a/7"), std::string::npos);
  EXPECT_EQ(discover::FindJsonPointer(text, "/g"), std::string::npos);
  const SourceLocation at =
      discover::LocationOfOffset("x.json", text, discover::FindJsonPointer(text, "/f"));
  EXPECT_EQ(at.line, 2);
  EXPECT_EQ(at.column, 7);
}

TEST(ClusterCheck, HostileExportsGetLocatedErrorsNotCrashes) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"deep.json", "{\"kind\": \"List\", \"items\": [" + deep + "]}"},
      {"cut.json", "{\"kind\": \"List\", \"items\": [{\"kind\": \"Node\""},
      {"numbers.json",
       "{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"}, \"status\": {\"capacity\": "
       "{\"nvidia.com/gpu\": \"999999999999\", \"nvidia.com/roce_vf\": 1e308}}}"},
      {"types.json", "{\"kind\": \"List\", \"items\": [1, \"x\", null, {\"kind\": 3}]}"},
      {"array.json", "[1, 2]"},
      {"overflow.json", "{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"}, \"x\": 1e999}"},
  };
  for (const auto& [label, text] : cases) {
    DiagnosticSink sink;
    auto cluster = cluster_check::LoadClusterExport({{label, text}}, sink);
    for (const Diagnostic& d : sink.diagnostics()) {
      EXPECT_EQ(d.location.file, label);
      EXPECT_GT(d.location.line, 0) << label << " " << d.rule;
    }
    if (!cluster) {
      EXPECT_TRUE(sink.HasErrors()) << label;
      continue;
    }
    Checked c = CheckText(kBarcelona, label, text);  // must not crash
    (void)c;
  }
}

}  // namespace
}  // namespace hkim
