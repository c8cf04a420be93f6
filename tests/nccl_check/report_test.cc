#include "report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hkim::nccl_check {
namespace {

CheckReport Sample() {
  CheckReport report;
  report.config.min_busbw_gbps = 300;
  report.config.at_bytes = std::uint64_t{1} << 30;
  report.ranks = 2;
  report.local_gpus = 2;
  report.nccl_version = "2.28.9";
  report.nccl_library = "/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2";
  report.cuda_driver = "13.0";
  report.gpus = {"0: NVIDIA H200 (0000:1A:00.0)", "1: NVIDIA H200 (0000:2A:00.0)"};
  SizeResult row;
  row.bytes = std::uint64_t{1} << 30;
  row.iterations = 10;
  SetTimes(row, 10 * 3324.3e-6, 2);
  report.results = {row};
  report.transport = ParseNcclLog(
      "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 16, bw 40.0/40.0, type NVL/PIX, "
      "sameChannels 1\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n");
  report.verdict = Decide(report.config, report.results, report.ranks, report.transport);
  report.init_seconds = 0.8;
  report.total_seconds = 1.6;
  return report;
}

TEST(FormatTable, ShowsEverySizeTheTransportAndTheVerdict) {
  EXPECT_EQ(FormatTable(Sample()),
            "# hkim-nccl-check: all-reduce float32 sum, scope local, 2 rank(s), 2 local GPU(s)\n"
            "# NCCL 2.28.9 from /opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2, "
            "CUDA driver 13.0\n"
            "#   GPU 0: NVIDIA H200 (0000:1A:00.0)\n"
            "#   GPU 1: NVIDIA H200 (0000:2A:00.0)\n"
            "#         size        count  iters     time(us)  algbw(GB/s)  busbw(GB/s)     #wrong\n"
            "         1 GiB    268435456     10       3324.3       323.00       323.00          0\n"
            "# transport: P2P/CUMEM/read x1 (NVLink)\n"
            "# threshold: busbw >= 300.00 GB/s at 1 GiB, transport any\n"
            "# init 0.80 s, whole check 1.60 s\n"
            "# result: PASS\n");
}

TEST(FormatJson, HoldsTheNumbersAndTheVerdict) {
  const nlohmann::json record = nlohmann::json::parse(FormatJson(Sample()));
  EXPECT_EQ(record["passed"], true);
  EXPECT_EQ(record["ranks"], 2);
  EXPECT_EQ(record["results"][0]["bytes"], std::uint64_t{1} << 30);
  EXPECT_NEAR(record["results"][0]["busbw_gbps"].get<double>(), 322.99, 0.01);
  EXPECT_EQ(record["transport"]["used"], nlohmann::json::array({"P2P"}));
  EXPECT_EQ(record["transport"]["nvlink"], true);
  EXPECT_EQ(record["threshold"]["transport"], "any");
  EXPECT_EQ(record["nccl_version"], "2.28.9");
  EXPECT_EQ(record["nccl_library"],
            "/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
  EXPECT_EQ(record["cuda_driver"], "13.0");
}

TEST(FormatTable, ListsEachFailure) {
  CheckReport report = Sample();
  report.config.min_busbw_gbps = 400;
  report.verdict = Decide(report.config, report.results, report.ranks, report.transport);
  const std::string table = FormatTable(report);
  EXPECT_NE(table.find("# FAIL: bus bandwidth 323.00 GB/s at 1 GiB is below the minimum 400.00 "
                       "GB/s (2 ranks, P2P/CUMEM/read x1 (NVLink))\n# result: FAIL\n"),
            std::string::npos)
      << table;
}

// An interface name may hold any byte but '/', ':' and blanks, and NCCL logs it as it is; the
// library path and GPU names come from outside too. The JSON record replaces bytes that are not
// UTF-8 instead of throwing (which ended the check with std::terminate).
TEST(FormatJson, BytesThatAreNotUtf8FromTheLogBecomeReplacementCharacters) {
  CheckReport report = Sample();
  report.transport = ParseNcclLog(
      "h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth\xff\xfe:10.128.0.12<0>\n"
      "h:1:2 [0] NCCL INFO Using network Socket\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0\n");
  report.nccl_library = "/opt/\xc3(/libnccl.so.2";
  std::string text;
  ASSERT_NO_THROW(text = FormatJson(report));
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(json["nccl_library"], "/opt/\xef\xbf\xbd(/libnccl.so.2");
  EXPECT_NE(json["transport"].dump().find("eth\xef\xbf\xbd\xef\xbf\xbd:"), std::string::npos)
      << json["transport"].dump();
}

// A run whose rendezvous failed measured nothing: its record says so, apart from a failed check.
TEST(NoRendezvousJson, SaysThePodDidNotTakePartAndWhy) {
  CheckConfig config;
  config.scope = Scope::kJob;
  config.ordinal = 1;
  config.replicas = 2;
  config.rendezvous_port = 29657;
  const nlohmann::json record = nlohmann::json::parse(NoRendezvousJson(
      config, "cannot listen on port 29657 for the rendezvous: Address already in use",
      "choose a free HKIM_RENDEZVOUS_PORT"));
  EXPECT_EQ(record["passed"], false);
  EXPECT_EQ(record["took_part"], false);
  EXPECT_EQ(record["scope"], "job");
  EXPECT_EQ(record["rendezvous"]["port"], 29657);
  EXPECT_EQ(record["rendezvous"]["error"],
            "cannot listen on port 29657 for the rendezvous: Address already in use");
  EXPECT_EQ(record["failures"], nlohmann::json::array(
                                    {"rendezvous: cannot listen on port 29657 for the rendezvous: "
                                     "Address already in use"}));
}

}  // namespace
}  // namespace hkim::nccl_check
