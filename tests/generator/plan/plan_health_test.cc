// The fabric-health family (plan/health.cc, templates/health/): rendered from the shipped
// profiles through the whole pipeline and read back as YAML. The periodic check uses the
// StatefulSet's own pod spec and has least privilege (the in-pod check:
// plan_fabric_check_test.cc).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/diagnostics_format.h"
#include "pipeline/pipeline.h"
#include "support/version.h"
#include "test_files.h"
#include "plan/rendered_docs.h"

namespace hkim {
namespace {

const std::filesystem::path kSource = HKIM_SOURCE_DIR;

std::vector<YAML::Node> Render(const std::string& profile, std::vector<std::string> set = {},
                               std::string* errors = nullptr) {
  return plan_test::RenderShipped(profile, std::move(set), errors);
}

using plan_test::OfKind;

std::string Yaml(const YAML::Node& node) { return YAML::Dump(node); }

// Every pod template of the bundle (StatefulSet, health CronJob) runs the same wrapper
// image reference, pinned by wrapper.digest when one is given.
std::vector<std::string> WrapperImages(const std::vector<YAML::Node>& docs) {
  std::vector<std::string> images;
  for (const YAML::Node& doc : docs) {
    const std::string kind = doc["kind"].as<std::string>();
    YAML::Node spec = doc["spec"];
    if (kind == "CronJob") spec = spec["jobTemplate"]["spec"];
    if (kind != "CronJob" && kind != "Job" && kind != "StatefulSet") continue;
    for (const YAML::Node& c : spec["template"]["spec"]["initContainers"])
      if (c["name"].as<std::string>() == "install-hkim-wrapper")
        images.push_back(c["image"].as<std::string>());
  }
  return images;
}

TEST(WrapperImage, EveryPodTemplateRunsTheDigestPinnedReference) {
  const std::string digest = "sha256:" + std::string(64, 'e');
  const std::string image = "quay.io/hkim/hkim-wrapper:" + BuildVersion().version;
  const std::vector<std::string> plain = WrapperImages(Render("oke-h100"));
  ASSERT_EQ(plain.size(), 2u);  // StatefulSet, health CronJob
  for (const std::string& i : plain) EXPECT_EQ(i, image);
  const std::vector<std::string> pinned =
      WrapperImages(Render("oke-h100", {"wrapper.digest=" + digest}));
  ASSERT_EQ(pinned.size(), 2u);
  for (const std::string& i : pinned) EXPECT_EQ(i, image + "@" + digest);
}

TEST(WrapperImage, DigestOfAnotherFormIsAnErrorAtTheProfileField) {
  const std::string profile = "wrapper:\n  image: quay.io/hkim/hkim-wrapper:0.1.0\n  digest: sha256:abc\n";
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("hkim-wrapper-digest-" + std::to_string(getpid()) + ".yaml");
  {
    std::ofstream out(file);
    out << "extends: " << (kSource / "profiles/oke-h100.yaml").string() << "\n" << profile;
  }
  DiagnosticSink sink;
  SourceTexts sources;
  EXPECT_FALSE(RenderProfileLayers(LayerInputs{file.string(), {}, {}}, sink, &sources));
  const std::string errors = FormatDiagnostics(sink, sources);
  std::filesystem::remove(file);
  EXPECT_NE(errors.find(file.string() + ":4:11: error:"), std::string::npos) << errors;
  EXPECT_NE(errors.find("/wrapper/digest"), std::string::npos) << errors;
  EXPECT_NE(errors.find("64 lower-case hex digits"), std::string::npos) << errors;
}

// Issue 37: every shipped pool that runs over RDMA has a nightly check whose rotation is stated
// on the CronJob and passed to its pods; tcp mode and an explicit `enabled: false` have none.
TEST(PeriodicHealth, EveryShippedRdmaProfileRendersARotatingNightlyCheck) {
  int rdma_profiles = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "profiles")) {
    if (entry.path().extension() != ".yaml") continue;
    const YAML::Node profile = YAML::LoadFile(entry.path().string());
    if (!profile["workload"]["mode"] || profile["workload"]["mode"].as<std::string>() != "rdma")
      continue;
    ++rdma_profiles;
    const std::string name = entry.path().stem().string();
    const auto crons = OfKind(Render(name), "CronJob");
    ASSERT_EQ(crons.size(), 1u) << name;
    const YAML::Node& cron = crons[0];
    const std::string nights =
        cron["metadata"]["annotations"]["hkimgen.io/rotation-nights"].as<std::string>();
    EXPECT_GE(std::stoi(nights), 1) << name;
    const YAML::Node job = cron["spec"]["jobTemplate"]["spec"];
    EXPECT_EQ(cron["metadata"]["annotations"]["hkimgen.io/rotation-nodes"].as<std::string>(),
              job["completions"].as<std::string>()) << name;
    std::string env_nights;
    for (const YAML::Node& e : job["template"]["spec"]["containers"][0]["env"])
      if (e["name"].as<std::string>() == "HKIM_HEALTH_ROTATION_NIGHTS")
        env_nights = e["value"].as<std::string>();
    EXPECT_EQ(env_nights, nights) << name;
  }
  EXPECT_GE(rdma_profiles, 4);
}

