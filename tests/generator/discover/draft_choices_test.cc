// What a draft chooses itself, sized to the cluster the export shows: address ranges that hold
// the draft's pods, another team's nodes left out, preconditions that cite only what the export
// holds.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "discover/discover.h"
#include "discover/draft_check.h"
#include "test_files.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using discover_test::ExpectValidatesAndRenders;
using discover_test::Fixture;
using discover_test::OpenShiftExport;
using test_files::ReadFile;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Discover, RangesAreSizedToTheNodeCountSoThatABigClusterDraftValidates) {
  DiagnosticSink sink;
  const std::string text =
      discover::Discover({{"big.json", OpenShiftExport(1503)}}, {"big", false, {"ml"}}, sink);
  ASSERT_FALSE(sink.HasErrors());
  EXPECT_THAT(text, HasSubstr("replicas: 1503"));
  // 1503 pods x 1 attachment x 1 namespace, plus a quarter: 1879 addresses, a /21 per rail,
  // each rail its own, from 192.168.200.0 on.
  EXPECT_THAT(text, HasSubstr("range: 192.168.200.0/21  # TODO: a subnet of its own for every "
                              "isolated rail; 2048 addresses for 1503 pods x 1 attachment x 1 "
                              "namespace = 1503, plus a quarter for growth"));
  EXPECT_THAT(text, HasSubstr("range: 192.168.208.0/21"));
  EXPECT_THAT(text, HasSubstr("range: 192.168.216.0/21"));
  EXPECT_THAT(text, HasSubstr("range: 192.168.224.0/21"));
  ExpectValidatesAndRenders(text);
  // A small cluster keeps a /24 a rail.
  DiagnosticSink small;
  const std::string few = discover::Discover({{"few.json", OpenShiftExport(3)}}, {"few"}, small);
  EXPECT_THAT(few, HasSubstr("range: 192.168.200.0/24"));
  EXPECT_THAT(few, HasSubstr("range: 192.168.203.0/24"));
  ExpectValidatesAndRenders(few);
}

