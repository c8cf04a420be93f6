// `hkimgen doctor`: summaries out of mixed `kubectl logs` text -> one fleet table.
#include "doctor/doctor.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "commands/doctor_command.h"

namespace hkim {
namespace {

const char* kLogs =
    "[pod/train-fabric-health-abc/train-fabric-health] hkim-wrapper: rdma, 16 device(s)\n"
    "[pod/train-fabric-health-abc/train-fabric-health] HKIM_HEALTH_SUMMARY "
    R"X({"tool":"hkim-health","format":1,"mode":"node","node":"gpu-b","pod":"p1","time":"2026-11-23T03:17:40Z","passed":false,"mark":"label fail + taint",)X"
    R"X("checks":[{"name":"inventory","status":"pass","detail":"","failures":[],"fixes":[]},)X"
    R"X({"name":"diagnosis","status":"pass","detail":"","failures":[],"fixes":[]},)X"
    R"X({"name":"nccl-local","status":"fail","detail":"busbw 20.00 GB/s (min 100.00)","failures":["busbw 20.00 GB/s at 1G is below the minimum 100.00 GB/s"],"fixes":["compare with the thresholds"]}]})X"
    "\n"
    "2026-11-23T03:17:41Z HKIM_HEALTH_SUMMARY "
    R"X({"tool":"hkim-health","format":1,"mode":"node","node":"gpu-a","pod":"p0","time":"2026-11-23T03:17:39Z","passed":true,"mark":"label pass",)X"
    R"X("checks":[{"name":"inventory","status":"pass"},{"name":"diagnosis","status":"pass"},{"name":"nccl-local","status":"pass"},{"name":"per-rail","status":"pass"}]})X"
    "\n"
    "noise HKIM_HEALTH_SUMMARY {\"tool\":\"hkim-health\",\"node\":\"gpu-c\",\"chec\n";

TEST(Doctor, OneRowPerNodeFromMixedLogs) {
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"-", kLogs}}, warnings);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].node, "gpu-a");
  EXPECT_EQ(nodes[1].node, "gpu-b");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "-:4: the summary is not valid JSON (cut off?)");
  const std::string table = FormatFleetTable(nodes);
  EXPECT_NE(table.find("NODE   RESULT  inventory  diagnosis  nccl-local  per-rail  TIME"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("gpu-b  FAIL    pass       pass       fail        -"), std::string::npos)
      << table;
  EXPECT_NE(table.find("  nccl-local: fail (busbw 20.00 GB/s (min 100.00))\n"
                       "    busbw 20.00 GB/s at 1G is below the minimum 100.00 GB/s\n"
                       "    fix: compare with the thresholds\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("2 node(s), 1 failing"), std::string::npos);
  // The ages are relative to the input, and the table says to what.
  EXPECT_NE(table.find("\nAGO counts back from the newest record read, "), std::string::npos)
      << table;
}

std::string NightLine(const std::string& node, const std::string& time, bool passed,
                      const std::string& checks, const std::string& mark) {
  return "[pod/h-fabric-health-29/coordinator] HKIM_HEALTH_SUMMARY "
         R"({"tool":"hkim-health","format":1,"mode":"night","node":")" + node +
         R"(","pod":"h-29","time":")" + time + R"(","passed":)" + (passed ? "true" : "false") +
         R"(,"mark":")" + mark + R"(","checks":[{"name":"inventory","status":"pass"},)" + checks +
         "]}\n";
}

const char* kBusy =
    R"X({"name":"placement","status":"skip","detail":"busy: checked when its job starts (not placed within 300 s)"})X";

// A node that failed, then was busy two nights, is still a failed node; how long ago
// it was tested is counted from the newest summary of the input, not the clock.
TEST(Doctor, BusyNightsDoNotHideTheLastTestAndAreCounted) {
  const std::string logs =
      NightLine("gpu-1", "2026-11-25T03:20:00Z", false,
                R"({"name":"placement","status":"pass"},{"name":"nccl-local","status":"fail","detail":"busbw 20 GB/s"})",
                "label fail") +
      NightLine("gpu-1", "2026-11-26T03:20:00Z", true, kBusy, "unchanged (busy)") +
      NightLine("gpu-1", "2026-11-27T03:20:00Z", true, kBusy, "unchanged (busy)") +
      NightLine("gpu-2", "2026-11-27T03:20:00Z", true, kBusy, "unchanged (busy)") +
      NightLine("gpu-3", "2026-11-27T03:10:00Z", true,
                R"({"name":"placement","status":"skip","detail":"not in tonight's slice"})",
                "unchanged") +
      NightLine("gpu-3", "2026-11-24T05:20:00Z", true,
                R"({"name":"placement","status":"pass"},{"name":"nccl-local","status":"pass"})",
                "label pass");
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"night.log", logs}}, warnings);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_FALSE(nodes[0].passed);
  EXPECT_EQ(nodes[0].time, "2026-11-25T03:20:00Z");
  EXPECT_EQ(nodes[0].how, "night");
  EXPECT_EQ(nodes[0].busy_skips, 2);
  EXPECT_FALSE(nodes[1].tested);
  EXPECT_EQ(nodes[1].busy_skips, 1);
  EXPECT_TRUE(nodes[2].tested);
  EXPECT_EQ(nodes[2].busy_skips, 0);
  const std::string table = FormatFleetTable(nodes);
  EXPECT_NE(table.find("gpu-1  FAIL      pass       pass       fail        2026-11-25T03:20:00Z  "
                       "night  2d      2 (last 0s ago)  label fail"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("gpu-2  UNTESTED  pass       skip       -           never"), std::string::npos)
      << table;
  EXPECT_NE(table.find("2026-11-24T05:20:00Z  night  2d 22h  -"), std::string::npos) << table;
  EXPECT_NE(table.find("3 node(s), 1 failing, 1 never tested, 2 busy since their last test"),
            std::string::npos)
      << table;
  EXPECT_EQ(ShortDuration(SecondsBetween("2026-11-27T03:20:00Z", "2026-11-27T03:20:45Z")), "45s");
  EXPECT_EQ(SecondsBetween("yesterday", "2026-11-27T03:20:45Z"), -1);
}