TEST(PeriodicHealth, OffInTcpModeOrWhenTurnedOff) {
  EXPECT_TRUE(OfKind(Render("oke-a100", {"workload.mode=tcp"}), "CronJob").empty());
  const auto off = Render("oke-a100", {"fabric_health.periodic.enabled=false"});
  EXPECT_TRUE(OfKind(off, "CronJob").empty());
  EXPECT_TRUE(OfKind(off, "ClusterRole").empty());
}

TEST(PeriodicHealth, RotationNightsAndPoolSizeReachTheCronJob) {
  const auto docs = Render("oke-a100", {"fabric_health.periodic.nights=4",
                                        "fabric_health.periodic.nodes=12"});
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  EXPECT_EQ(cron["metadata"]["annotations"]["hkimgen.io/rotation-nights"].as<std::string>(), "4");
  EXPECT_EQ(cron["spec"]["jobTemplate"]["spec"]["completions"].as<int>(), 12);
  EXPECT_EQ(cron["spec"]["jobTemplate"]["spec"]["parallelism"].as<int>(), 12);
}

TEST(PeriodicHealth, CronJobIsPreemptibleForbidsOverlapAndReachesMarkedNodes) {
  const auto docs = Render("oke-h100");
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  EXPECT_EQ(cron["spec"]["concurrencyPolicy"].as<std::string>(), "Forbid");
  const YAML::Node pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  const YAML::Node priority = OfKind(docs, "PriorityClass").at(0);
  EXPECT_EQ(pod["priorityClassName"].as<std::string>(), priority["metadata"]["name"].as<std::string>());
  EXPECT_LT(priority["value"].as<int>(), 0);
  EXPECT_EQ(priority["preemptionPolicy"].as<std::string>(), "Never");
  EXPECT_FALSE(priority["globalDefault"].as<bool>());
  EXPECT_FALSE(pod["affinity"]["nodeAffinity"]);  // must re-check failed nodes
  bool tolerates_own_taint = false;
  for (const YAML::Node& t : pod["tolerations"])
    tolerates_own_taint |= t["key"] && t["key"].as<std::string>() == "hkimgen.io/nccl-health";
  EXPECT_TRUE(tolerates_own_taint);
  std::map<std::string, std::string> env;
  for (const YAML::Node& e : pod["containers"][0]["env"])
    env[e["name"].as<std::string>()] = e["value"] ? e["value"].as<std::string>() : "(field)";
  EXPECT_EQ(env["HKIM_NODE_NAME"], "(field)");
  EXPECT_EQ(env["HKIM_HEALTH_EXPECT_GPUS"], "8");
  EXPECT_EQ(env["HKIM_HEALTH_EXPECT_RESOURCES"], "nvidia.com/sriov_rdma_vf=16");
  EXPECT_EQ(env["HKIM_HEALTH_NODE_SELECTOR"], "node.kubernetes.io/instance-type=BM.GPU.H100.8");
  EXPECT_EQ(env["HKIM_HEALTH_TAINT"], "true");
  EXPECT_EQ(env["HKIM_ON_NO_RDMA"], "tcp");
  EXPECT_EQ(env["HKIM_HEALTH_RELEASE_AFTER"], "2");  // release_after_passes' default
}

