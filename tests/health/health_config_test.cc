#include "health_config.h"

#include <gtest/gtest.h>

namespace hkim::health {
namespace {

EnvLookup Env(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(HealthConfig, ReadsTheContractVariables) {
  HealthConfig config;
  std::vector<std::string> errors;
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_MODE", "gate"},
                             {"HKIM_HEALTH_POLICY", "warn"},
                             {"HKIM_NODE_NAME", "gpu-1"},
                             {"HKIM_HEALTH_EXPECT_GPUS", "8"},
                             {"HKIM_HEALTH_EXPECT_RESOURCES", "nvidia.com/sriov_rdma_vf=16,a/b=1"},
                             {"HKIM_HEALTH_NODE_SELECTOR", "node.kubernetes.io/instance-type=BM.GPU.H100.8"},
                             {"HKIM_HEALTH_TAINT", "true"},
                             {"HKIM_HEALTH_PER_RAIL", "1"},
                             {"HKIM_HEALTH_TIMEOUT_S", "600"}}),
                        config, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(config.mode, RunMode::kGate);
  EXPECT_FALSE(config.fail_on_failure);
  EXPECT_EQ(config.expected.gpus, 8);
  EXPECT_EQ(config.expected.resources.at("nvidia.com/sriov_rdma_vf"), 16);
  EXPECT_EQ(LabelSelector(config.node_selector), "node.kubernetes.io/instance-type=BM.GPU.H100.8");
  EXPECT_TRUE(config.taint);
  EXPECT_TRUE(config.per_rail);
  EXPECT_DOUBLE_EQ(config.check_timeout_s, 600);
}

TEST(HealthConfig, ReadsThePodModeVariablesWithTheirDefaults) {
  HealthConfig defaults;
  std::vector<std::string> errors;
  ReadHealthEnvironment(Env({}), defaults, errors);
  EXPECT_EQ(defaults.ready_file, "/opt/hkim/nccl/fabric-ready");
  EXPECT_DOUBLE_EQ(defaults.assemble_timeout_s, 300);
  EXPECT_EQ(defaults.pod_revision, "");
  HealthConfig config;
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_READY_FILE", "/tmp/ready"},
                             {"HKIM_HEALTH_ASSEMBLE_TIMEOUT_S", "45"},
                             {"HKIM_POD_REVISION", "nccl-job-7d9f8"}}),
                        config, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(config.ready_file, "/tmp/ready");
  EXPECT_DOUBLE_EQ(config.assemble_timeout_s, 45);
  EXPECT_EQ(config.pod_revision, "nccl-job-7d9f8");
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_ASSEMBLE_TIMEOUT_S", "0"}}), config, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "HKIM_HEALTH_ASSEMBLE_TIMEOUT_S='0' is not valid\nfix: give seconds between 1 "
                       "and 86400");
}

TEST(HealthConfig, ReadsTheNightCoordinatorsPoolAndBounds) {
  HealthConfig config;
  std::vector<std::string> errors;
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_MODE", "night"},
                             {"HKIM_HEALTH_INCLUDE_NODES", "u17,u18,,u25"},
                             {"HKIM_HEALTH_EXCLUDE_NODES", "yunshi-1"},
                             {"HKIM_HEALTH_PLACEMENT_TIMEOUT_S", "120"},
                             {"HKIM_HEALTH_POLL_S", "0.5"},
                             {"HKIM_HEALTH_CHECK_POD", "/x/pod.json"},
                             {"HKIM_POD_UID", "u-1"},
                             {"HKIM_POD_NAMESPACE", "ns-fabric-health"}}),
                        config, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(config.mode, RunMode::kNight);
  EXPECT_EQ(config.include_nodes, (std::set<std::string>{"u17", "u18", "u25"}));
  EXPECT_EQ(config.exclude_nodes, (std::set<std::string>{"yunshi-1"}));
  EXPECT_DOUBLE_EQ(config.placement_timeout_s, 120);
  EXPECT_DOUBLE_EQ(config.poll_s, 0.5);
  EXPECT_EQ(config.check_pod_file, "/x/pod.json");
  EXPECT_EQ(config.pod_uid, "u-1");
  EXPECT_EQ(config.pod_namespace, "ns-fabric-health");
  EXPECT_FALSE(config.report_to_termination);
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_REPORT", "termination"},
                             {"HKIM_HEALTH_PLACEMENT_TIMEOUT_S", "0"}}),
                        config, errors);
  EXPECT_TRUE(config.report_to_termination);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "HKIM_HEALTH_PLACEMENT_TIMEOUT_S='0' is not valid\nfix: give seconds between 1 and 86400");
}

TEST(HealthConfig, BadValuesAreNamedWithAFix) {
  HealthConfig config;
  std::vector<std::string> errors;
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_TAINT", "yes"},
                             {"HKIM_HEALTH_EXPECT_RESOURCES", "a/b"},
                             {"HKIM_HEALTH_TIMEOUT_S", "-3"}}),
                        config, errors);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "HKIM_HEALTH_EXPECT_RESOURCES='a/b' is not valid\n"
                       "fix: give name=count pairs, e.g. a/b=16,c/d=1");
  EXPECT_NE(errors[1].find("HKIM_HEALTH_TAINT='yes'"), std::string::npos);
  EXPECT_NE(errors[2].find("HKIM_HEALTH_TIMEOUT_S"), std::string::npos);
}

TEST(HealthConfig, ReadsTheLocalizationAndHealingSettings) {
  HealthConfig config;
  std::vector<std::string> errors;
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_RELEASE_AFTER", "3"},
                             {"HKIM_HEALTH_LOCALIZE", "always"},
                             {"HKIM_HEALTH_PAIR_TIMEOUT_S", "45"},
                             {"HKIM_HEALTH_MARK_SUSPECTS", "true"},
                             {"HKIM_REPLICAS", "16"},
                             {"MASTER_ADDR", "gate-0.svc"},
                             {"HKIM_RENDEZVOUS_PORT", "29700"},
                             {"HKIM_NCCL_CHECK_MIN_BUSBW_GBPS", "45.5"},
                             {"HKIM_NCCL_CHECK_AT_BYTES", "1G"}}),
                        config, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(config.release_after, 3);
  EXPECT_EQ(config.localize, "always");
  EXPECT_DOUBLE_EQ(config.pair_timeout_s, 45);
  EXPECT_TRUE(config.mark_suspects);
  EXPECT_EQ(config.replicas, 16);
  EXPECT_EQ(config.rendezvous_port, 29700);
  EXPECT_DOUBLE_EQ(config.min_busbw_gbps, 45.5);
  EXPECT_EQ(config.at_bytes, "1G");
  HealthConfig bad;
  errors.clear();
  ReadHealthEnvironment(Env({{"HKIM_HEALTH_RELEASE_AFTER", "0"}, {"HKIM_HEALTH_LOCALIZE", "maybe"}}),
                        bad, errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("HKIM_HEALTH_RELEASE_AFTER='0'"), std::string::npos);
  EXPECT_NE(errors[1].find("fix: use fail, always or off"), std::string::npos);
}

}  // namespace
}  // namespace hkim::health