TEST(Discover, TheGroupsOfOneClusterGetRangesApart) {
  nlohmann::json doc = nlohmann::json::parse(OpenShiftExport(5));
  int relabelled = 0;
  for (nlohmann::json& item : doc["items"])
    if (item["kind"] == "Node" && relabelled++ < 2)
      item["metadata"]["labels"]["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB";
  DiagnosticSink sink;
  const std::vector<discover::Draft> drafts =
      discover::DiscoverDrafts({{"two.json", doc.dump()}}, {"lab", true}, sink);
  ASSERT_EQ(drafts.size(), 2u);
  EXPECT_THAT(drafts[0].text, HasSubstr("range: 192.168.200.0/24"));
  EXPECT_THAT(drafts[0].text, HasSubstr("range: 192.168.203.0/24"));
  for (const char* first :
       {"192.168.200.0/24", "192.168.201.0/24", "192.168.202.0/24", "192.168.203.0/24"})
    EXPECT_THAT(drafts[1].text, Not(HasSubstr(first)));
  EXPECT_THAT(drafts[1].text, HasSubstr("range: 192.168.204.0/24"));
  EXPECT_THAT(drafts[1].text, HasSubstr("range: 192.168.207.0/24"));
  for (const discover::Draft& draft : drafts) ExpectValidatesAndRenders(draft.text);
}

TEST(Discover, AnNvIpamPoolIsSizedToTheNodeCountAndKeepsClearOfTheExportsRanges) {
  // OKE: one resource of 16 VFs a node, no IPPool in the export: the pool is drafted. 4000
  // nodes x a block of 17 (plus a quarter) need more than a /16.
  nlohmann::json doc = nlohmann::json::parse(Fixture("oke-intel.json"));
  nlohmann::json node;
  nlohmann::json items = nlohmann::json::array();
  for (const nlohmann::json& item : doc["items"]) {
    if (item["kind"] == "Node" && node.is_null() &&
        item["metadata"]["labels"].value("node.kubernetes.io/instance-type", "") == "BM.GPU.H200.8")
      node = item;
    // The other team's NAD keeps its 172.16.0.0/16: the drafted pool goes around it.
    if (item["kind"] == "NetworkAttachmentDefinition") {
      nlohmann::json other = item;
      other["metadata"]["name"] = "team-b";
      other["metadata"]["namespace"] = "team-b";
      other["metadata"]["annotations"] = nlohmann::json::object();
      other["spec"]["config"] =
          R"({"cniVersion": "0.4.0", "type": "macvlan", "ipam": {"type": "whereabouts", "range": "172.16.0.0/16"}})";
      items.push_back(other);
    }
  }
  ASSERT_FALSE(node.is_null());
  for (int i = 0; i < 4000; ++i) {
    nlohmann::json copy = node;
    copy["metadata"]["name"] = "10.1." + std::to_string(i / 250) + "." + std::to_string(i % 250);
    copy["metadata"]["labels"]["kubernetes.io/hostname"] = copy["metadata"]["name"];
    items.push_back(copy);
  }
  DiagnosticSink sink;
  const std::string text = discover::Discover(
      {{"oke-big.json",
        nlohmann::json{{"kind", "List"}, {"apiVersion", "v1"}, {"items", items}}.dump()}},
      {"okebig", false, {"ml"}}, sink);
  ASSERT_FALSE(sink.HasErrors());
  EXPECT_THAT(text, HasSubstr("pool:  # TODO: no IPPool in the export; 131072 addresses for 4000 "
                              "nodes x a block of 17"));
  EXPECT_THAT(text, HasSubstr("subnet: 172.18.0.0/15"));
  EXPECT_THAT(text, HasSubstr("per_node_block_size: 17"));
  EXPECT_THAT(text, HasSubstr("gateway: 172.18.0.1"));
  ExpectValidatesAndRenders(text);
}

TEST(Discover, AnotherTeamsNodesAreExcludedWithAWarningNamingThem) {
  // Barcelona as it runs: yunshi's StatefulSet holds the GPUs and VFs of u15 and u16.
  const fs::path live =
      fs::path(HKIM_SOURCE_DIR) / "tests/generator/cluster_check/barcelona-live.json";
  DiagnosticSink sink;
  const std::string text = discover::Discover({{"live.json", ReadFile(live)}},
                                              {"barcelona", false, {"nccl-test"}}, sink);
  ASSERT_FALSE(sink.HasErrors());
  EXPECT_THAT(text, HasSubstr("exclude_nodes:  # another team's nodes of the group, it seems "
                              "(warnings discover.other-team)\n"
                              "    - moc-r4pcc02u15-yunshi  # GPU or RDMA pods of namespace "
                              "b-ts-data-agent-0a0cee run there, not the workload's\n"
                              "    - moc-r4pcc02u16-yunshi  #"));
  EXPECT_THAT(text, HasSubstr("replicas: 3  # one pod per node of the group less the 2 excluded"));
  EXPECT_THAT(text, Not(HasSubstr("The export holds no Pods")));
  std::vector<std::string> messages;
  for (const Diagnostic& d : sink.diagnostics())
    if (d.rule == "discover.other-team") messages.push_back(d.message);
  // One warning a reason: the pods, and the names.
  EXPECT_THAT(messages,
              testing::ElementsAre(
                  "nodes moc-r4pcc02u15-yunshi, moc-r4pcc02u16-yunshi (another team's, it seems): "
                  "GPU or RDMA pods of namespace b-ts-data-agent-0a0cee run there, not the "
                  "workload's: left out of the draft (node_shape.exclude_nodes)",
                  "nodes moc-r4pcc02u15-yunshi, moc-r4pcc02u16-yunshi (another team's, it seems): "
                  "named ...-yunshi, unlike most nodes of the group (...-nairr): left out of the "
                  "draft (node_shape.exclude_nodes)"));
  ExpectValidatesAndRenders(text);
}

TEST(Discover, NodesTaintedOrLabelledForAnotherTeamAreExcluded) {
  std::string text = OpenShiftExport(5);
  nlohmann::json doc = nlohmann::json::parse(text);
  for (nlohmann::json& item : doc["items"]) {
    if (item["kind"] != "Node") continue;
    const std::string name = item["metadata"]["name"];
    if (name == "gpu-10001")
      item["spec"]["taints"] = {
          {{"key", "maintenance"}, {"value", "fw"}, {"effect", "NoSchedule"}}};
    item["metadata"]["labels"]["example.com/team"] = name == "gpu-10004" ? "vision" : "llm";
  }
  DiagnosticSink sink;
  const std::string draft = discover::Discover({{"t.json", doc.dump()}}, {"lab"}, sink);
  EXPECT_THAT(draft, HasSubstr("    - gpu-10001  # tainted maintenance=fw:NoSchedule, which most "
                               "nodes of the group lack\n"
                               "    - gpu-10004  # labelled example.com/team=vision, unlike most "
                               "nodes of the group\n"));
  EXPECT_THAT(draft, HasSubstr("replicas: 3"));
  EXPECT_THAT(draft, Not(HasSubstr("key: maintenance")));  // not tolerated
  ExpectValidatesAndRenders(draft);
}

TEST(Discover, NodesAreNeverAllExcludedAndTheMainTenantIsKeptWithAWarning) {
  // Pods of one namespace on every node: the cluster's main tenant (perhaps the user's own jobs
  // without --namespace), not another team's corner of it.
  nlohmann::json doc = nlohmann::json::parse(OpenShiftExport(3));
  for (int i = 0; i < 3; ++i) {
    doc["items"].push_back(
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", {{"name", "train-" + std::to_string(i)}, {"namespace", "llm"}}},
         {"spec",
          {{"nodeName", "gpu-1000" + std::to_string(i)},
           {"containers",
            {{{"name", "c"}, {"resources", {{"limits", {{"nvidia.com/gpu", "4"}}}}}}}}}}});
  }
  DiagnosticSink sink;
  const std::string draft = discover::Discover({{"p.json", doc.dump()}}, {"lab"}, sink);
  EXPECT_THAT(draft, Not(HasSubstr("exclude_nodes")));
  EXPECT_THAT(draft, HasSubstr("replicas: 3"));
  ASSERT_EQ(sink.WarningCount(), 1) << FormatDiagnostics(sink, {});
  EXPECT_EQ(sink.diagnostics().front().message,
            "namespace llm runs GPU or RDMA pods on 3 of the group's 3 nodes (gpu-10000, "
            "gpu-10001, gpu-10002); they stay in the draft, which would share them");
  // Named for the workload: no warning at all.
  DiagnosticSink named;
  discover::Discover({{"p.json", doc.dump()}}, {"lab", false, {"llm"}}, named);
  EXPECT_EQ(named.WarningCount(), 0);
  // Every node looks like someone else's (each runs another namespace's pods): all stay, and
  // the warnings say why.
  for (nlohmann::json& item : doc["items"])
    if (item["kind"] == "Pod")
      item["metadata"]["namespace"] = "team-" + item["spec"]["nodeName"].get<std::string>();
  DiagnosticSink all;
  const std::string kept =
      discover::Discover({{"p.json", doc.dump()}}, {"lab", false, {"llm"}}, all);
  EXPECT_THAT(kept, Not(HasSubstr("exclude_nodes")));
  EXPECT_THAT(kept, HasSubstr("replicas: 3"));
  ASSERT_EQ(all.WarningCount(), 3) << FormatDiagnostics(all, {});
  for (const Diagnostic& d : all.diagnostics())
    EXPECT_THAT(d.message,
                HasSubstr("they stay in the draft: every node of the group looks like this"));
}

