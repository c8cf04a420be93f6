// Disruption is a deliberate act: the one table of what drains, reboots or rolls a
// driver; the nodes layer it fills; gitops.self_sync (and the deprecated automated_sync) deciding
// which Application syncs itself; the README section generated from the plan; the config
// checksum that rolls the pods when their ConfigMaps change.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>

#include "pipeline/pipeline.h"
#include "plan/disruption.h"
#include "test_files.h"

namespace hkim {
namespace {

using test_files::BuildFrom;
using test_files::Find;
using test_files::ReadProfile;
using test_files::Replace;

struct Render {
  std::optional<RenderedBundle> bundle;
  DiagnosticSink sink;
};

std::unique_ptr<Render> RenderWith(const std::string& profile, std::vector<std::string> sets) {
  auto r = std::make_unique<Render>();
  LayerInputs inputs;
  // "fresh-openshift": a fresh cluster's profile, whose bundle renders the node objects.
  inputs.profile_path =
      profile == "fresh-openshift"
          ? test_files::FreshOpenShiftProfilePath()
          : (std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / (profile + ".yaml")).string();
  inputs.set_values = std::move(sets);
  r->bundle = RenderProfileLayers(inputs, r->sink);
  return r;
}

// Application name -> whether it carries syncPolicy.automated, and with which prune.
std::map<std::string, std::string> SyncPolicies(const RenderedBundle& bundle) {
  std::map<std::string, std::string> out;
  for (const RenderedFile& file : bundle.files) {
    if (file.content.find("kind: Application\n") == std::string::npos) continue;
    const YAML::Node doc = YAML::Load(file.content);
    const YAML::Node automated = doc["spec"]["syncPolicy"]["automated"];
    out[doc["metadata"]["name"].as<std::string>()] =
        automated ? "automated prune=" + automated["prune"].as<std::string>() : "manual";
  }
  return out;
}

TEST(DisruptionTable, ClassifiesByKindAndTemplate) {
  EXPECT_EQ(WorstDisruptionOf("MachineConfig", "openshift/machineconfig-iommu.yaml.mustache"),
            Disruption::kReboot);
  EXPECT_EQ(WorstDisruptionOf("SriovNetworkNodePolicy", ""), Disruption::kDrain);
  EXPECT_EQ(WorstDisruptionOf("SriovNetworkPoolConfig", ""), Disruption::kReboot);
  EXPECT_EQ(WorstDisruptionOf("ClusterPolicy", ""), Disruption::kDriverRoll);
  EXPECT_EQ(WorstDisruptionOf("NicClusterPolicy", ""), Disruption::kDriverRoll);
  EXPECT_EQ(WorstDisruptionOf("DaemonSet", "operators-oke/daemonset-vf-config.yaml.mustache"),
            Disruption::kVfReset);
  // The CNI plugin DaemonSets only copy binaries: rolling them touches no running pod.
  EXPECT_EQ(WorstDisruptionOf("DaemonSet", "operators-oke/daemonset-cni-plugin.yaml.mustache"),
            Disruption::kNone);
  EXPECT_EQ(WorstDisruptionOf("Application",
                              "operators-oke/application-gpu-operator.yaml.mustache"),
            Disruption::kDriverRoll);
  EXPECT_EQ(WorstDisruptionOf("Application",
                              "operators-oke/application-network-operator.yaml.mustache"),
            Disruption::kNone);
  EXPECT_EQ(WorstDisruptionOf("StatefulSet", ""), Disruption::kJobRestart);
  EXPECT_FALSE(TouchesNodes(Disruption::kJobRestart));
  EXPECT_EQ(WorstDisruptionOf("NetworkAttachmentDefinition", ""), Disruption::kNone);
}

TEST(DisruptionTable, EveryRowSaysWhatItDoesAndWhereTheFactComesFrom) {
  for (const DisruptionRule& rule : DisruptionTable()) {
    EXPECT_FALSE(rule.what.empty()) << rule.kind;
    EXPECT_FALSE(rule.source.empty()) << rule.kind;
    if (rule.effect == Disruption::kNone) continue;
    EXPECT_FALSE(rule.nodes.empty()) << rule.kind;
    EXPECT_FALSE(rule.pace.empty()) << rule.kind;
    EXPECT_FALSE(rule.watch.empty()) << rule.kind;
  }
}

TEST(SelfSync, ByDefaultNothingThatCanRebootANodeOrRollTheDriverSyncsItself) {
  for (const char* profile :
       {"fresh-openshift", "barcelona-h100-cx7", "oke-h100", "oke-a100", "oke-a100-gpu4"}) {
    auto r = RenderWith(profile, {});
    ASSERT_TRUE(r->bundle) << profile;
    const auto policies = SyncPolicies(*r->bundle);
    const std::string cluster = r->bundle->bundle_name;
    EXPECT_EQ(policies.at(cluster), "manual") << profile;  // the parent
    EXPECT_EQ(policies.at(cluster + "-platform"), "manual") << profile;
    EXPECT_EQ(policies.at(cluster + "-workload"), "automated prune=false") << profile;
    // Barcelona's bundle leaves the node objects to the cluster: it has no nodes layer.
    if (std::string(profile) != "barcelona-h100-cx7")
      EXPECT_EQ(policies.at(cluster + "-nodes"), "manual") << profile;
    if (policies.count(cluster + "-gpu-operator"))
      EXPECT_EQ(policies.at(cluster + "-gpu-operator"), "manual") << profile;
  }
}

TEST(SelfSync, ExceptNodeDisruptionLetsThePlatformAndHarmlessChartsSyncThemselves) {
  auto r = RenderWith("oke-h100", {"gitops.self_sync=except-node-disruption"});
  ASSERT_TRUE(r->bundle);
  const auto policies = SyncPolicies(*r->bundle);
  EXPECT_EQ(policies.at("oke-h100-platform"), "automated prune=false");
  EXPECT_EQ(policies.at("oke-h100-network-operator"), "automated prune=false");
  EXPECT_EQ(policies.at("oke-h100-volcano"), "automated prune=false");
  EXPECT_EQ(policies.at("oke-h100-nodes"), "manual");
  EXPECT_EQ(policies.at("oke-h100-gpu-operator"), "manual");
  EXPECT_EQ(policies.at("oke-h100"), "manual");
}

TEST(SelfSync, OffAndEverythingAreTheEnds) {
  auto off = RenderWith("oke-h100", {"gitops.self_sync=off"});
  ASSERT_TRUE(off->bundle);
  for (const auto& [name, policy] : SyncPolicies(*off->bundle)) EXPECT_EQ(policy, "manual") << name;
  auto all = RenderWith("oke-h100", {"gitops.self_sync=everything"});
  ASSERT_TRUE(all->bundle);
  const auto policies = SyncPolicies(*all->bundle);
  EXPECT_EQ(policies.at("oke-h100"), "automated prune=true");  // the parent's template
  EXPECT_EQ(policies.at("oke-h100-nodes"), "automated prune=false");
  EXPECT_EQ(policies.at("oke-h100-gpu-operator"), "automated prune=false");
}

TEST(SelfSync, TheDeprecatedAutomatedSyncStillWorksWithAWarning) {
  auto r = RenderWith("oke-h100", {"gitops.automated_sync=true"});
  ASSERT_TRUE(r->bundle);
  const auto policies = SyncPolicies(*r->bundle);
  EXPECT_EQ(policies.at("oke-h100-nodes"), "automated prune=true");  // as before: prune too
  EXPECT_EQ(policies.at("oke-h100-workload"), "automated prune=true");
  bool warned = false;
  for (const Diagnostic& d : r->sink.diagnostics()) {
    if (d.rule != "lint.deprecated-automated-sync") continue;
    warned = true;
    EXPECT_EQ(d.severity, Severity::kWarning);
    EXPECT_NE(d.fix.find("gitops.self_sync: everything"), std::string::npos) << d.fix;
  }
  EXPECT_TRUE(warned);
}

TEST(SelfSync, BothKeysAreAnErrorAtTheDeprecatedOne) {
  auto r = RenderWith("oke-h100", {"gitops.automated_sync=false", "gitops.self_sync=off"});
  EXPECT_FALSE(r->bundle);
  ASSERT_TRUE(r->sink.HasErrors());
  bool found = false;
  for (const Diagnostic& d : r->sink.diagnostics())
    if (d.rule == "model.self-sync-twice") found = d.data_path == "/gitops/automated_sync";
  EXPECT_TRUE(found);
}

TEST(BundleReadme, SaysWhatASyncDoesToTheNodesAndTheJob) {
  auto r = RenderWith("fresh-openshift", {});
  ASSERT_TRUE(r->bundle);
  std::string readme;
  for (const RenderedFile& file : r->bundle->files)
    if (file.file_name == "README.md") readme = file.content;
  for (const char* part :
       {"## Before the first sync\n", "- Publish the wrapper image `",
        "- Push this folder to `https://github.com/lab/bundles.git` at revision",
        "## What a sync does to your nodes and jobs\n", "`gitops.self_sync: namespaces`",
        "- `lab-nodes` (nodes): waits for `argocd app sync lab-nodes`",
        "- `lab-workload` (workload): syncs itself",
        "### MachineConfig `99-worker-lab-iommu-passthrough`",
        "- **drain and reboot** on any change: the Machine Config Operator",
        "Watch: `oc get machineconfigpool -w`", "### ClusterPolicy `cluster-policy`",
        "- **driver roll** on a change of spec/driver (none while spec/driver/enabled is false):",
        "### StatefulSet `gpu-training/nccl-job`", "synced by `lab-workload` (**syncs itself**)",
        "- **job restart** on a change of spec/template:"}) {
    EXPECT_NE(readme.find(part), std::string::npos) << part << "\n" << readme;
  }
}

TEST(WorkloadConfigChecksum, ChangesWithTheConfigMapsThePodsReadAndNothingElse) {
  const std::string text = ReadProfile("barcelona-h100-cx7");
  auto checksum = [](const std::string& profile) {
    const BundlePlan plan = PlanBundle(BuildFrom(profile));
    const PlannedObject* sts = Find(plan, "StatefulSet", "h-kim");
    return sts ? sts->context["config_checksum"].get<std::string>() : "";
  };
  const std::string base = checksum(text);
  EXPECT_EQ(base.rfind("fnv1a64:", 0), 0u) << base;
  EXPECT_EQ(base.size(), 8u + 16u);
  EXPECT_EQ(checksum(text), base);  // deterministic
  EXPECT_NE(checksum(Replace(text, "  debug: INFO", "  debug: WARN")), base);
  EXPECT_EQ(checksum(Replace(text, "prism-pytorch-25.06", "prism-pytorch-25.07")), base);
}

}  // namespace
}  // namespace hkim
