// The node condition RdmaFabric (plan/health_condition.cc, templates/health/ and
// templates/admission/): with fabric_health.node_condition on, the bundle carries the link
// agent (an unprivileged DaemonSet reading the host's sysfs read-only), the writers' rights on
// nodes/status and nothing more, and the fence; all valid for the upstream schemas. Off (the
// default), nothing of it is rendered.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "plan/rendered_docs.h"
#include "test_files.h"
#include "upstream_validator.h"

namespace hkim {
namespace {

using plan_test::OfKind;
using Strings = std::vector<std::string>;

std::vector<YAML::Node> Render(const std::string& profile, std::vector<std::string> set = {},
                               std::string* errors = nullptr) {
  return plan_test::RenderShipped(profile, std::move(set), errors);
}

const Strings kOn = {"fabric_health.node_condition.enabled=true"};

const YAML::Node* Named(const std::vector<YAML::Node>& docs, const std::string& kind,
                        const std::string& name) {
  for (const YAML::Node& doc : docs)
    if (doc["kind"].as<std::string>() == kind && doc["metadata"]["name"].as<std::string>() == name)
      return &doc;
  return nullptr;
}

std::map<std::string, std::string> EnvOf(const YAML::Node& container) {
  std::map<std::string, std::string> env;
  for (const YAML::Node& item : container["env"])
    env[item["name"].as<std::string>()] = item["value"] ? item["value"].as<std::string>() : "(ref)";
  return env;
}

TEST(NodeCondition, OffByDefaultRendersNothingOfIt) {
  for (const std::string profile : {"oke-h100", "barcelona-h100-cx7"}) {
    const auto docs = Render(profile, {"fabric_health.periodic.enabled=true"});
    EXPECT_TRUE(OfKind(docs, "DaemonSet").empty() ||
                Named(docs, "DaemonSet", "nccl-allreduce-fabric-links") == nullptr);
    for (const YAML::Node& role : OfKind(docs, "ClusterRole"))
      EXPECT_EQ(YAML::Dump(role).find("nodes/status"), std::string::npos) << profile;
  }
}

TEST(NodeCondition, TheLinkAgentIsAnUnprivilegedDaemonSetOnThePoolReadingSysfsReadOnly) {
  const auto docs = Render("barcelona-h100-cx7", {"fabric_health.periodic.enabled=true",
                                                   "fabric_health.node_condition.enabled=true"});
  const auto daemonsets = OfKind(docs, "DaemonSet");
  const YAML::Node* agent = nullptr;
  for (const YAML::Node& ds : daemonsets)
    if (ds["metadata"]["name"].as<std::string>().find("-fabric-links") != std::string::npos)
      agent = &ds;
  ASSERT_NE(agent, nullptr);
  const YAML::Node spec = (*agent)["spec"]["template"]["spec"];
  EXPECT_EQ((*agent)["metadata"]["namespace"].as<std::string>().find("-fabric-health"),
            (*agent)["metadata"]["namespace"].as<std::string>().size() - 14);
  EXPECT_TRUE(spec["securityContext"]["runAsNonRoot"].as<bool>());
  const YAML::Node container = spec["containers"][0];
  EXPECT_EQ(container["command"].as<Strings>(), (Strings{"/hkim/bin/hkim-health", "links"}));
  EXPECT_FALSE(container["securityContext"]["privileged"].as<bool>());
  EXPECT_FALSE(container["securityContext"]["allowPrivilegeEscalation"].as<bool>());
  EXPECT_EQ(container["securityContext"]["capabilities"]["drop"].as<Strings>(), Strings{"ALL"});
  EXPECT_FALSE(container["resources"]["limits"]["nvidia.com/gpu"]);
  ASSERT_EQ(container["volumeMounts"].size(), 1u);
  EXPECT_TRUE(container["volumeMounts"][0]["readOnly"].as<bool>());
  EXPECT_EQ(spec["volumes"][0]["hostPath"]["path"].as<std::string>(), "/sys");
  EXPECT_FALSE(spec["hostNetwork"]);
  EXPECT_FALSE(spec["hostPID"]);
  // The pool: its selector, and the profile's exclude_nodes kept out.
  EXPECT_TRUE(spec["nodeSelector"].size() > 0);
  EXPECT_NE(YAML::Dump(spec["affinity"]).find("NotIn"), std::string::npos);
  const auto env = EnvOf(container);
  EXPECT_EQ(env.at("HKIM_HEALTH_SYSFS"), "/host/sys/class/infiniband");
  EXPECT_EQ(env.at("HKIM_HEALTH_LINK_THRESHOLDS"),
            "link_downed=0/21600,rnr_nak_retry_err=0/21600,symbol_error=120/3600");
  EXPECT_EQ(env.at("HKIM_HEALTH_HEARTBEAT_S"), "300");
  EXPECT_EQ(env.at("HKIM_HEALTH_LINK_INTERVAL_S"), "60");
  // Barcelona names its rails' devices: the agent watches exactly those.
  EXPECT_NE(env.at("HKIM_HEALTH_LINK_RAILS").find("=mlx5_6"), std::string::npos);
  // OpenShift: its account may use hostmount-anyuid (hostPath), nothing else of an SCC.
  bool scc = false;
  for (const YAML::Node& role : OfKind(docs, "Role"))
    if (role["metadata"]["name"].as<std::string>() ==
        (*agent)["metadata"]["name"].as<std::string>() + "-use-scc-hostmount-anyuid")
      scc = true;
  EXPECT_TRUE(scc);
}

TEST(NodeCondition, WritersMayOnlyGetNodesAndPatchNodeStatus) {
  const auto docs = Render("oke-h100", kOn);
  const YAML::Node* agent_role = Named(docs, "ClusterRole", "hkimgen:oke-h100:fabric-links");
  ASSERT_NE(agent_role, nullptr);
  const YAML::Node rules = (*agent_role)["rules"];
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0]["resources"].as<Strings>(), Strings{"nodes"});
  EXPECT_EQ(rules[0]["verbs"].as<Strings>(), Strings{"get"});
  EXPECT_EQ(rules[1]["resources"].as<Strings>(), Strings{"nodes/status"});
  EXPECT_EQ(rules[1]["verbs"].as<Strings>(), Strings{"patch"});
  // The coordinator (marks: both, the default when on) patches nodes for the labels and
  // nodes/status for the condition.
  const YAML::Node* coordinator = Named(docs, "ClusterRole", "hkimgen:oke-h100:fabric-health");
  ASSERT_NE(coordinator, nullptr);
  ASSERT_EQ((*coordinator)["rules"].size(), 2u);
  EXPECT_EQ((*coordinator)["rules"][1]["resources"].as<Strings>(), Strings{"nodes/status"});
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  const auto env = EnvOf(cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]);
  EXPECT_EQ(env.at("HKIM_HEALTH_MARKS"), "both");
  // It reads the workload's pods (their termination messages) and nothing more there.
  EXPECT_EQ(env.at("HKIM_HEALTH_WORKLOAD_PODS"), "gpu-training");
  EXPECT_EQ(env.at("HKIM_HEALTH_WORKLOAD_SELECTOR"), "app=nccl-allreduce");
  const YAML::Node* results = Named(docs, "Role", "nccl-allreduce-fabric-health-pod-results");
  ASSERT_NE(results, nullptr);
  EXPECT_EQ((*results)["metadata"]["namespace"].as<std::string>(), "gpu-training");
  ASSERT_EQ((*results)["rules"].size(), 1u);
  EXPECT_EQ((*results)["rules"][0]["resources"].as<Strings>(), Strings{"pods"});
  EXPECT_EQ((*results)["rules"][0]["verbs"].as<Strings>(), (Strings{"get", "list"}));
  const YAML::Node* bound =
      Named(docs, "RoleBinding", "nccl-allreduce-fabric-health-pod-results");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ((*bound)["subjects"][0]["namespace"].as<std::string>(), "gpu-training-fabric-health");
  // marks: condition: no patch of nodes at all, and no label fence.
  const auto only = Render("oke-h100", {"fabric_health.node_condition.enabled=true",
                                        "fabric_health.node_condition.marks=condition"});
  const YAML::Node* role = Named(only, "ClusterRole", "hkimgen:oke-h100:fabric-health");
  ASSERT_NE(role, nullptr);
  EXPECT_EQ((*role)["rules"][0]["verbs"].as<Strings>(), (Strings{"get", "list"}));
  EXPECT_EQ(Named(only, "ValidatingAdmissionPolicy", "hkimgen-oke-h100-fabric-health-node-marks"),
            nullptr);
  EXPECT_NE(Named(only, "ValidatingAdmissionPolicy",
                  "hkimgen-oke-h100-fabric-health-node-condition"),
            nullptr);
}

