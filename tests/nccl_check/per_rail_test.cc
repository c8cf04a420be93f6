// The per-rail decision and its runner, without a GPU: fake NCCL results (child records) and a
// fake child program that answers per NCCL_IB_HCA, on a sysfs tree built here.
#include "per_rail.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "per_rail_run.h"

namespace hkim::nccl_check {
namespace {

RailRun Measured(double busbw, bool net_ib = true, int status = 0) {
  RailRun run;
  run.ran = true;
  run.exit_status = status;
  run.busbw_gbps = busbw;
  run.used_net_ib = net_ib;
  run.transport = net_ib ? "NET/IB/0/GDRDMA x8" : "NET/Socket/0 x8";
  return run;
}

PerRailPolicy Policy() {
  PerRailPolicy policy;
  policy.min_fraction = 0.75;
  policy.expected_rails = 4;
  policy.node = "gpu-7";
  return policy;
}

const std::vector<Rail> kRails = {{"mlx5_6", "net1", "::ffff:10.0.103.5"},
                                  {"mlx5_7", "net2", "::ffff:10.0.104.5"},
                                  {"mlx5_8", "net3", "::ffff:10.0.105.5"},
                                  {"mlx5_9", "net4", "::ffff:10.0.106.5"}};

TEST(PerRail, EqualRailsPass) {
  const auto result = DecidePerRail(kRails, {Measured(40), Measured(41), Measured(39.5), Measured(40.2)}, Measured(150), Policy());
  EXPECT_TRUE(result.passed);
  EXPECT_DOUBLE_EQ(result.best_gbps, 41);
}

TEST(PerRail, SlowRailFailsNamingRailInterfaceAndNode) {
  const auto result = DecidePerRail(kRails, {Measured(40), Measured(12), Measured(40), Measured(40)}, Measured(120), Policy());
  ASSERT_FALSE(result.passed);
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_EQ(result.failures[0],
            "rail mlx5_7 (interface net2) on node gpu-7 is slow: busbw 12.00 GB/s is 30.00% of "
            "the best rail's 40.00 GB/s (minimum 75.00%)");
  EXPECT_EQ(result.rails[1].status, "slow");
}

TEST(PerRail, SocketFallbackIsADownRail) {
  const auto result = DecidePerRail(kRails, {Measured(40), Measured(40), Measured(1.1, false), Measured(40)}, Measured(120), Policy());
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.failures[0],
            "rail mlx5_8 (interface net3) on node gpu-7 is down: NCCL did not use NET/IB over it "
            "(NET/Socket/0 x8)");
}

TEST(PerRail, SocketIsFineInTcpMode) {
  PerRailPolicy policy = Policy();
  policy.require_net_ib = false;
  const auto result = DecidePerRail(kRails, {Measured(5, false), Measured(5, false), Measured(5, false), Measured(5, false)},
                                    Measured(9, false), policy);
  EXPECT_TRUE(result.passed);
}

TEST(PerRail, FailedRunIsDownAndMissingRailsAreCounted) {
  const std::vector<Rail> three(kRails.begin(), kRails.begin() + 3);
  RailRun failed;
  failed.exit_status = 2;
  const auto result = DecidePerRail(three, {Measured(40), failed, Measured(40)}, Measured(100), Policy());
  ASSERT_EQ(result.failures.size(), 2u);
  EXPECT_EQ(result.failures[0],
            "rail mlx5_7 (interface net2) on node gpu-7 is down: the measurement did not run "
            "(exit status 2)");
  EXPECT_EQ(result.failures[1],
            "node gpu-7 has 3 RDMA device(s), the profile expects 4: rail(s) missing");
}

TEST(PerRail, TheWholeRunsOwnFailuresCount) {
  RailRun together = Measured(20, true, 1);
  together.failures = {"busbw 20.00 GB/s at 1G is below the minimum 120.00 GB/s"};
  const auto result = DecidePerRail(kRails, {Measured(40), Measured(40), Measured(40), Measured(40)}, together, Policy());
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.failures[0],
            "all rails together: busbw 20.00 GB/s at 1G is below the minimum 120.00 GB/s");
}

TEST(PerRail, HcaListsAreParsed) {
  std::string error;
  EXPECT_EQ(*RailsFromHcaList("=mlx5_0,mlx5_1:1", &error), (std::vector<std::string>{"mlx5_0", "mlx5_1:1"}));
  EXPECT_EQ(*RailsFromHcaList("mlx5_0", &error), std::vector<std::string>{"mlx5_0"});
  EXPECT_FALSE(RailsFromHcaList("^mlx5_0", &error));
  EXPECT_NE(error.find("excludes"), std::string::npos);
  EXPECT_FALSE(RailsFromHcaList("=", &error));
}

TEST(PerRail, ReadsAChildRecord) {
  const RailRun run = ReadRunRecord("=mlx5_6", 0, R"({"passed": true, "failures": [],
      "threshold": {"at_bytes": 1073741824},
      "results": [{"bytes": 1048576, "busbw_gbps": 2.0}, {"bytes": 1073741824, "busbw_gbps": 44.5}],
      "transport": {"used": ["NET/IB", "P2P"], "summary": "NET/IB/0/GDRDMA x8 [mlx5_6:1/RoCE]"}})");
  EXPECT_TRUE(run.ran);
  EXPECT_DOUBLE_EQ(*run.busbw_gbps, 44.5);
  EXPECT_TRUE(run.used_net_ib);
  EXPECT_FALSE(ReadRunRecord("x", 2, "garbage").ran);
}

