// The fabric-health family (plan/health.cc, templates/health/): rendered from the shipped
// profiles through the whole pipeline and read back as YAML. The periodic check uses the
// StatefulSet's own pod spec and has least privilege (the in-pod check:
// plan_fabric_check_test.cc).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/diagnostics_format.h"
#include "pipeline/pipeline.h"
#include "support/version.h"
#include "test_files.h"
#include "upstream_validator.h"
#include "plan/rendered_docs.h"

namespace hkim {
namespace {

const std::filesystem::path kSource = HKIM_SOURCE_DIR;

std::vector<YAML::Node> Render(const std::string& profile, std::vector<std::string> set = {},
                               std::string* errors = nullptr) {
  return plan_test::RenderShipped(profile, std::move(set), errors);
}

using plan_test::OfKind;
using plan_test::HealthOfKind;

std::string Yaml(const YAML::Node& node) { return YAML::Dump(node); }

// Every pod template of the bundle (StatefulSet, health CronJob) runs the same wrapper
// image reference, pinned by wrapper.digest when one is given.
std::vector<std::string> WrapperImages(const std::vector<YAML::Node>& docs) {
  std::vector<std::string> images;
  for (const YAML::Node& doc : docs) {
    const std::string kind = doc["kind"].as<std::string>();
    if (kind == "CronJob") {
      images.push_back(doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
                          ["image"].as<std::string>());
      continue;
    }
    YAML::Node pod;
    if (kind == "ConfigMap" && doc["data"]["check-pod.json"])
      pod = YAML::Load(doc["data"]["check-pod.json"].as<std::string>())["spec"];
    else if (kind == "Job" || kind == "StatefulSet")
      pod = doc["spec"]["template"]["spec"];
    else
      continue;
    for (const YAML::Node& c : pod["initContainers"])
      if (c["name"].as<std::string>() == "install-hkim-wrapper")
        images.push_back(c["image"].as<std::string>());
  }
  return images;
}

TEST(WrapperImage, EveryPodTemplateRunsTheDigestPinnedReference) {
  const std::string digest = "sha256:" + std::string(64, 'e');
  const std::string image = "quay.io/hkim/hkim-wrapper:" + BuildVersion().version;
  const std::vector<std::string> plain = WrapperImages(Render("oke-h100"));
  ASSERT_EQ(plain.size(), 3u);  // StatefulSet, check pod, coordinator
  for (const std::string& i : plain) EXPECT_EQ(i, image);
  const std::vector<std::string> pinned =
      WrapperImages(Render("oke-h100", {"wrapper.digest=" + digest}));
  ASSERT_EQ(pinned.size(), 3u);
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

// Every shipped pool that runs over RDMA has a nightly check whose rotation is stated
// on the CronJob and passed to its pods; tcp mode and an explicit `enabled: false` have none.
// The coordinator's container (the CronJob's only one) and its env, by name.
YAML::Node Coordinator(const YAML::Node& cron) {
  return cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0];
}

std::map<std::string, std::string> EnvOf(const YAML::Node& container) {
  std::map<std::string, std::string> env;
  for (const YAML::Node& e : container["env"])
    env[e["name"].as<std::string>()] =
        e["value"] ? e["value"].as<std::string>()
                   : "(field " + e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>() + ")";
  return env;
}

YAML::Node CoordinatorResources(const YAML::Node& cron) {
  return cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["resources"];
}

// The check pod the coordinator starts, as the ConfigMap holds it.
nlohmann::json CheckPodOf(const std::vector<YAML::Node>& docs) {
  for (const YAML::Node& doc : OfKind(docs, "ConfigMap"))
    if (doc["data"]["check-pod.json"])
      return nlohmann::json::parse(doc["data"]["check-pod.json"].as<std::string>());
  return nullptr;
}

std::map<std::string, std::string> EnvOf(const nlohmann::json& container) {
  std::map<std::string, std::string> env;
  for (const nlohmann::json& e : container["env"])
    env[e["name"]] = e.contains("value") ? e["value"].get<std::string>() : "(field)";
  return env;
}

TEST(PeriodicHealth, EveryShippedRdmaProfileRendersARotatingNightlyCheck) {
  int rdma_profiles = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "profiles")) {
    if (entry.path().extension() != ".yaml") continue;
    const YAML::Node profile = YAML::LoadFile(entry.path().string());
    if (!profile["workload"]["mode"] || profile["workload"]["mode"].as<std::string>() != "rdma")
      continue;
    ++rdma_profiles;
    const std::string name = entry.path().stem().string();
    const auto docs = Render(name);
    const auto crons = OfKind(docs, "CronJob");
    ASSERT_EQ(crons.size(), 1u) << name;
    const std::string nights =
        crons[0]["metadata"]["annotations"]["hkimgen.io/rotation-nights"].as<std::string>();
    EXPECT_GE(std::stoi(nights), 1) << name;
    EXPECT_EQ(EnvOf(Coordinator(crons[0]))["HKIM_HEALTH_ROTATION_NIGHTS"], nights) << name;
    EXPECT_TRUE(CheckPodOf(docs).is_object()) << name;
  }
  EXPECT_GE(rdma_profiles, 4);
}