TEST(Discover, PreconditionsCiteOnlyANadOfTheExportThatUsesThePlugin) {
  // The export's only NAD is a macvlan one: it shows nothing of the SR-IOV or RDMA CNI.
  nlohmann::json doc = nlohmann::json::parse(Fixture("oke-intel.json"));
  for (nlohmann::json& item : doc["items"]) {
    if (item["kind"] == "NetworkAttachmentDefinition")
      item["spec"]["config"] = R"({"cniVersion": "0.4.0", "type": "macvlan"})";
  }
  DiagnosticSink sink;
  const std::string draft = discover::Discover({{"m.json", doc.dump()}}, {"oke"}, sink);
  EXPECT_THAT(draft, Not(HasSubstr("of the export uses it")));
  EXPECT_THAT(draft, Not(HasSubstr("the export's NADs")));
  EXPECT_THAT(draft, HasSubstr("why: the bundle's NADs chain it (no NAD of the export shows the "
                               "cluster has it)"));
  EXPECT_THAT(draft, HasSubstr("why: the RDMA CNI the bundle's NADs chain needs it"));
  // The fixture as it is: its NAD chains both, and is named.
  DiagnosticSink fixture;
  const std::string full =
      discover::Discover({{"oke-intel.json", Fixture("oke-intel.json")}}, {"oke"}, fixture);
  EXPECT_THAT(full,
              HasSubstr("why: NetworkAttachmentDefinition ml-jobs/roce-vf of the export uses it"));
  EXPECT_THAT(full, HasSubstr("why: the RDMA CNI, which NetworkAttachmentDefinition "
                              "ml-jobs/roce-vf of the export chains, needs it"));
}

}  // namespace
}  // namespace hkim
