// What a bundle renders on a cluster that runs things already, and the one operator
// catalogue behind the planners, the closure check and the cluster check.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "layering/layering.h"
#include "model/operator_catalog.h"
#include "pipeline/profile_check.h"
#include "plan/closure.h"
#include "plan/plan.h"
#include "test_files.h"

namespace hkim {
namespace {

using test_files::BuildFrom;
using test_files::Find;
using test_files::FreshOpenShiftProfile;
using test_files::ReadProfile;

std::set<std::string> Kinds(const BundlePlan& plan) {
  std::set<std::string> kinds;
  for (const PlannedObject& o : plan.objects) kinds.insert(o.kind);
  return kinds;
}

TEST(PlanBrownfield, BarcelonaAddsNothingTheClusterHasAnEquivalentOf) {
  const BundlePlan plan = PlanBundle(BuildFrom(ReadProfile("barcelona-h100-cx7")));
  const std::set<std::string> kinds = Kinds(plan);
  for (const char* kind : {"OperatorGroup", "Subscription", "ClusterPolicy", "SriovOperatorConfig",
                           "NodeFeatureDiscovery", "SriovNetworkNodePolicy",
                           "SriovNetworkPoolConfig", "MachineConfig", "MachineConfigPool"})
    EXPECT_EQ(kinds.count(kind), 0u) << kind;
  // What the project needs is there, in its own namespace only.
  for (const char* kind : {"SecurityContextConstraints", "NetworkAttachmentDefinition",
                           "StatefulSet", "ConfigMap", "Service"})
    EXPECT_EQ(kinds.count(kind), 1u) << kind;
  // (and the periodic health check's namespace, the bundle's own).
  for (const PlannedObject& o : plan.objects) {
    if (o.namespace_name.empty()) continue;
    EXPECT_TRUE(o.namespace_name == "nccl-test" || o.namespace_name == "nccl-test-fabric-health")
        << o.kind << " " << o.name << " in " << o.namespace_name;
  }
  // Shared RDMA mode, as every NAD of the cluster: the sriov CNI alone, no rdma.
  const PlannedObject* nad = Find(plan, "NetworkAttachmentDefinition", "eno5np0-network");
  ASSERT_NE(nad, nullptr);
  const std::string config = nad->context.dump();
  EXPECT_EQ(config.find("\\\"rdma\\\""), std::string::npos) << config;
  // Each thing left to the cluster is a precondition with its check.
  std::set<std::string> pre;
  for (const Precondition& p : plan.preconditions) pre.insert(p.kind + ":" + p.what);
  for (const char* want : {"operator:sriov_network_operator", "operator:nfd", "operator:gpu_operator",
                           "resource:openshift.io/eno5np0rdma", "kernel-arg:iommu=pt",
                           "argocd-instance:openshift-gitops",
                           "argocd-cluster:https://api.barcelona.nerc.mghpcc.org:6443"})
    EXPECT_EQ(pre.count(want), 1u) << want;
  // The hand-made pool h100 and its role label: the bundle renders no MachineConfig, node policy
  // or pool, so it assumes nothing of them.
  for (const char* stale : {"machine-config-pool:h100", "node-label:node-role.kubernetes.io/h100"})
    EXPECT_EQ(pre.count(stale), 0u) << stale;
}

TEST(PlanBrownfield, FreshOpenShiftTakesTheFullInstallPath) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  const std::set<std::string> kinds = Kinds(plan);
  for (const char* kind : {"OperatorGroup", "Subscription", "ClusterPolicy", "SriovOperatorConfig",
                           "NodeFeatureDiscovery", "SriovNetworkNodePolicy",
                           "SriovNetworkPoolConfig", "MachineConfig"})
    EXPECT_EQ(kinds.count(kind), 1u) << kind;
  // AMD hosts: iommu=pt alone (the kernel documents no amd_iommu=on).
  for (const PlannedObject& o : plan.objects) {
    if (o.kind != "MachineConfig") continue;
    EXPECT_EQ(o.context["kernel_arguments"], nlohmann::json::parse(R"([{"value":"iommu=pt"}])"));
  }
  const PlannedObject* nad = Find(plan, "NetworkAttachmentDefinition", "eno5np0-network");
  ASSERT_NE(nad, nullptr);
  EXPECT_NE(nad->context.dump().find("\\\"rdma\\\""), std::string::npos);
}

TEST(PlanBrownfield, IntelHostsGetIntelIommuOnAndAlreadySetArgumentsAreLeftOut) {
  std::string text = test_files::Replace(FreshOpenShiftProfile(), "cpu_vendor: amd", "cpu_vendor: intel");
  BundlePlan plan = PlanBundle(BuildFrom(text));
  const PlannedObject* mc = nullptr;
  for (const PlannedObject& o : plan.objects)
    if (o.kind == "MachineConfig") mc = &o;
  ASSERT_NE(mc, nullptr);
  EXPECT_EQ(mc->context["kernel_arguments"],
            nlohmann::json::parse(R"([{"value":"intel_iommu=on"},{"value":"iommu=pt"}])"));
  text = test_files::Replace(text, "already_set: []", "already_set: [iommu=pt]");
  plan = PlanBundle(BuildFrom(text));
  for (const PlannedObject& o : plan.objects)
    if (o.kind == "MachineConfig")
      EXPECT_EQ(o.context["kernel_arguments"], nlohmann::json::parse(R"([{"value":"intel_iommu=on"}])"));
}

// The catalogue is the one source: an operator the bundle installs provides exactly what the
// closure check takes the same operator to provide when the cluster has it.
TEST(PlanBrownfield, EveryManagedOperatorOfEveryShippedProfileMayBePreinstalledOrShared) {
  const std::vector<std::string> profiles = {"barcelona-h100-cx7", "oke-h100", "oke-a100",
                                             "oke-a100-gpu4"};
  for (const std::string& name : profiles) {
    for (bool fresh : {false, true}) {
      if (fresh && name != "barcelona-h100-cx7") continue;
      const std::string text = fresh ? FreshOpenShiftProfile() : ReadProfile(name);
      const Profile base = BuildFrom(text);
      if (!base.operators) continue;
      for (const OperatorFacts& facts : OperatorCatalog()) {
        const OperatorCommon* op = OperatorByKey(*base.operators, facts.key);
        if (op == nullptr || !op->managed()) continue;
        for (const char* install : {"preinstalled", "shared"}) {
          LayerInputs inputs;
          const std::string path = testing::TempDir() + "/catalog-" + name + ".yaml";
          {
            std::ofstream out(path);
            out << text;
          }
          inputs.profile_path = path;
          inputs.set_values = {"operators." + facts.key + ".install=" + install};
          DiagnosticSink sink;
          auto checked = CheckLayeredProfile(inputs, sink);
          std::string found;
          for (const Diagnostic& d : sink.diagnostics())
            if (d.severity == Severity::kError) found += d.rule + ": " + d.message + "\n";
          EXPECT_TRUE(checked && checked->profile)
              << name << (fresh ? " (fresh)" : "") << " " << facts.key << "=" << install << "\n"
              << found;
        }
      }
    }
  }
}

TEST(PlanBrownfield, OperatorObjectsCarryTheirOperatorKey) {
  const BundlePlan plan = PlanBundle(BuildFrom(FreshOpenShiftProfile()));
  const PlannedObject* nfd = Find(plan, "NodeFeatureDiscovery", "nfd-instance");
  ASSERT_NE(nfd, nullptr);
  EXPECT_EQ(nfd->operator_key, "nfd");  // a profile sharing NFD trusts its labels
  for (const PlannedObject& o : plan.objects)
    if (o.kind == "OperatorGroup" || o.kind == "Subscription")
      EXPECT_FALSE(o.operator_key.empty()) << o.kind << " " << o.name;
}

}  // namespace
}  // namespace hkim