TEST(NodeCondition, TheFenceMatchesNodeStatusForTheWritersOnly) {
  const auto docs = Render("oke-h100", kOn);
  const YAML::Node* policy =
      Named(docs, "ValidatingAdmissionPolicy", "hkimgen-oke-h100-fabric-health-node-condition");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ((*policy)["spec"]["matchConstraints"]["resourceRules"][0]["resources"].as<Strings>(),
            Strings{"nodes/status"});
  const std::string match =
      (*policy)["spec"]["matchConditions"][0]["expression"].as<std::string>();
  EXPECT_EQ(match,
            "request.userInfo.username in "
            "['system:serviceaccount:gpu-training-fabric-health:nccl-allreduce-fabric-health', "
            "'system:serviceaccount:gpu-training-fabric-health:nccl-allreduce-fabric-links']");
  EXPECT_NE(Named(docs, "ValidatingAdmissionPolicyBinding",
                  "hkimgen-oke-h100-fabric-health-node-condition"),
            nullptr);
}

TEST(NodeCondition, ContradictorySettingsAreErrorsAtTheirField) {
  std::string errors;
  EXPECT_TRUE(Render("oke-h100", {"fabric_health.node_condition.marks=condition"}, &errors).empty());
  EXPECT_NE(errors.find("[model.node-condition-off]"), std::string::npos) << errors;
  EXPECT_TRUE(Render("oke-h100", {"fabric_health.node_condition.enabled=true",
                                  "fabric_health.link_counters.enabled=false"},
                     &errors)
                  .empty());
  EXPECT_NE(errors.find("[model.node-condition-heartbeat]"), std::string::npos) << errors;
  EXPECT_FALSE(Render("oke-h100", {"fabric_health.node_condition.enabled=true",
                                   "fabric_health.link_counters.enabled=false",
                                   "fabric_health.node_condition.heartbeat_seconds=90000"},
                      &errors)
                   .empty())
      << errors;
  EXPECT_TRUE(Render("oke-h100", {"fabric_health.node_condition.enabled=true",
                                  "fabric_health.link_counters.interval_seconds=600"},
                     &errors)
                  .empty());
  EXPECT_NE(errors.find("[model.link-interval]"), std::string::npos) << errors;
  EXPECT_TRUE(Render("oke-a100", {"workload.mode=tcp", "fabric_health.node_condition.enabled=true"},
                     &errors)
                  .empty());
  EXPECT_NE(errors.find("[model.node-condition-needs-periodic]"), std::string::npos) << errors;
}