// Issue 14 item 9: host name lists reach every pod (the shared pod spec); the health mark is
// avoided by the workload, and the CronJob still reaches marked nodes.
TEST(NodeLists, IncludeAndExcludeNodesReachEveryPodBesideTheHealthMark) {
  const auto docs = Render("oke-h100", {"node_shape.include_nodes={10.0.1.5,10.0.1.6,10.0.1.7}",
                                        "node_shape.exclude_nodes={10.0.1.9}"});
  const std::vector<std::pair<YAML::Node, bool>> pods = {
      {OfKind(docs, "StatefulSet").at(0)["spec"]["template"]["spec"], true},
      {OfKind(docs, "CronJob").at(0)["spec"]["jobTemplate"]["spec"]["template"]["spec"], false}};
  for (const auto& [pod, avoids_marked] : pods) {
    const YAML::Node terms = pod["affinity"]["nodeAffinity"]
                                ["requiredDuringSchedulingIgnoredDuringExecution"]
                                ["nodeSelectorTerms"];
    ASSERT_EQ(terms.size(), 1u);  // one term: its expressions must all hold
    std::map<std::string, std::string> expressions;  // "key operator" -> values
    for (const YAML::Node& e : terms[0]["matchExpressions"]) {
      std::string values;
      for (const YAML::Node& v : e["values"]) values += v.as<std::string>() + " ";
      expressions[e["key"].as<std::string>() + " " + e["operator"].as<std::string>()] = values;
    }
    EXPECT_EQ(expressions["kubernetes.io/hostname In"], "10.0.1.5 10.0.1.6 10.0.1.7 ");
    EXPECT_EQ(expressions["kubernetes.io/hostname NotIn"], "10.0.1.9 ");
    EXPECT_EQ(expressions.count("hkimgen.io/nccl-health NotIn"), avoids_marked ? 1u : 0u);
    if (avoids_marked) EXPECT_EQ(expressions["hkimgen.io/nccl-health NotIn"], "fail ");
  }
  // Without the lists only the health mark is there.
  const YAML::Node plain = OfKind(Render("oke-h100"), "StatefulSet").at(0)["spec"]["template"]["spec"];
  EXPECT_EQ(plain["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                 ["nodeSelectorTerms"][0]["matchExpressions"].size(), 1u);
}

TEST(PeriodicHealth, ClusterRoleOnlyReadsAndPatchesNodesForItsOwnServiceAccount) {
  const auto docs = Render("oke-h100");
  const YAML::Node role = OfKind(docs, "ClusterRole").at(0);
  EXPECT_EQ(role["metadata"]["name"].as<std::string>(), "hkimgen:oke-h100:fabric-health");
  ASSERT_EQ(role["rules"].size(), 1u);
  const YAML::Node rule = role["rules"][0];
  using Strings = std::vector<std::string>;
  EXPECT_EQ(rule["apiGroups"].as<Strings>(), Strings{""});
  EXPECT_EQ(rule["resources"].as<Strings>(), Strings{"nodes"});
  EXPECT_EQ(rule["verbs"].as<Strings>(), (Strings{"get", "list", "patch"}));
  EXPECT_FALSE(rule["resourceNames"]);
  const YAML::Node binding = OfKind(docs, "ClusterRoleBinding").at(0);
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  const std::string sa = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>();
  ASSERT_EQ(binding["subjects"].size(), 1u);
  EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), sa);
  // The workload's own service account gets no node rights.
  EXPECT_NE(sa, OfKind(docs, "StatefulSet").at(0)["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>());
  EXPECT_EQ(role["__file"].as<std::string>().find(':'), std::string::npos);
}

TEST(PeriodicHealth, OpenShiftHealthAccountMayUseTheScc) {
  const auto docs = Render("barcelona-h100-cx7", {"fabric_health.periodic.enabled=true"});
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  const std::string sa = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>();
  bool bound = false;
  for (const YAML::Node& binding : OfKind(docs, "RoleBinding"))
    for (const YAML::Node& subject : binding["subjects"])
      bound |= subject["name"].as<std::string>() == sa &&
               binding["roleRef"]["name"].as<std::string>().find("use-scc") != std::string::npos;
  EXPECT_TRUE(bound);
}

TEST(FabricHealth, NoPrivilegedContainerInTheNewObjects) {
  for (const std::string profile : {"barcelona-h100-cx7", "oke-h100", "oke-a100"}) {
    for (const YAML::Node& doc : Render(profile, {"fabric_health.periodic.enabled=true"})) {
      const std::string kind = doc["kind"].as<std::string>();
      if (kind != "Job" && kind != "CronJob") continue;
      EXPECT_EQ(Yaml(doc).find("privileged: true"), std::string::npos) << profile << " " << kind;
      EXPECT_EQ(Yaml(doc).find("hostNetwork"), std::string::npos);
      EXPECT_EQ(Yaml(doc).find("hostPID"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace hkim