TEST(PeriodicHealth, OffInTcpModeOrWhenTurnedOff) {
  EXPECT_TRUE(OfKind(Render("oke-a100", {"workload.mode=tcp"}), "CronJob").empty());
  const auto off = Render("oke-a100", {"fabric_health.periodic.enabled=false"});
  EXPECT_TRUE(OfKind(off, "CronJob").empty());
  EXPECT_TRUE(HealthOfKind(off, "ClusterRole").empty());
  EXPECT_TRUE(CheckPodOf(off).is_null());
}

// The run is one small coordinator pod; the GPUs and VFs are the check pods' alone,
// and only on the nodes the scheduler can place them on.
TEST(PeriodicHealth, TheCronJobRunsOneCoordinatorWithNoGpuFromTheWrapperImage) {
  const auto docs = Render("oke-h100", {"fabric_health.periodic.nights=4",
                                        "fabric_health.periodic.timeout_seconds=1800"});
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  EXPECT_EQ(cron["spec"]["concurrencyPolicy"].as<std::string>(), "Forbid");
  const YAML::Node job = cron["spec"]["jobTemplate"]["spec"];
  EXPECT_FALSE(job["completions"]);
  EXPECT_FALSE(job["parallelism"]);
  EXPECT_EQ(job["backoffLimit"].as<int>(), 0);
  EXPECT_EQ(job["activeDeadlineSeconds"].as<int>(), 300 + 1800 + 300);
  const YAML::Node pod = job["template"]["spec"];
  ASSERT_EQ(pod["containers"].size(), 1u);
  EXPECT_FALSE(pod["initContainers"]);
  EXPECT_FALSE(pod["priorityClassName"]);
  EXPECT_TRUE(pod["automountServiceAccountToken"].as<bool>());
  const YAML::Node coordinator = Coordinator(cron);
  const std::string wrapper_image = CheckPodOf(docs)["spec"]["initContainers"][0]["image"];
  EXPECT_EQ(coordinator["image"].as<std::string>(), wrapper_image);
  EXPECT_EQ(coordinator["command"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"/hkim/bin/hkim-health", "night"}));
  EXPECT_EQ(Yaml(CoordinatorResources(cron)).find("nvidia.com/"), std::string::npos);  // no GPU, no VF
  EXPECT_EQ(Yaml(cron).find("k8s.v1.cni.cncf.io"), std::string::npos);
  EXPECT_FALSE(coordinator["resources"]["limits"]["cpu"]);
  EXPECT_EQ(coordinator["resources"]["requests"].size(), 2u);  // cpu and memory only
  auto env = EnvOf(coordinator);
  EXPECT_EQ(env["HKIM_POD_UID"], "(field metadata.uid)");
  EXPECT_EQ(env["HKIM_POD_NAME"], "(field metadata.name)");
  EXPECT_EQ(env["HKIM_POD_NAMESPACE"], "(field metadata.namespace)");
  EXPECT_EQ(env["HKIM_HEALTH_ROTATION_NIGHTS"], "4");
  EXPECT_EQ(env["HKIM_HEALTH_PLACEMENT_TIMEOUT_S"], "300");
  EXPECT_EQ(env["HKIM_HEALTH_TIMEOUT_S"], "1800");
  EXPECT_EQ(env["HKIM_HEALTH_EXPECT_GPUS"], "8");
  EXPECT_EQ(env["HKIM_HEALTH_EXPECT_RESOURCES"], "nvidia.com/sriov_rdma_vf=16");
  EXPECT_EQ(env["HKIM_HEALTH_NODE_SELECTOR"], "node.kubernetes.io/instance-type=BM.GPU.H100.8");
  EXPECT_EQ(env["HKIM_HEALTH_TAINT"], "true");
  EXPECT_EQ(env["HKIM_HEALTH_RELEASE_AFTER"], "2");  // release_after_passes' default
  EXPECT_EQ(env["HKIM_HEALTH_CHECK_POD"], "/etc/hkim-health/check-pod.json");
  EXPECT_EQ(coordinator["volumeMounts"][0]["mountPath"].as<std::string>(), "/etc/hkim-health");
  EXPECT_EQ(pod["volumes"][0]["configMap"]["name"].as<std::string>(),
            "nccl-allreduce-fabric-health-check");
}