TEST(Doctor, TheLaterRunOfANodeWins) {
  const std::string older =
      R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"node","node":"n","time":"2026-11-22T03:00:00Z","passed":false,"checks":[]})X";
  const std::string newer =
      R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"node","node":"n","time":"2026-11-23T03:00:00Z","passed":true,"checks":[]})X";
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"a", newer + "\n"}, {"b", older + "\n"}}, warnings);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_TRUE(nodes[0].passed);
}

TEST(Doctor, GateSuspectsShowInTheTableOncePerNode) {
  // Every gate pod prints the same suspects; gpu-c's own pod left no summary.
  const std::string suspects =
      R"X("suspects":[{"node":"gpu-c","pod":"gate-2","rail":"mlx5_11","busbw_gbps":12.0,"expected_gbps":45.0,"transport":"NET/Socket","evidence":"2 of 2 group(s) failed"}])X";
  std::string logs;
  for (const char* node : {"gpu-a", "gpu-b"})
    logs += std::string("HKIM_HEALTH_SUMMARY {\"tool\":\"hkim-health\",\"mode\":\"gate\",\"node\":\"") + node +
            "\",\"time\":\"2026-11-23T03:00:00Z\",\"passed\":false,\"checks\":[]," + suspects + "}\n";
  std::vector<std::string> warnings;
  const auto nodes = CollectSummaries({{"-", logs}}, warnings);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[2].node, "gpu-c");
  ASSERT_EQ(nodes[2].suspects.size(), 1u);
  EXPECT_TRUE(nodes[0].suspects.empty());
  const std::string table = FormatFleetTable(nodes);
  EXPECT_NE(table.find("SUSPECT"), std::string::npos) << table;
  EXPECT_NE(table.find("mlx5_11 12/45 GB/s"), std::string::npos) << table;
  EXPECT_NE(table.find("  node gpu-c rail mlx5_11: 12 GB/s vs >= 45 expected (NET/Socket)\n"
                       "    2 of 2 group(s) failed\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("3 node(s), 3 failing, 1 suspect(s)"), std::string::npos) << table;
  // No empty "gpu-a (gate):" section for a node whose summary lists no failing check.
  EXPECT_EQ(table.find("(gate):"), std::string::npos) << table;
}

TEST(DoctorCommand, ExitsOneOnAFailingNodeAndOnNoSummary) {
  std::istringstream in(kLogs);
  std::ostringstream out, err;
  EXPECT_EQ(RunDoctorCommand({}, in, out, err), 1);
  EXPECT_NE(out.str().find("gpu-b"), std::string::npos);
  std::istringstream empty("nothing here\n");
  std::ostringstream out2, err2;
  EXPECT_EQ(RunDoctorCommand({}, empty, out2, err2), 1);
  EXPECT_NE(err2.str().find("fix: pipe the logs"), std::string::npos);
  std::ostringstream out3, err3;
  EXPECT_EQ(RunDoctorCommand({{"/nonexistent/x.log"}}, empty, out3, err3), 2);
  EXPECT_NE(err3.str().find("/nonexistent/x.log: error: cannot read"), std::string::npos);
}

TEST(DoctorCommand, WarnsGccStyleAndPrintsOneJsonReport) {
  // `file:line: warning: ... [doctor.summary]`, and -o json as README says
  // every command has.
  std::istringstream in(kLogs);
  std::ostringstream out, err;
  EXPECT_EQ(RunDoctorCommand({}, in, out, err), 1);
  EXPECT_NE(err.str().find("<stdin>:4: warning: the summary is not valid JSON (cut off?) "
                           "[doctor.summary]"),
            std::string::npos)
      << err.str();
  DoctorOptions json_options;
  json_options.format = "json";
  std::istringstream again(kLogs);
  std::ostringstream json_out, json_err;
  EXPECT_EQ(RunDoctorCommand(json_options, again, json_out, json_err), 1);
  EXPECT_EQ(json_err.str(), "");
  const nlohmann::json report = nlohmann::json::parse(json_out.str());
  EXPECT_EQ(report["command"], "doctor");
  EXPECT_EQ(report["exit_code"], 1);
  ASSERT_EQ(report["result"]["nodes"].size(), 2u);
  EXPECT_EQ(report["result"]["nodes"][1]["node"], "gpu-b");
  EXPECT_EQ(report["result"]["nodes"][1]["passed"], false);
  EXPECT_EQ(report["diagnostics"][0]["rule"], "doctor.summary");
  EXPECT_EQ(report["diagnostics"][0]["line"], 4);
}

}  // namespace
}  // namespace hkim

