// The fabric consumers (plan/health_consumers.cc, templates/consumers/): none unless asked; each
// asked for renders its object and its implied preconditions. tests/cli/consumers_test.sh checks
// the rendered bundles against the upstream schemas and evaluates their CEL.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "plan/health_consumers.h"
#include "plan/rendered_docs.h"
#include "test_files.h"

namespace hkim {
namespace {

using plan_test::OfKind;
using plan_test::RenderShipped;

bool HasConsumerObject(const std::vector<YAML::Node>& docs) {
  for (const YAML::Node& doc : docs) {
    const std::string name = doc["metadata"]["name"].as<std::string>();
    if (doc["kind"].as<std::string>() == "NodeHealthCheck" ||
        name.find("nvsentinel-values") != std::string::npos ||
        name.find("rdma-fabric-npd") != std::string::npos)
      return true;
  }
  return false;
}

TEST(PlanConsumers, NoneUnlessAsked) {
  for (const std::string& profile : test_files::ShippedProfiles()) {
    std::string errors;
    const std::vector<YAML::Node> docs = RenderShipped(profile, {}, &errors);
    ASSERT_FALSE(docs.empty()) << errors;
    EXPECT_FALSE(HasConsumerObject(docs)) << profile;
  }
}

TEST(PlanConsumers, NodeHealthCheckNeverRemediatesAndNeedsTheOperator) {
  std::string errors;
  const std::vector<YAML::Node> docs =
      RenderShipped("barcelona-h100-cx7",
                    {"fabric_health.consumers.node_health_check.enabled=true",
                     "fabric_health.consumers.node_health_check.unknown_seconds=900"},
                    &errors);
  ASSERT_FALSE(docs.empty()) << errors;
  const std::vector<YAML::Node> checks = OfKind(docs, "NodeHealthCheck");
  ASSERT_EQ(checks.size(), 1u);
  const YAML::Node spec = checks[0]["spec"];
  EXPECT_EQ(spec["minHealthy"].as<std::string>(), "100%");
  EXPECT_EQ(spec["selector"]["matchLabels"]["nvidia.com/gpu.product"].as<std::string>(),
            "NVIDIA-H100-80GB-HBM3");
  ASSERT_EQ(spec["unhealthyConditions"].size(), 2u);
  EXPECT_EQ(spec["unhealthyConditions"][1]["status"].as<std::string>(), "Unknown");
  EXPECT_EQ(spec["unhealthyConditions"][1]["duration"].as<std::string>(), "900s");
  EXPECT_FALSE(spec["escalatingRemediations"]);
  Profile profile = test_files::BuildFrom(test_files::FreshOpenShiftProfile());
  profile.fabric_health.consumers.node_health_check.enabled = true;
  std::vector<std::string> kinds;
  for (const Precondition& pre : ConsumerPreconditions(profile))
    kinds.push_back(pre.kind + " " + pre.what);
  EXPECT_EQ(kinds, (std::vector<std::string>{
                       "crd remediation.medik8s.io/NodeHealthCheck",
                       "crd self-node-remediation.medik8s.io/SelfNodeRemediationTemplate"}));
}

TEST(PlanConsumers, NvSentinelAndNodeProblemDetectorConfigsInTheirNamespaces) {
  std::string errors;
  const std::vector<YAML::Node> docs =
      RenderShipped("oke-h100",
                    {"fabric_health.consumers.nvsentinel.enabled=true",
                     "fabric_health.consumers.nvsentinel.namespace=gpu-health",
                     "fabric_health.consumers.node_problem_detector.enabled=true"},
                    &errors);
  ASSERT_FALSE(docs.empty()) << errors;
  int found = 0;
  for (const YAML::Node& config : OfKind(docs, "ConfigMap")) {
    const std::string name = config["metadata"]["name"].as<std::string>();
    if (name == "hkimgen-oke-h100-nvsentinel-values") {
      ++found;
      EXPECT_EQ(config["metadata"]["namespace"].as<std::string>(), "gpu-health");
      const YAML::Node values = YAML::Load(config["data"]["values.yaml"].as<std::string>());
      EXPECT_FALSE(values["fault-quarantine"]["ruleSets"][0]["cordon"]["shouldCordon"].as<bool>());
      EXPECT_EQ(values["fault-quarantine"]["ruleSets"][0]["taint"]["key"].as<std::string>(),
                "hkimgen.io/rdma-fabric");
    }
    if (name == "hkimgen-oke-h100-rdma-fabric-npd") {
      ++found;
      EXPECT_EQ(config["metadata"]["namespace"].as<std::string>(), "kube-system");
      const YAML::Node plugin = YAML::Load(config["data"]["rdma-fabric.json"].as<std::string>());
      EXPECT_EQ(plugin["rules"][0]["condition"].as<std::string>(), "RdmaFabric");
    }
  }
  EXPECT_EQ(found, 2);
}

}  // namespace
}  // namespace hkim
