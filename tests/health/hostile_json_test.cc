// What hkim-health reads from other programs (the API server's Node objects, hkim-nccl-check's
// JSON record, the localization peers' exchange lines) with fields of other types than expected:
// each reads as absent, never ends the program with an exception or undefined behaviour. The
// inputs are the shapes the fuzz targets in wrapper/health/fuzz/ produced.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "check_outcomes.h"
#include "exchange.h"
#include "localize_run.h"
#include "node_inventory.h"
#include "node_mark.h"
#include "summary.h"

namespace hkim::health {
namespace {

using nlohmann::json;

ChildResult Child(int status, std::string output) {
  ChildResult child;
  child.started = true;
  child.status = status;
  child.output = std::move(output);
  return child;
}

TEST(HostileJson, ExchangeHelloWithAnOrdinalThatIsNoIntIsRefused) {
  for (const char* ordinal : {R"("1")", "1.5", "1e300", "-1e300", "4294967297", "null"}) {
    const std::string line =
        std::string(R"({"magic":"hkim-localize/1","tag":"start","ordinal":)") + ordinal + "}";
    ExchangeHello hello;
    ASSERT_NO_THROW(hello = ReadExchangeHello(line, "start", 8)) << line;
    EXPECT_EQ(hello.refusal, "ordinal out of range") << line;
  }
}

TEST(HostileJson, ExchangeHelloWithATagThatIsNoStringIsRefused) {
  ExchangeHello hello;
  ASSERT_NO_THROW(hello = ReadExchangeHello(R"({"magic":"hkim-localize/1","tag":7,"ordinal":1})",
                                            "start", 8));
  EXPECT_EQ(hello.refusal, "tag (none), expected start");
  ASSERT_NO_THROW(hello = ReadExchangeHello(R"({"magic":["hkim-localize/1"]})", "start", 8));
  EXPECT_EQ(hello.refusal, "not a localization peer");
}

TEST(HostileJson, ExchangeAnswerWithFieldsOfOtherTypesIsAnError) {
  ExchangeResult answer;
  ASSERT_NO_THROW(answer = ReadExchangeAnswer(R"({"magic":"hkim-localize/1","error":7})", "h:1"));
  EXPECT_FALSE(answer.ok);
  EXPECT_EQ(answer.error, "rank 0 refused: (no reason given)");
  ASSERT_NO_THROW(answer = ReadExchangeAnswer(R"({"magic":"hkim-localize/1","values":"x"})", "h:1"));
  EXPECT_TRUE(answer.ok);
  EXPECT_TRUE(answer.values.empty());
}

TEST(HostileJson, StartTableEntriesThatAreNoObjectsGiveEmptyPods) {
  const std::map<int, json> table = {
      {0, json::parse(R"({"status":"pass","node":"a","pod":"p0","rails":["mlx5_0"]})")},
      {1, json(5)},
      {2, json::parse(R"({"status":1,"node":["b"],"pod":null,"rails":"mlx5_0"})")}};
  bool any_failed = false;
  std::vector<LocalizePod> pods;
  ASSERT_NO_THROW(pods = PodsFromStartTable(table, &any_failed));
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[0].node, "a");
  EXPECT_EQ(pods[0].rails, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(pods[1].node, "");
  EXPECT_TRUE(pods[2].rails.empty());
  EXPECT_TRUE(any_failed);  // a pod that did not say "pass" counts as failed
}

TEST(HostileJson, RoundReportsWithFieldsOfOtherTypesBreakNothing) {
  const std::vector<LocalizePod> pods = {{0, "a", "p0", {}}, {1, "b", "p1", {}}};
  const std::map<int, json> table = {
      {0, json::parse(R"({"report":{"ran":"yes","ok":1,"busbw_gbps":"fast","rails":[3,{"ok":true}]}})")},
      {1, json::parse(R"({"report":{"ran":true,"ok":true,"busbw_gbps":40,"transport":5,"rails":{"a":1}}})")}};
  GroupResult result;
  ASSERT_NO_THROW(result = CombineReports(0, {0, 1}, pods, table));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.transport, "");
}

TEST(HostileJson, NcclRecordWithFieldsOfOtherTypesIsReadAsAbsent) {
  for (const char* record :
       {R"({"threshold":5,"transport":"NET/IB"})", R"({"results":[1,{"bytes":"1G"}],"rails":[7]})",
        R"({"threshold":{"at_bytes":-1,"min_busbw_gbps":"300"},"transport":{"summary":5}})",
        R"({"failures":"one","results":{"bytes":1}})"}) {
    CheckOutcome outcome;
    ASSERT_NO_THROW(outcome = NcclOutcome("nccl-job", Child(1, record))) << record;
    EXPECT_EQ(outcome.status, "fail") << record;
    MemberReport report;
    ASSERT_NO_THROW(report = ReportFromRecord(record, 1, false, "")) << record;
    EXPECT_TRUE(report.ran) << record;
  }
}

TEST(HostileJson, WrapperOutputThatIsNotUtf8StillMakesASummaryLine) {
  NodeSummary summary;
  summary.checks.push_back(
      DiagnosisOutcome(Child(1, "hkim-wrapper: error: mlx5_\xff port down\nresult: \xc3(\n")));
  std::string line;
  ASSERT_NO_THROW(line = FormatSummaryLine(summary));
  EXPECT_NE(line.find("mlx5_"), std::string::npos);
}

TEST(HostileJson, NodeWithFieldsOfOtherTypesFailsTheInventory) {
  for (const char* node :
       {R"({"metadata":{"name":5},"status":{"conditions":[1,{"type":"Ready","status":true}]}})",
        R"({"metadata":[],"status":5})", R"({"status":{"conditions":{"type":"Ready"}}})"}) {
    InventoryResult result;
    ASSERT_NO_THROW(result = CheckNodeInventory(json::parse(node), NodeExpectation{8, {}})) << node;
    EXPECT_FALSE(result.passed) << node;
  }
}

TEST(HostileJson, NodeMarkReadsFieldsOfOtherTypesAsAbsent) {
  const NodeMark pass{true, "", "2026-11-28T00:00:00Z", false, 2};
  const NodeMark fail{false, "slow", "2026-11-28T00:00:00Z", true, 2};
  for (const char* node :
       {R"({"metadata":5,"spec":[]})", R"({"metadata":{"labels":7,"annotations":[]},"spec":{"taints":5}})",
        R"({"metadata":{"labels":{"hkimgen.io/nccl-health":1}},"spec":{"taints":[3,{"key":5}]}})"}) {
    ASSERT_NO_THROW((void)MarkPatch(json::parse(node), pass)) << node;
    ASSERT_NO_THROW((void)MarkPatch(json::parse(node), fail)) << node;
  }
}

TEST(HostileJson, PassCountAnnotationBeyondIntIsAFreshCount) {
  const json node = json::parse(
      R"({"metadata":{"labels":{"hkimgen.io/nccl-health":"fail"},)"
      R"("annotations":{"hkimgen.io/nccl-health-passes":"2147483647"}}})");
  const NodeMark pass{true, "", "2026-11-28T00:00:00Z", false, 3};
  EXPECT_EQ(MarkEffect(node, pass), "healing 1/3");
}

}  // namespace
}  // namespace hkim::health