namespace hkim {
namespace {

// The fleet table grouped by the scheduler's topology: the nodes' network blocks come
// from a cluster export (tests/generator/cluster_check/oke-blocks.json: gpu-1..6 in block-a,
// gpu-7..8 in block-b, gpu-9 without OCI's labels).
TEST(Doctor, GroupsTheTableByANodeLabelOfTheExport) {
  std::string logs;
  for (const char* line :
       {R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"node","node":"gpu-7","time":"2026-11-23T03:00:00Z","passed":false,"checks":[{"name":"nccl-local","status":"fail"}]})X",
        R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"node","node":"gpu-1","time":"2026-11-23T03:00:00Z","passed":true,"checks":[{"name":"nccl-local","status":"pass"}]})X",
        R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"node","node":"gpu-9","time":"2026-11-23T03:00:00Z","passed":true,"checks":[{"name":"nccl-local","status":"pass"}]})X",
        R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"node","node":"gpu-8","time":"2026-11-23T03:00:00Z","passed":false,"checks":[{"name":"nccl-local","status":"fail"}]})X"})
    logs += std::string(line) + "\n";
  DoctorOptions options;
  options.cluster = std::string(HKIM_SOURCE_DIR) + "/tests/generator/cluster_check/oke-blocks.json";
  options.group_by = "oci.oraclecloud.com/rdma.network_block_id";
  std::istringstream in(logs);
  std::ostringstream out, err;
  EXPECT_EQ(RunDoctorCommand(options, in, out, err), 1) << err.str();
  const std::string table = out.str();
  // Rows by block (a node without the label first, as "-"), then by name.
  const size_t gpu9 = table.find("gpu-9  -"), gpu1 = table.find("gpu-1  block-a"),
               gpu7 = table.find("gpu-7  block-b"), gpu8 = table.find("gpu-8  block-b");
  ASSERT_NE(gpu9, std::string::npos) << table;
  ASSERT_NE(gpu1, std::string::npos) << table;
  ASSERT_NE(gpu7, std::string::npos) << table;
  ASSERT_NE(gpu8, std::string::npos) << table;
  EXPECT_LT(gpu9, gpu1);
  EXPECT_LT(gpu1, gpu7);
  EXPECT_LT(gpu7, gpu8);
  EXPECT_NE(table.find("NODE   rdma.network_block_id  RESULT"), std::string::npos) << table;
  EXPECT_NE(table.find("By oci.oraclecloud.com/rdma.network_block_id:\n"
                       "  -: 1 node(s), 0 failing\n"
                       "  block-a: 1 node(s), 0 failing\n"
                       "  block-b: 2 node(s), 2 failing\n"),
            std::string::npos)
      << table;

  // --group-by without an export is a usage error.
  options.cluster.clear();
  std::istringstream again(logs);
  std::ostringstream out2, err2;
  EXPECT_EQ(RunDoctorCommand(options, again, out2, err2), 1);
  EXPECT_NE(err2.str().find("--group-by needs --cluster"), std::string::npos) << err2.str();
}

// Found by doctor_fuzzer: a summary whose numbers or flags have another type ended doctor with
// nlohmann's type_error.
TEST(Doctor, FieldsOfOtherTypesReadAsAbsent) {
  const std::string log =
      R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"gate","node":"gpu-a","time":"t1",)X"
      R"X("passed":"no","checks":[],"suspects":[{"node":"gpu-c","rail":5,"busbw_gbps":"",)X"
      R"X("expected_gbps":[45]}]})X"
      "\n";
  std::vector<std::string> warnings;
  std::vector<DoctorNode> nodes;
  ASSERT_NO_THROW(nodes = CollectSummaries({{"-", log}}, warnings));
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_FALSE(nodes[0].passed);  // "no" is not true
  ASSERT_EQ(nodes[1].suspects.size(), 1u);
  EXPECT_EQ(nodes[1].suspects[0].busbw_gbps, 0);
  EXPECT_EQ(nodes[1].suspects[0].rail, "");
}

}  // namespace
}  // namespace hkim