// The new objects are API objects: valid by the upstream schemas (DaemonSet, RBAC, the policy).
TEST(NodeCondition, TheNewObjectsValidateAgainstTheUpstreamSchemas) {
  char pattern[] = "/tmp/hkim-node-condition.XXXXXX";
  const std::string dir = ::mkdtemp(pattern);
  std::vector<std::string> files;
  for (const std::string profile : {"oke-h100", "barcelona-h100-cx7"}) {
    // The files as hkimgen writes them (a re-dump of the YAML would lose their quoting).
    const std::string bundle = dir + "/" + profile;
    const std::string render = std::string("'") + HKIM_BINARY + "' render '" + HKIM_SOURCE_DIR +
                               "/profiles/" + profile + ".yaml' -q -d '" + bundle +
                               "' --set fabric_health.node_condition.enabled=true > /dev/null 2>&1";
    ASSERT_EQ(std::system(render.c_str()), 0) << render;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(bundle)) {
      const std::string name = entry.path().filename().string();
      if (name.find("fabric-links") == std::string::npos &&
          name.find("node-condition") == std::string::npos &&
          name.find("clusterrole-hkimgen") == std::string::npos &&
          name.find("pod-results") == std::string::npos)
        continue;
      files.push_back(entry.path().string());
    }
  }
  // Per bundle: DaemonSet, SA, Role+Binding, ClusterRoles+Bindings, policy+binding.
  EXPECT_GE(files.size(), 14u);
  const test_files::UpstreamVerdict verdict = test_files::ValidateUpstream(files);
  if (!verdict.skip.empty()) GTEST_SKIP() << verdict.skip;
  EXPECT_EQ(verdict.status, 0) << verdict.text;
}

}  // namespace
}  // namespace hkim