TEST(PeriodicHealth, CheckPodIsPreemptibleHasNoTokenAndReachesMarkedNodes) {
  const auto docs = Render("oke-h100");
  const nlohmann::json pod = CheckPodOf(docs);
  ASSERT_TRUE(pod.is_object());
  EXPECT_EQ(pod["kind"], "Pod");
  EXPECT_EQ(pod["metadata"]["generateName"], "nccl-allreduce-fabric-health-check-");
  const nlohmann::json& spec = pod["spec"];
  const YAML::Node priority = OfKind(docs, "PriorityClass").at(0);
  EXPECT_EQ(spec["priorityClassName"], priority["metadata"]["name"].as<std::string>());
  EXPECT_LT(priority["value"].as<int>(), 0);
  EXPECT_EQ(priority["preemptionPolicy"].as<std::string>(), "Never");
  EXPECT_FALSE(priority["globalDefault"].as<bool>());
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_EQ(spec["automountServiceAccountToken"], false);
  EXPECT_EQ(spec["serviceAccountName"], "nccl-allreduce-fabric-health-check");
  EXPECT_FALSE(spec["affinity"].contains("nodeAffinity"));  // must re-check failed nodes
  EXPECT_FALSE(spec.contains("nodeName"));
  bool tolerates_own_taint = false;
  for (const nlohmann::json& t : spec["tolerations"])
    tolerates_own_taint |= t.value("key", "") == "hkimgen.io/nccl-health";
  EXPECT_TRUE(tolerates_own_taint);
  const nlohmann::json& container = spec["containers"][0];
  EXPECT_EQ(container["command"],
            nlohmann::json({"/opt/hkim/bin/hkim-wrapper", "--", "/opt/hkim/bin/hkim-health", "node"}));
  EXPECT_EQ(container["resources"]["limits"]["nvidia.com/gpu"], "8");
  auto env = EnvOf(container);
  EXPECT_EQ(env["HKIM_NODE_NAME"], "(field)");
  EXPECT_EQ(env["HKIM_HEALTH_REPORT"], "termination");
  EXPECT_EQ(env["HKIM_ON_NO_RDMA"], "tcp");
  EXPECT_EQ(env.count("HKIM_HEALTH_TAINT"), 0u);  // the coordinator marks, not the pod
  // Its account has no role and no token; nothing binds it.
  for (const YAML::Node& sa : OfKind(docs, "ServiceAccount"))
    if (sa["metadata"]["name"].as<std::string>() == "nccl-allreduce-fabric-health-check")
      EXPECT_FALSE(sa["automountServiceAccountToken"].as<bool>());
  for (const char* kind : {"RoleBinding", "ClusterRoleBinding"})
    for (const YAML::Node& binding : OfKind(docs, kind))
      for (const YAML::Node& subject : binding["subjects"])
        EXPECT_NE(subject["name"].as<std::string>(), "nccl-allreduce-fabric-health-check") << kind;
}

// The check pod is an API object of its own once the coordinator posts it: it must be a valid
// v1 Pod by the upstream schema (the ConfigMap around it validates whatever its string holds).
TEST(PeriodicHealth, CheckPodValidatesAgainstTheUpstreamPodSchema) {
  char pattern[] = "/tmp/hkim-check-pod.XXXXXX";
  const std::string dir = ::mkdtemp(pattern);
  std::vector<std::string> files;
  for (const std::string profile : {"oke-h100", "barcelona-h100-cx7", "oke-a100"}) {
    const nlohmann::json pod = CheckPodOf(Render(profile));
    ASSERT_TRUE(pod.is_object()) << profile;
    nlohmann::json posted = pod;  // as the coordinator sends it (wrapper/health/night_plan.cc)
    posted["metadata"]["namespace"] = "ns-fabric-health";
    const std::string file = dir + "/" + profile + ".yaml";
    std::ofstream(file) << posted.dump(1);
    files.push_back(file);
  }
  const test_files::UpstreamVerdict verdict = test_files::ValidateUpstream(files);
  if (!verdict.skip.empty()) GTEST_SKIP() << verdict.skip;
  EXPECT_EQ(verdict.status, 0) << verdict.text;
}

