// The periodic health check in a namespace of its own (plan/health_namespace.cc):
// everything its pods use is in <ns>-fabric-health, in the bundle's health layer; the only
// accounts that may patch Nodes are its service accounts there, bound by the ClusterRoleBinding
// and matched by the admission policy alike; nothing in a workload namespace may.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "pipeline/pipeline.h"
#include "support/diagnostics_format.h"
#include "plan/health.h"
#include "plan/plan.h"
#include "test_files.h"
#include "plan/rendered_docs.h"

namespace hkim {
namespace {

const std::filesystem::path kSource = HKIM_SOURCE_DIR;
const char* const kShipped[] = {"barcelona-h100-cx7", "oke-h100", "oke-a100", "oke-a100-gpu4"};

std::vector<YAML::Node> Render(const std::string& profile, std::vector<std::string> set = {}) {
  std::string errors;
  auto docs = plan_test::RenderShipped(profile, std::move(set), &errors);
  EXPECT_FALSE(docs.empty()) << profile << ": " << errors;
  return docs;
}

std::string Str(const YAML::Node& node) { return node ? node.as<std::string>() : ""; }
std::string Kind(const YAML::Node& doc) { return Str(doc["kind"]); }
std::string Ns(const YAML::Node& doc) { return Str(doc["metadata"]["namespace"]); }
std::string File(const YAML::Node& doc) { return Str(doc["__file"]); }

using plan_test::OfKind;
using plan_test::HealthOfKind;

YAML::Node PodSpec(const YAML::Node& doc) {
  const std::string kind = Kind(doc);
  if (kind == "CronJob") return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  return doc["spec"]["template"]["spec"];
}

// The service account a pod of the object runs under ("default" when none is named).
std::string PodAccount(const YAML::Node& doc) {
  const std::string sa = Str(PodSpec(doc)["serviceAccountName"]);
  return sa.empty() ? "default" : sa;
}

TEST(HealthNamespace, ThePeriodicCheckAndEverythingItUsesAreInItsOwnNamespace) {
  for (const std::string profile : kShipped) {
    const auto docs = Render(profile);
    const auto crons = OfKind(docs, "CronJob");
    ASSERT_EQ(crons.size(), 1u) << profile;
    const YAML::Node cron = crons[0];
    const std::string ns = Ns(cron);
    ASSERT_EQ(ns.size() > 14 ? ns.substr(ns.size() - 14) : ns, "-fabric-health") << profile;
    const std::string workload_ns = ns.substr(0, ns.size() - 14);
    EXPECT_EQ(Ns(OfKind(docs, "StatefulSet").at(0)), workload_ns) << profile;
    EXPECT_EQ(File(cron).rfind("health/", 0), 0u) << File(cron);
    // Its Namespace (platform layer, before the health layer syncs), the workload's Pod
    // Security on OKE, the managed-by label on OpenShift.
    YAML::Node namespace_object;
    for (const YAML::Node& n : OfKind(docs, "Namespace"))
      if (Str(n["metadata"]["name"]) == ns) namespace_object = n;
    ASSERT_TRUE(namespace_object) << profile;
    EXPECT_EQ(File(namespace_object).rfind("platform/", 0), 0u);
    const YAML::Node labels = namespace_object["metadata"]["labels"];
    if (profile == "barcelona-h100-cx7")
      EXPECT_TRUE(labels["argocd.argoproj.io/managed-by"]) << profile;
    else
      EXPECT_EQ(Str(labels["pod-security.kubernetes.io/enforce"]), "privileged") << profile;
    // Its service account is there.
    std::set<std::string> accounts, nads, configmaps, workload_nads, workload_configmaps;
    for (const YAML::Node& doc : docs) {
      const std::string name = Str(doc["metadata"]["name"]);
      if (Ns(doc) == ns && Kind(doc) == "ServiceAccount") accounts.insert(name);
      if (Kind(doc) == "NetworkAttachmentDefinition")
        (Ns(doc) == ns ? nads : workload_nads).insert(name);
      if (Kind(doc) == "ConfigMap") (Ns(doc) == ns ? configmaps : workload_configmaps).insert(name);
      // Every object of the health namespace syncs in the health layer.
      if (Ns(doc) == ns) EXPECT_EQ(File(doc).rfind("health/", 0), 0u) << File(doc);
    }
    // The coordinator's account and the check pods' (no rights, no token).
    const std::string check_account = PodAccount(cron) + "-check";
    EXPECT_EQ(accounts, (std::set<std::string>{PodAccount(cron), check_account})) << profile;
    // Each NAD the pods attach (looked up in the pod's namespace) and ConfigMap they mount.
    EXPECT_EQ(nads, workload_nads) << profile;
    EXPECT_FALSE(nads.empty()) << profile;
    // ... and the one that holds the check pod.
    std::set<std::string> with_check = workload_configmaps;
    with_check.insert(check_account);
    EXPECT_EQ(configmaps, with_check) << profile;
    YAML::Node check_pod;
    for (const YAML::Node& doc : OfKind(docs, "ConfigMap"))
      if (Ns(doc) == ns && doc["data"]["check-pod.json"])
        check_pod = YAML::Load(doc["data"]["check-pod.json"].as<std::string>());
    ASSERT_TRUE(check_pod) << profile;
    for (const YAML::Node& pod : {PodSpec(cron), check_pod["spec"]}) {
      for (const YAML::Node& volume : pod["volumes"])
        if (volume["configMap"]) EXPECT_TRUE(configmaps.count(Str(volume["configMap"]["name"])));
      for (const YAML::Node& from : pod["containers"][0]["envFrom"])
        if (from["configMapRef"]) EXPECT_TRUE(configmaps.count(Str(from["configMapRef"]["name"])));
    }
    // The copies carry the same CNI config (same nv-ipam pool or whereabouts range).
    for (const YAML::Node& nad : OfKind(docs, "NetworkAttachmentDefinition"))
      for (const YAML::Node& other : OfKind(docs, "NetworkAttachmentDefinition"))
        if (Str(nad["metadata"]["name"]) == Str(other["metadata"]["name"]))
          EXPECT_EQ(Str(nad["spec"]["config"]), Str(other["spec"]["config"]));
    // On OpenShift it may use the workload's SCC through a Role of its own namespace.
    if (profile == "barcelona-h100-cx7") {
      bool bound = false;
      for (const YAML::Node& binding : OfKind(docs, "RoleBinding"))
        if (Ns(binding) == ns && Str(binding["subjects"][0]["name"]) == check_account)
          bound = Str(binding["roleRef"]["name"]).find("use-scc") != std::string::npos;
      EXPECT_TRUE(bound);
      bool role = false;
      for (const YAML::Node& r : OfKind(docs, "Role")) role |= Ns(r) == ns;
      EXPECT_TRUE(role);
    }
    // Not queued: no LocalQueue there and no queue label on the pods.
    for (const YAML::Node& q : OfKind(docs, "LocalQueue")) EXPECT_NE(Ns(q), ns);
    EXPECT_FALSE(cron["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]
                     ["kueue.x-k8s.io/queue-name"]);
  }
}

// The ClusterRoleBinding binds the node-marking ClusterRole to the health namespaces' accounts
// only; no RoleBinding anywhere reaches it; the admission policy matches exactly those users.
TEST(HealthNamespace, OnlyTheHealthNamespacesAccountsMayMarkNodes) {
  for (const std::string profile : kShipped) {
    const auto docs = Render(profile);
    const YAML::Node role = HealthOfKind(docs, "ClusterRole").at(0);
    const std::string role_name = Str(role["metadata"]["name"]);
    std::set<std::string> workload_namespaces;
    for (const YAML::Node& s : OfKind(docs, "StatefulSet")) workload_namespaces.insert(Ns(s));
    std::set<std::string> bound;
    for (const YAML::Node& binding : HealthOfKind(docs, "ClusterRoleBinding")) {
      if (Str(binding["roleRef"]["name"]) != role_name) continue;
      for (const YAML::Node& s : binding["subjects"]) {
        EXPECT_EQ(Str(s["kind"]), "ServiceAccount");
        EXPECT_EQ(workload_namespaces.count(Str(s["namespace"])), 0u) << Str(s["namespace"]);
        bound.insert("system:serviceaccount:" + Str(s["namespace"]) + ":" + Str(s["name"]));
      }
    }
    for (const YAML::Node& binding : OfKind(docs, "RoleBinding"))
      EXPECT_NE(Str(binding["roleRef"]["name"]), role_name) << File(binding);
    // Exactly the CronJobs' accounts.
    std::set<std::string> crons;
    for (const YAML::Node& cron : OfKind(docs, "CronJob"))
      crons.insert("system:serviceaccount:" + Ns(cron) + ":" + PodAccount(cron));
    EXPECT_EQ(bound, crons) << profile;
    // The policy's matchConditions name the same users, and nobody else.
    const YAML::Node policy = HealthOfKind(docs, "ValidatingAdmissionPolicy").at(0);
    const std::string expression = Str(policy["spec"]["matchConditions"][0]["expression"]);
    std::set<std::string> matched;
    for (size_t at = expression.find("'system:serviceaccount:"); at != std::string::npos;
         at = expression.find("'system:serviceaccount:", at + 1))
      matched.insert(expression.substr(at + 1, expression.find('\'', at + 1) - at - 1));
    EXPECT_EQ(matched, bound) << expression;
    // No pod in a workload namespace runs under a node-marking account.
    for (const YAML::Node& doc : docs) {
      if (!workload_namespaces.count(Ns(doc))) continue;
      const std::string kind = Kind(doc);
      if (kind != "Job" && kind != "CronJob" && kind != "StatefulSet") continue;
      EXPECT_EQ(bound.count("system:serviceaccount:" + Ns(doc) + ":" + PodAccount(doc)), 0u)
          << File(doc);
    }
  }
}

// The admission policy's data, as CEL expressions: the pool the profile states and its consent
// to taint (tests/cel/ evaluates what the expressions do with them).
std::map<std::string, std::string> FenceData(const std::vector<YAML::Node>& docs) {
  std::map<std::string, std::string> data;
  for (const YAML::Node& v : HealthOfKind(docs, "ValidatingAdmissionPolicy").at(0)["spec"]["variables"])
    data[Str(v["name"])] = Str(v["expression"]);
  return data;
}

TEST(HealthNamespace, TheNodeFenceHoldsTheProfilesPoolAndTaintConsent) {
  auto data = FenceData(Render("barcelona-h100-cx7"));
  EXPECT_EQ(data["poolSelector"], "{'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3'}");
  EXPECT_EQ(data["excludeNodes"], "['moc-r4pcc02u15-yunshi', 'moc-r4pcc02u16-yunshi']");
  EXPECT_EQ(data["includeNodes"], "[]");
  EXPECT_EQ(data["taintConsent"], "false");
  EXPECT_EQ(data["markLabel"], "'hkimgen.io/nccl-health'");
  EXPECT_EQ(data["markAnnotations"],
            "['hkimgen.io/nccl-health-passes', 'hkimgen.io/nccl-health-reason', "
            "'hkimgen.io/nccl-health-since', 'hkimgen.io/nccl-health-time']");
  data = FenceData(Render("oke-h100"));
  EXPECT_EQ(data["poolSelector"], "{'node.kubernetes.io/instance-type': 'BM.GPU.H100.8'}");
  EXPECT_EQ(data["excludeNodes"], "[]");
  EXPECT_EQ(data["taintConsent"], "true");
  // The consent follows the profile; lists are sorted.
  data = FenceData(Render("oke-h100", {"fabric_health.periodic.taint=false",
                                       "node_shape.include_nodes={gpu-b,gpu-a,gpu-c}"}));
  EXPECT_EQ(data["taintConsent"], "false");
  EXPECT_EQ(data["includeNodes"], "['gpu-a', 'gpu-b', 'gpu-c']");
}

TEST(HealthNamespace, NameIsTheWorkloadNamespacesWithinADnsLabel) {
  EXPECT_EQ(FabricHealthNamespace("gpu-training"), "gpu-training-fabric-health");
  const std::string longest(63, 'a');
  std::string other = longest;
  other.back() = 'b';
  const std::string cut = FabricHealthNamespace(longest);
  EXPECT_EQ(cut.size(), 63u);
  EXPECT_EQ(cut.substr(cut.size() - 14), "-fabric-health");
  EXPECT_NE(cut, FabricHealthNamespace(other));  // told apart by the fingerprint
  EXPECT_EQ(cut, FabricHealthNamespace(longest));
  EXPECT_EQ(FabricHealthNamespace(std::string(49, 'a')).size(), 63u);  // still uncut
  EXPECT_EQ(FabricHealthNamespace(std::string(49, 'a')), std::string(49, 'a') + "-fabric-health");
}

TEST(HealthNamespace, SeveralWorkloadNamespacesShareThePoolsOneCheck) {
  // Every workload namespace runs on the same nodes: one CronJob, one health namespace (the
  // first namespace's), one account bound to mark nodes and matched by the policy.
  const auto docs = Render("oke-h100", {"namespaces={gpu-training,team-b,team-c}"});
  ASSERT_FALSE(docs.empty());
  const auto crons = OfKind(docs, "CronJob");
  ASSERT_EQ(crons.size(), 1u);
  EXPECT_EQ(Ns(crons[0]), "gpu-training-fabric-health");
  std::set<std::string> health_namespaces;
  for (const YAML::Node& n : OfKind(docs, "Namespace"))
    if (Str(n["metadata"]["name"]).find("-fabric-health") != std::string::npos)
      health_namespaces.insert(Str(n["metadata"]["name"]));
  EXPECT_EQ(health_namespaces, (std::set<std::string>{"gpu-training-fabric-health"}));
  const YAML::Node binding = HealthOfKind(docs, "ClusterRoleBinding").at(0);
  ASSERT_EQ(binding["subjects"].size(), 1u);
  EXPECT_EQ(Str(binding["subjects"][0]["namespace"]), "gpu-training-fabric-health");
  // The in-pod check runs in each namespace's StatefulSet: no Job of its own.
  EXPECT_EQ(OfKind(docs, "StatefulSet").size(), 3u);
  EXPECT_TRUE(OfKind(docs, "Job").empty());
}

TEST(HealthNamespace, ALongWorkloadNamespaceStillRendersAValidBundle) {
  const std::string ns(60, 'n');
  const auto docs = Render("oke-h100", {"namespaces={" + ns + "}"});
  ASSERT_FALSE(docs.empty());
  const YAML::Node cron = OfKind(docs, "CronJob").at(0);
  EXPECT_EQ(Ns(cron), FabricHealthNamespace(ns));
  EXPECT_LE(Ns(cron).size(), 63u);
}

// The names derived from workload.name fit the API's limits, or the profile
// is refused at the name with the longest name that fits.
std::string Errors(const std::string& profile, std::vector<std::string> set) {
  DiagnosticSink sink;
  SourceTexts sources;
  LayerInputs inputs{(kSource / "profiles" / (profile + ".yaml")).string(), {}, std::move(set)};
  auto bundle = RenderProfileLayers(inputs, sink, &sources);
  EXPECT_FALSE(bundle);
  return FormatDiagnostics(sink, sources);
}

TEST(HealthNames, TheInPodCheckAddsNoNameOfItsOwn) {
  // 41 characters: a separate gate Job's pods (<name>-fabric-gate-<fingerprint>-<index>) would
  // not fit a host name; the check runs in the StatefulSet's pods, named <name>-<ordinal>.
  const auto docs = Render("oke-h100", {"workload.name=" + std::string(41, 'a'),
                                        "fabric_health.periodic.enabled=false"});
  ASSERT_FALSE(docs.empty());
  EXPECT_TRUE(plan_test::OfKind(docs, "Job").empty());
}

TEST(HealthNames, AWorkloadNameTooLongForTheCronJobIsAModelError) {
  // 39 + "-fabric-health" = 53 > 52.
  const std::string errors = Errors("oke-h100", {"workload.name=" + std::string(39, 'b'),
                                                 "fabric_health.gate.mode=off"});
  EXPECT_NE(errors.find("[model.name-too-long]"), std::string::npos) << errors;
  EXPECT_NE(errors.find("53 characters"), std::string::npos) << errors;
  EXPECT_NE(errors.find("at most 38 characters"), std::string::npos) << errors;
  const auto docs = Render("oke-h100", {"workload.name=" + std::string(38, 'b'),
                                        "fabric_health.gate.mode=off"});
  ASSERT_FALSE(docs.empty());
  EXPECT_EQ(Str(OfKind(docs, "CronJob").at(0)["metadata"]["name"]).size(), 52u);
}

TEST(HealthNames, AWorkloadNamespaceThatIsAnothersHealthNamespaceIsAModelError) {
  const std::string errors =
      Errors("oke-h100", {"namespaces={gpu-training,gpu-training-fabric-health}"});
  EXPECT_NE(errors.find("[model.health-namespace-taken]"), std::string::npos) << errors;
  EXPECT_NE(errors.find("at /namespaces/1"), std::string::npos) << errors;
  EXPECT_EQ(errors.find("[render.file-name]"), std::string::npos) << errors;
  EXPECT_FALSE(Render("oke-h100", {"namespaces={gpu-training,gpu-training-fabric-health}",
                                   "fabric_health.periodic.enabled=false"}).empty());
}

}  // namespace
}  // namespace hkim
