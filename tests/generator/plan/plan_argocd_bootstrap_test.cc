// Plan stage, Argo CD bootstrap: what OpenShift GitOps' application controller
// must be granted by hand once, and the managed-by label on the workload namespaces.
#include "plan/argocd_bootstrap.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "load/load.h"
#include "plan/plan.h"
#include "test_files.h"
#include "validate/validate.h"

namespace hkim {
namespace {

Profile BuildShipped(const std::string& name) {
  return test_files::BuildFrom(test_files::ReadProfile(name));
}

using GroupResource = std::pair<std::string, std::string>;

std::string Group(const std::string& api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

// (group, resource) pairs the ClusterRole lets the controller create.
std::set<GroupResource> Writable(const PlannedObject& role) {
  std::set<GroupResource> out;
  for (const auto& rule : role.context["rules"]) {
    bool create = false;
    for (const auto& verb : rule["verbs"]) create = create || verb["value"] == "create";
    if (!create || rule["has_resource_names"].get<bool>()) continue;
    for (const auto& group : rule["api_groups"])
      for (const auto& resource : rule["resources"])
        out.insert({group["value"].get<std::string>(), resource["value"].get<std::string>()});
  }
  return out;
}

TEST(ArgoCdBootstrap, OpenShiftControllerMayWriteExactlyTheBundlesKinds) {
  const BundlePlan plan = PlanBundle(BuildShipped("barcelona-h100-cx7"));
  ASSERT_EQ(plan.bootstrap.size(), 2u);
  const PlannedObject& role = plan.bootstrap[0];
  EXPECT_EQ(role.kind, "ClusterRole");
  EXPECT_EQ(role.name, "hkimgen:barcelona:argocd-apply");
  EXPECT_EQ(role.file_name, "bootstrap/clusterrole-argocd-apply.yaml");
  std::set<GroupResource> kinds;
  for (const PlannedObject& o : plan.objects)
    kinds.insert({Group(o.api_version), ResourcePlural(o.kind, nullptr)});
  // And what the bundle's Roles grant, which it must hold to create them: the nightly check's
  // coordinator creates its check pods.
  kinds.insert({"", "pods"});
  EXPECT_EQ(Writable(role), kinds);
  EXPECT_TRUE(kinds.count({"security.openshift.io", "securitycontextconstraints"}));
  // Barcelona adopts its cluster's MachineConfigs: the controller may write none.
  EXPECT_FALSE(kinds.count({"machineconfiguration.openshift.io", "machineconfigs"}));
  EXPECT_TRUE(kinds.count({"", "namespaces"}));
  // Nothing beyond the bundle: no wildcard, no escalate/bind.
  for (const auto& rule : role.context["rules"])
    for (const auto& verb : rule["verbs"]) {
      EXPECT_NE(verb["value"], "*");
      EXPECT_NE(verb["value"], "escalate");
      EXPECT_NE(verb["value"], "bind");
    }
  const PlannedObject& binding = plan.bootstrap[1];
  EXPECT_EQ(binding.kind, "ClusterRoleBinding");
  EXPECT_EQ(binding.context["role"], role.name);
  // Barcelona names its API server: Argo CD writes there as `argocd cluster add` made it.
  EXPECT_EQ(binding.context["service_account"], "argocd-manager");
  EXPECT_EQ(binding.context["service_account_namespace"], "kube-system");
}

TEST(ArgoCdBootstrap, OnArgoCdsOwnClusterTheBindingNamesTheGitOpsController) {
  std::string text = test_files::ReadProfile("barcelona-h100-cx7");
  const std::string remote = "destination_server: https://api.barcelona.nerc.mghpcc.org:6443";
  ASSERT_NE(text.find(remote), std::string::npos);
  text.replace(text.find(remote), remote.size(), "destination_server: https://kubernetes.default.svc");
  const BundlePlan plan = PlanBundle(test_files::BuildFrom(text));
  ASSERT_EQ(plan.bootstrap.size(), 2u);
  const PlannedObject& binding = plan.bootstrap[1];
  EXPECT_EQ(binding.context["service_account"], "openshift-gitops-argocd-application-controller");
  EXPECT_EQ(binding.context["service_account_namespace"], "openshift-gitops");
}

// RBAC lets nobody grant what they do not hold: the controller needs `use` of the SCC its Roles
// grant, and the node permissions of the health check's ClusterRole.
TEST(ArgoCdBootstrap, ControllerHoldsWhatTheBundlesRolesGrant) {
  const BundlePlan plan = PlanBundle(BuildShipped("barcelona-h100-cx7"));
  ASSERT_EQ(plan.bootstrap.size(), 2u);
  bool scc_use = false;
  for (const auto& rule : plan.bootstrap[0].context["rules"]) {
    if (rule["resources"][0]["value"] != "securitycontextconstraints") continue;
    if (rule["verbs"][0]["value"] != "use") continue;
    scc_use = rule["resource_names"] == nlohmann::json::array({{{"value", "barcelona-nccl-rdma"}}});
  }
  EXPECT_TRUE(scc_use) << plan.bootstrap[0].context["rules"].dump();
  for (const PlannedObject& o : plan.objects) {
    if (o.kind != "ClusterRole" || !o.context.contains("rules")) continue;
    for (const auto& granted : o.context["rules"]) {
      bool held = false;
      for (const auto& rule : plan.bootstrap[0].context["rules"]) held = held || rule == granted;
      EXPECT_TRUE(held) << o.name << ": " << granted.dump();
    }
  }
}

TEST(ArgoCdBootstrap, EveryShippedKindHasAKnownResourceName) {
  for (const char* name : {"barcelona-h100-cx7", "oke-h100", "oke-a100"}) {
    const BundlePlan plan = PlanBundle(BuildShipped(name));
    for (const PlannedObject& o : plan.objects) {
      bool known = false;
      ResourcePlural(o.kind, &known);
      EXPECT_TRUE(known) << name << ": " << o.kind << " is missing from Plurals()";
    }
  }
  EXPECT_EQ(ResourcePlural("NetworkAttachmentDefinition", nullptr),
            "network-attachment-definitions");
  EXPECT_EQ(ResourcePlural("ClusterPolicy", nullptr), "clusterpolicies");
}

TEST(ArgoCdBootstrap, UpstreamArgoCdNeedsNone) {
  EXPECT_TRUE(PlanBundle(BuildShipped("oke-h100")).bootstrap.empty());
}

// A fresh OpenShift cluster has no workload namespace ("namespace not found"),
// and OpenShift GitOps manages only namespaces labelled for its instance.
TEST(ArgoCdBootstrap, OpenShiftWorkloadNamespacesAreCreatedAndManagedByTheInstance) {
  const Profile profile = BuildShipped("barcelona-h100-cx7");
  const BundlePlan plan = PlanBundle(profile);
  for (const std::string& ns : profile.namespaces) {
    const PlannedObject* found = nullptr;
    for (const PlannedObject& o : plan.objects)
      if (o.kind == "Namespace" && o.name == ns) found = &o;
    ASSERT_NE(found, nullptr) << ns;
    EXPECT_EQ(found->template_name, "openshift/namespace.yaml.mustache");
    EXPECT_EQ(found->context["managed_by"], "openshift-gitops");
  }
}

}  // namespace
}  // namespace hkim