// Argo CD's health rule for CronJobs (argoproj/argo-cd
// resource_customizations/batch/CronJob/health.lua, in Argo CD 3.2 and later), transcribed:
// suspended -> Suspended; no lastScheduleTime -> Healthy; no lastSuccessfulTime -> Healthy;
// an active Job -> Healthy; lastSuccessfulTime < lastScheduleTime (RFC 3339 text) -> Degraded;
// else Healthy.
std::string ArgoCdCronJobHealth(const YAML::Node& cron) {
  if (cron["spec"]["suspend"] && cron["spec"]["suspend"].as<bool>()) return "Suspended";
  const YAML::Node status = cron["status"];
  if (!status) return "Progressing";
  if (!status["lastScheduleTime"]) return "Healthy";
  if (!status["lastSuccessfulTime"]) return "Healthy";
  if (status["active"] && status["active"].size() > 0) return "Healthy";
  if (status["lastSuccessfulTime"].as<std::string>() < status["lastScheduleTime"].as<std::string>())
    return "Degraded";
  return "Healthy";
}

// The CronJob's status after a night as the Job controller writes it: a Job that completed sets
// lastSuccessfulTime to its completion; one that failed (backoffLimit reached, or killed at
// activeDeadlineSeconds) leaves the last success of an earlier night.
YAML::Node AfterTheNight(YAML::Node cron, bool job_succeeded) {
  cron["status"]["lastScheduleTime"] = "2026-11-28T03:17:00Z";
  cron["status"]["lastSuccessfulTime"] =
      job_succeeded ? "2026-11-28T03:29:41Z" : "2026-11-27T03:30:02Z";
  return cron;
}

// Nothing in the health Application turns Degraded because the cluster is busy. The
// coordinator exits 0 on a busy night (tests/health/night_test.cc,
// BusyNodesAreSkipsAndTheJobSucceeds) within its placement and check bounds, which the Job's
// deadline covers, so the Job completes and Argo CD's rule says Healthy; a tested node that
// failed fails the Job and the rule says Degraded.
TEST(PeriodicHealth, ArgoCdCronJobHealthStaysHealthyOnABusyNight) {
  for (const std::string profile : {"oke-h100", "barcelona-h100-cx7", "oke-a100"}) {
    const YAML::Node cron = OfKind(Render(profile), "CronJob").at(0);
    EXPECT_FALSE(cron["spec"]["suspend"]);
    const YAML::Node job = cron["spec"]["jobTemplate"]["spec"];
    auto env = EnvOf(Coordinator(cron));
    const int bound = std::stoi(env["HKIM_HEALTH_PLACEMENT_TIMEOUT_S"]) +
                      std::stoi(env["HKIM_HEALTH_TIMEOUT_S"]);
    // The coordinator's own bound ends before the Job's deadline could fail the Job.
    EXPECT_GE(job["activeDeadlineSeconds"].as<int>(), bound + 300) << profile;
    EXPECT_EQ(job["backoffLimit"].as<int>(), 0) << profile;
    YAML::Node created = YAML::Clone(cron);
    created["status"] = YAML::Node(YAML::NodeType::Map);  // the API server's status: {}
    EXPECT_EQ(ArgoCdCronJobHealth(created), "Healthy") << "before the first run";
    YAML::Node running = AfterTheNight(YAML::Clone(cron), false);
    running["status"]["active"].push_back(YAML::Load("{name: x}"));
    EXPECT_EQ(ArgoCdCronJobHealth(running), "Healthy");
    EXPECT_EQ(ArgoCdCronJobHealth(AfterTheNight(YAML::Clone(cron), true)), "Healthy") << profile;
    EXPECT_EQ(ArgoCdCronJobHealth(AfterTheNight(YAML::Clone(cron), false)), "Degraded");
  }
}