// The runner end to end: a sysfs tree with two devices and a fake child that reports NET/IB at
// 40 GB/s except for mlx5_1, which falls back to sockets; the rounds use distinct ports.
TEST(PerRailRun, RunsOneChildPerRailThenAllTogether) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / ("per-rail-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const std::string dev : {"mlx5_0", "mlx5_1"}) {
    const fs::path d = root / "class/infiniband" / dev;
    fs::create_directories(d / "device/net" / (dev == "mlx5_0" ? "net1" : "net2"));
    fs::create_directories(d / "ports/1/gids");
    fs::create_directories(d / "ports/1/gid_attrs/types");
    std::ofstream(d / "ports/1/gids/3") << "0000:0000:0000:0000:0000:ffff:0a00:6705\n";
    std::ofstream(d / "ports/1/gid_attrs/types/3") << "RoCE v2\n";
  }
  const fs::path child = root / "fake-nccl-check";
  const fs::path log = root / "calls";
  std::ofstream(child) << "#!/bin/sh\n"
      "echo \"$NCCL_IB_HCA $HKIM_RENDEZVOUS_PORT $NCCL_P2P_DISABLE $HKIM_NCCL_CHECK_MIN_BUSBW_GBPS\" >> " << log.string() << "\n"
      "while [ \"$1\" != --json ]; do shift; done\n"
      "if [ \"$NCCL_IB_HCA\" = =mlx5_1 ]; then used=NET/Socket; bw=1.0; else used=NET/IB; bw=40.0; fi\n"
      "printf '{\"failures\":[],\"threshold\":{\"at_bytes\":8},\"results\":[{\"bytes\":8,\"busbw_gbps\":%s}],"
      "\"transport\":{\"used\":[\"%s\"],\"summary\":\"%s x2\"}}' $bw $used $used > \"$2\"\n";
  ::chmod(child.c_str(), 0755);

  CheckConfig config;
  config.scope = Scope::kLocal;
  config.rendezvous_port = 29650;
  const std::map<std::string, std::string> vars = {{"HKIM_NODE_NAME", "gpu-1"},
                                                   {"HKIM_NCCL_CHECK_EXPECT_RAILS", "2"}};
  const EnvLookup env = [&](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  const fs::path record = root / "record.json";
  const int status = RunPerRail({child.string(), {"--scope", "local"}, root.string()}, config, env,
                                record.string());
  EXPECT_EQ(status, 1);
  std::ifstream calls(log);
  std::string text((std::istreambuf_iterator<char>(calls)), {});
  EXPECT_EQ(text, "=mlx5_0 29651 1 0\n=mlx5_1 29652 1 0\n=mlx5_0,mlx5_1 29650 1 \n");
  const nlohmann::json json = nlohmann::json::parse(std::ifstream(record));
  EXPECT_EQ(json["rails"][0]["interface"], "net1");
  EXPECT_EQ(json["rails"][0]["gid"], "0000:0000:0000:0000:0000:ffff:0a00:6705");
  EXPECT_EQ(json["rails"][1]["status"], "down");
  EXPECT_EQ(json["failures"][0],
            "rail mlx5_1 (interface net2) on node gpu-1 is down: NCCL did not use NET/IB over it "
            "(NET/Socket x2)");
  fs::remove_all(root);
}

// A round whose rendezvous failed (the child exits 5: its port was in use) measured nothing:
// the whole per-rail run could not take part, with exit 5 and a record saying so, rather than a
// rail "down" that a caller would hold against the fabric.
TEST(PerRailRun, ARoundWhoseRendezvousFailedMakesTheRunNotTakePart) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::path(::testing::TempDir()) / ("per-rail-rdv-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "class/infiniband/mlx5_0/ports/1/gids");
  const fs::path child = root / "fake-nccl-check";
  std::ofstream(child) << "#!/bin/sh\n"
      "while [ \"$1\" != --json ]; do shift; done\n"
      "printf '{\"passed\":false,\"took_part\":false,\"failures\":[\"rendezvous: in use\"]}' > \"$2\"\n"
      "exit 5\n";
  ::chmod(child.c_str(), 0755);
  CheckConfig config;
  config.scope = Scope::kJob;
  config.rendezvous_port = 29650;
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HKIM_NODE_NAME") return std::string("gpu-1");
    return std::nullopt;
  };
  const fs::path record = root / "record.json";
  const int status = RunPerRail({child.string(), {"--scope", "job"}, root.string()}, config, env,
                                record.string());
  EXPECT_EQ(status, 5);
  const nlohmann::json json = nlohmann::json::parse(std::ifstream(record));
  EXPECT_EQ(json["took_part"], false);
  EXPECT_EQ(json["rendezvous"]["error"],
            "per-rail round NCCL_IB_HCA==mlx5_0: the rendezvous failed (its message is above)");
  fs::remove_all(root);
}

}  // namespace
}  // namespace hkim::nccl_check