TEST(PeriodicHealth, CoordinatorMayOnlyManagePodsOfItsOwnNamespace) {
  const auto docs = Render("oke-h100");
  const std::string ns = OfKind(docs, "CronJob").at(0)["metadata"]["namespace"].as<std::string>();
  const YAML::Node role = OfKind(docs, "Role").at(0);
  EXPECT_EQ(role["metadata"]["namespace"].as<std::string>(), ns);
  ASSERT_EQ(role["rules"].size(), 1u);
  using Strings = std::vector<std::string>;
  EXPECT_EQ(role["rules"][0]["resources"].as<Strings>(), Strings{"pods"});
  EXPECT_EQ(role["rules"][0]["verbs"].as<Strings>(), (Strings{"create", "delete", "get", "list"}));
  const YAML::Node binding = OfKind(docs, "RoleBinding").at(0);
  EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(), role["metadata"]["name"].as<std::string>());
  EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), "nccl-allreduce-fabric-health");
}

// Host name lists reach every pod (the shared pod spec); the health mark is
// avoided by the workload, and the CronJob still reaches marked nodes.
TEST(NodeLists, IncludeAndExcludeNodesReachEveryPodBesideTheHealthMark) {
  const auto docs = Render("oke-h100", {"node_shape.include_nodes={10.0.1.5,10.0.1.6,10.0.1.7}",
                                        "node_shape.exclude_nodes={10.0.1.9}"});
  const std::vector<std::pair<YAML::Node, bool>> pods = {
      {OfKind(docs, "StatefulSet").at(0)["spec"]["template"]["spec"], true},
      {YAML::Load(CheckPodOf(docs)["spec"].dump()), false}};
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
  // The coordinator's pool is the same: it neither reads nor marks the excluded node.
  const auto env = EnvOf(Coordinator(OfKind(docs, "CronJob").at(0)));
  EXPECT_EQ(env.at("HKIM_HEALTH_INCLUDE_NODES"), "10.0.1.5,10.0.1.6,10.0.1.7");
  EXPECT_EQ(env.at("HKIM_HEALTH_EXCLUDE_NODES"), "10.0.1.9");
  // Without the lists only the health mark is there.
  const YAML::Node plain = OfKind(Render("oke-h100"), "StatefulSet").at(0)["spec"]["template"]["spec"];
  EXPECT_EQ(plain["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                 ["nodeSelectorTerms"][0]["matchExpressions"].size(), 1u);
}

TEST(PeriodicHealth, ClusterRoleOnlyReadsAndPatchesNodesForItsOwnServiceAccount) {
  const auto docs = Render("oke-h100");
  const YAML::Node role = HealthOfKind(docs, "ClusterRole").at(0);
  EXPECT_EQ(role["metadata"]["name"].as<std::string>(), "hkimgen:oke-h100:fabric-health");
  ASSERT_EQ(role["rules"].size(), 1u);
  const YAML::Node rule = role["rules"][0];
  using Strings = std::vector<std::string>;
  EXPECT_EQ(rule["apiGroups"].as<Strings>(), Strings{""});
  EXPECT_EQ(rule["resources"].as<Strings>(), Strings{"nodes"});
  EXPECT_EQ(rule["verbs"].as<Strings>(), (Strings{"get", "list", "patch"}));
  EXPECT_FALSE(rule["resourceNames"]);
  const YAML::Node binding = HealthOfKind(docs, "ClusterRoleBinding").at(0);
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  const std::string sa = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>();
  ASSERT_EQ(binding["subjects"].size(), 1u);
  EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), sa);
  // The workload's own service account gets no node rights.
  EXPECT_NE(sa, OfKind(docs, "StatefulSet").at(0)["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>());
  EXPECT_EQ(role["__file"].as<std::string>().find(':'), std::string::npos);
}

TEST(PeriodicHealth, OpenShiftCheckPodsAccountMayUseTheScc) {
  const auto docs = Render("barcelona-h100-cx7", {"fabric_health.periodic.enabled=true"});
  const std::string sa = CheckPodOf(docs)["spec"]["serviceAccountName"];
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
    const nlohmann::json pod = CheckPodOf(Render(profile, {"fabric_health.periodic.enabled=true"}));
    EXPECT_EQ(pod.dump().find("\"privileged\":true"), std::string::npos) << profile;
    EXPECT_FALSE(pod["spec"].contains("hostNetwork"));
    EXPECT_FALSE(pod["spec"].contains("hostPID"));
  }
}

}  // namespace
}  // namespace hkim
