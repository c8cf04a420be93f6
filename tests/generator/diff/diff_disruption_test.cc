// diff tells what a sync of each change does on the cluster: a profile (a fresh
// OpenShift cluster's, as init writes it, or a shipped OKE one) is rendered as it is (the bundle
// on disk, with its marker's file list) and with one change, and
// the diff must name the drain, reboot, driver roll or job restart, what stays in place, what
// running pods never see, a refused operator downgrade and a file of the user's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "pipeline/pipeline.h"
#include "test_files.h"
#include "diff/bundle_diff.h"
#include "diff/operator_downgrade.h"

namespace hkim {
namespace {

// A fresh OpenShift cluster: the bundle renders the node objects (test_files.h).
constexpr char kFresh[] = "fresh-openshift";

RenderedBundle Render(const std::string& profile, const std::vector<std::string>& sets) {
  LayerInputs inputs;
  inputs.profile_path =
      profile == kFresh
          ? test_files::FreshOpenShiftProfilePath()
          : (std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / (profile + ".yaml")).string();
  inputs.set_values = sets;
  DiagnosticSink sink;
  std::optional<RenderedBundle> bundle = RenderProfileLayers(inputs, sink);
  std::string messages;
  for (const Diagnostic& d : sink.diagnostics()) messages += d.rule + ": " + d.message + "\n";
  EXPECT_TRUE(bundle) << messages;
  return bundle ? *bundle : RenderedBundle{};
}

struct Folder {
  std::map<std::string, std::string> files;  // as render -d writes them
  std::set<std::string> marker;              // what .hkimgen-bundle lists
};

Folder OnDisk(const RenderedBundle& bundle) {
  Folder folder;
  for (const RenderedFile& file : bundle.files) {
    folder.files[file.file_name] = FileText(file);
    folder.marker.insert(file.file_name);
  }
  return folder;
}

BundleDiff DiffAfter(const std::string& profile, const std::vector<std::string>& sets) {
  const Folder disk = OnDisk(Render(profile, {}));
  return DiffBundle(Render(profile, sets), disk.files, disk.marker);
}

std::vector<const BundleChange*> OfKind(const BundleDiff& diff, const std::string& kind) {
  std::vector<const BundleChange*> found;
  for (const BundleChange& change : diff.changes)
    if (change.object_kind == kind) found.push_back(&change);
  return found;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string AllNotes(const BundleChange& change) {
  std::string text;
  for (const std::string& note : change.notes) text += note + "\n";
  return text;
}

TEST(DiffDisruption, AnMtuChangeDrainsTheNodesOfEveryChangedNodePolicy) {
  const BundleDiff diff = DiffAfter(
      kFresh, {"network.rails[0].mtu_bytes=4200"});
  const auto policies = OfKind(diff, "SriovNetworkNodePolicy");
  ASSERT_EQ(policies.size(), 1u) << FormatBundleDiff(diff, "out");
  EXPECT_EQ(policies[0]->effect, Disruption::kDrain);
  EXPECT_TRUE(policies[0]->disruptive);
  EXPECT_TRUE(Has(policies[0]->disruption, "drains each selected node")) << policies[0]->disruption;
  EXPECT_TRUE(Has(policies[0]->disruption, "watch: oc get sriovnetworknodestates"));
  for (const BundleChange* nad : OfKind(diff, "NetworkAttachmentDefinition")) {
    EXPECT_EQ(nad->effect, Disruption::kNone);
    EXPECT_TRUE(Has(AllNotes(*nad), "running pods keep their interfaces")) << AllNotes(*nad);
  }
  const std::string text = FormatBundleDiff(diff, "out");
  EXPECT_TRUE(Has(text, "[disruptive: drain: the SR-IOV config daemon")) << text;
}

TEST(DiffDisruption, AWorkloadImageChangeRestartsTheJob) {
  const BundleDiff diff =
      DiffAfter("oke-h100", {"workload.image=iad.ocir.io/x/nccl-tests:newer"});
  const auto sets = OfKind(diff, "StatefulSet");
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0]->effect, Disruption::kJobRestart);
  EXPECT_FALSE(sets[0]->disruptive);
  EXPECT_TRUE(Has(sets[0]->disruption, "its image changes; every pod of the StatefulSet is "
                                       "replaced"))
      << sets[0]->disruption;
  const std::string text = FormatBundleDiff(diff, "out");
  EXPECT_TRUE(Has(text, "[job restart: its image changes;")) << text;
  EXPECT_TRUE(Has(text, "1 restart the running job")) << text;
}

TEST(DiffDisruption, AnNcclDebugChangeReachesRunningPodsOnlyThroughTheConfigChecksum) {
  const BundleDiff diff = DiffAfter("oke-h100", {"nccl.debug=TRACE"});
  // The workload's ConfigMap and its copy in the health check's namespace (read by the next run).
  auto configs = OfKind(diff, "ConfigMap");
  ASSERT_EQ(configs.size(), 2u) << FormatBundleDiff(diff, "out");
  if (configs[0]->file_name.rfind("workload/", 0) != 0) std::swap(configs[0], configs[1]);
  ASSERT_EQ(configs[0]->file_name.rfind("workload/", 0), 0u) << configs[0]->file_name;
  EXPECT_EQ(configs[1]->file_name.rfind("health/", 0), 0u) << configs[1]->file_name;
  EXPECT_EQ(configs[1]->effect, Disruption::kNone);
  EXPECT_EQ(configs[0]->effect, Disruption::kNone);
  EXPECT_TRUE(Has(AllNotes(*configs[0]), "running pods read it at start only: StatefulSet "
                                         "nccl-allreduce's hkimgen.io/config-checksum changes"))
      << AllNotes(*configs[0]);
  const auto sets = OfKind(diff, "StatefulSet");
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0]->effect, Disruption::kJobRestart);
  EXPECT_TRUE(Has(sets[0]->unified_diff, "hkimgen.io/config-checksum: ")) << sets[0]->unified_diff;
}

// An IP pool change restarts the pods that use it, and diff says so, with the
// addresses the running pods keep until then.
TEST(DiffDisruption, AnIpPoolChangeRestartsThePodsAndRerunsTheFabricCheck) {
  const BundleDiff diff = DiffAfter("oke-h100", {"network.rails[0].ipam.pool.subnet=192.169.0.0/16",
                                                 "network.rails[0].ipam.pool.gateway=192.169.0.1"});
  const auto pools = OfKind(diff, "IPPool");
  ASSERT_EQ(pools.size(), 1u) << FormatBundleDiff(diff, "out");
  EXPECT_EQ(pools[0]->effect, Disruption::kNone);
  EXPECT_TRUE(Has(AllNotes(*pools[0]), "running pods keep their old addresses until they are "
                                       "replaced"))
      << AllNotes(*pools[0]);
  const auto sets = OfKind(diff, "StatefulSet");
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0]->effect, Disruption::kJobRestart);
  EXPECT_TRUE(Has(sets[0]->disruption, "the fabric changes (IP pool); every pod of the "
                                       "StatefulSet is replaced"))
      << sets[0]->disruption;
  EXPECT_TRUE(Has(AllNotes(*sets[0]), "runs the fabric check again before its command"))
      << AllNotes(*sets[0]);
  EXPECT_TRUE(Has(AllNotes(*sets[0]), "running pods keep their old addresses")) << AllNotes(*sets[0]);
  EXPECT_TRUE(Has(sets[0]->unified_diff, "hkimgen.io/fabric-checksum: ")) << sets[0]->unified_diff;
}

TEST(DiffDisruption, AThresholdChangeNamesTheFabricCheckAndNoAddresses) {
  const BundleDiff diff = DiffAfter("oke-h100", {"fabric_health.gate.min_busbw_gbps=60"});
  const auto sets = OfKind(diff, "StatefulSet");
  ASSERT_EQ(sets.size(), 1u) << FormatBundleDiff(diff, "out");
  EXPECT_TRUE(Has(sets[0]->disruption, "the fabric changes (fabric check thresholds)"))
      << sets[0]->disruption;
  EXPECT_FALSE(Has(AllNotes(*sets[0]), "old addresses")) << AllNotes(*sets[0]);
  // nccl.debug: the config checksum only, no fabric words.
  const BundleDiff config = DiffAfter("oke-h100", {"nccl.debug=TRACE"});
  const auto config_sets = OfKind(config, "StatefulSet");
  ASSERT_EQ(config_sets.size(), 1u);
  EXPECT_FALSE(Has(config_sets[0]->disruption, "fabric")) << config_sets[0]->disruption;
}

TEST(DiffDisruption, AGpuDirectModeChangeRollsTheGpuDriver) {
  const BundleDiff diff = DiffAfter(kFresh, {"nccl.gpudirect=nvidia-peermem"});
  const auto policies = OfKind(diff, "ClusterPolicy");
  ASSERT_EQ(policies.size(), 1u) << FormatBundleDiff(diff, "out");
  EXPECT_EQ(policies[0]->effect, Disruption::kDriverRoll);
  EXPECT_TRUE(Has(policies[0]->disruption, "reloads the GPU driver"));
  EXPECT_TRUE(Has(policies[0]->disruption, "maxParallelUpgrades"));
}

// The bundle on disk with one file's text edited: `from` replaced by `to` in the file of `kind`.
Folder EditedOnDisk(const RenderedBundle& bundle, const std::string& file_part,
                    const std::string& from, const std::string& to) {
  Folder disk = OnDisk(bundle);
  int edited = 0;
  for (auto& [name, text] : disk.files) {
    if (name.find(file_part) == std::string::npos) continue;
    const size_t at = text.find(from);
    if (at == std::string::npos) continue;
    text.replace(at, from.size(), to);
    ++edited;
  }
  EXPECT_EQ(edited, 1) << file_part << ": " << from;
  return disk;
}

TEST(DiffDisruption, AChartDriverChangeWithTheHostsDriverRollsNothing) {
  // OKE keeps the host's driver (driver.enabled false): a change of the chart's driver.rdma
  // values has no driver DaemonSet to roll.
  const RenderedBundle bundle = Render("oke-h100", {});
  const Folder disk = EditedOnDisk(bundle, "gpu-operator", "useHostMofed: true", "useHostMofed: false");
  const BundleDiff diff = DiffBundle(bundle, disk.files, disk.marker);
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_EQ(diff.changes[0].object_name, "oke-h100-gpu-operator");
  EXPECT_EQ(diff.changes[0].effect, Disruption::kNone);
  EXPECT_TRUE(Has(AllNotes(diff.changes[0]), "driver/enabled is false: nothing of it runs"))
      << AllNotes(diff.changes[0]);
  // With the operator's own driver, the same change rolls it.
  const Folder enabled = EditedOnDisk(bundle, "gpu-operator", "enabled: false\n          rdma:",
                                      "enabled: true\n          rdma:");
  const BundleDiff roll = DiffBundle(bundle, enabled.files, enabled.marker);
  ASSERT_EQ(roll.changes.size(), 1u);
  EXPECT_EQ(roll.changes[0].effect, Disruption::kDriverRoll);
}

TEST(DiffDisruption, AnIommuPolicyChangeLeavesTheMachineConfigInPlaceAndSaysHowToRemoveIt) {
  const BundleDiff diff = DiffAfter(kFresh, {"iommu.policy=already-configured"});
  const auto configs = OfKind(diff, "MachineConfig");
  ASSERT_EQ(configs.size(), 1u) << FormatBundleDiff(diff, "out");
  EXPECT_EQ(configs[0]->kind, BundleChange::Kind::kRemoved);
  EXPECT_EQ(configs[0]->effect, Disruption::kNone);  // Prune=false: the sync deletes nothing
  EXPECT_FALSE(configs[0]->disruptive);
  const std::string notes = AllNotes(*configs[0]);
  EXPECT_TRUE(Has(notes, "left in place: Argo CD does not delete it (Prune=false, Delete=false)"))
      << notes;
  EXPECT_TRUE(Has(notes, "kubectl delete MachineConfig 99-worker-lab-iommu-passthrough"));
  EXPECT_TRUE(Has(notes, "(then the Machine Config Operator renders a new config")) << notes;
}

TEST(DiffDisruption, AKernelArgumentChangeRebootsThePool) {
  const RenderedBundle bundle = Render(kFresh, {});
  const Folder disk = EditedOnDisk(bundle, "machineconfig", "- iommu=pt", "- iommu=on");
  const BundleDiff diff = DiffBundle(bundle, disk.files, disk.marker);
  const auto configs = OfKind(diff, "MachineConfig");
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0]->effect, Disruption::kReboot);
  EXPECT_TRUE(Has(FormatBundleDiff(diff, "out"), "[disruptive: drain and reboot: the Machine "
                                                 "Config Operator"));
}

TEST(DiffDisruption, AnAddedMachineConfigRebootsThePoolWhenFirstApplied) {
  const BundleDiff diff =
      DiffAfter(kFresh, {"security.memlock_strategy=crio-ulimits"});
  const auto configs = OfKind(diff, "MachineConfig");
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0]->kind, BundleChange::Kind::kAdded);
  EXPECT_EQ(configs[0]->effect, Disruption::kReboot);
  EXPECT_EQ(configs[0]->disruption.rfind("when first applied: the Machine Config Operator", 0), 0u);
}

TEST(DiffDisruption, AnOperatorDowngradeIsRefusedWithTheReason) {
  // v25.3.4 declares OpenShift 4.14-4.19 (lint.operator-release on the fresh profile's 4.20).
  const BundleDiff diff = DiffAfter(
      kFresh, {"operators.gpu_operator.version=v25.3.4", "operators.openshift_version=\"4.19\""});
  EXPECT_TRUE(diff.HasRefusals());
  const auto subscriptions = OfKind(diff, "Subscription");
  ASSERT_EQ(subscriptions.size(), 1u);
  EXPECT_EQ(subscriptions[0]->refusal,
            "the Subscription of gpu-operator-certified moves from v26.7 to the older v25.3: "
            "OLM only upgrades (it never replaces an installed CSV by an older one), so the "
            "Subscription would stay on v26.7 while Argo CD reports it synced");
  EXPECT_TRUE(Has(FormatBundleDiff(diff, "out"), "[refused: the Subscription of"));
}

TEST(DiffDisruption, AnOperatorUpgradeIsNoRefusal) {
  const Folder old_disk =
      OnDisk(Render(kFresh, {"operators.gpu_operator.version=v25.3.4",
                             "operators.openshift_version=\"4.19\""}));
  const BundleDiff diff =
      DiffBundle(Render(kFresh, {}), old_disk.files, old_disk.marker);
  EXPECT_FALSE(diff.HasRefusals());
  EXPECT_EQ(OfKind(diff, "Subscription").size(), 1u);
}

// On OKE the bundle installs the operators from Helm charts, and an older
// chart release is refused as an OLM downgrade is.
TEST(DiffDisruption, AnOkeChartDowngradeIsRefusedWithTheReason) {
  const BundleDiff diff = DiffAfter("oke-h100", {"operators.gpu_operator.version=v25.3.4"});
  EXPECT_TRUE(diff.HasRefusals()) << FormatBundleDiff(diff, "out");
  const BundleChange* chart = nullptr;
  for (const BundleChange& change : diff.changes)
    if (change.object_name == "oke-h100-gpu-operator") chart = &change;
  ASSERT_NE(chart, nullptr) << FormatBundleDiff(diff, "out");
  EXPECT_EQ(chart->refusal,
            "the Application of chart gpu-operator moves from v25.10.1 to the older v25.3.4: "
            "Argo CD would apply the older chart, its CRDs included, over the running release, "
            "and an older operator would manage the CRs and nodes the newer one set up");
  // The other way is an upgrade: no refusal.
  const Folder old_disk = OnDisk(Render("oke-h100", {"operators.gpu_operator.version=v25.3.4"}));
  EXPECT_FALSE(DiffBundle(Render("oke-h100", {}), old_disk.files, old_disk.marker).HasRefusals());
  EXPECT_EQ(ChartDowngrade("network-operator", "25.10.0", "25.7.0").empty(), false);
  EXPECT_EQ(ChartDowngrade("network-operator", "25.7.0", "25.10.0"), "");
}

TEST(DiffDisruption, AUsersFileInTheBundleIsKeptNeverRemoved) {
  const RenderedBundle bundle = Render("oke-h100", {});
  Folder disk = OnDisk(bundle);
  disk.files["platform/my-extra-policy.yaml"] = "apiVersion: v1\nkind: ConfigMap\n";
  const BundleDiff diff = DiffBundle(bundle, disk.files, disk.marker);
  EXPECT_FALSE(diff.HasChanges());
  EXPECT_EQ(diff.user_files, std::vector<std::string>{"platform/my-extra-policy.yaml"});
  EXPECT_EQ(FormatBundleDiff(diff, "out"),
            "= kept platform/my-extra-policy.yaml (yours: .hkimgen-bundle does not list it; "
            "render keeps it)\nout: no changes\n");
  // A file the marker lists and the bundle no longer has is hkimgen's, and removed.
  disk.marker.insert("platform/my-extra-policy.yaml");
  const BundleDiff ours = DiffBundle(bundle, disk.files, disk.marker);
  ASSERT_EQ(ours.changes.size(), 1u);
  EXPECT_EQ(ours.changes[0].kind, BundleChange::Kind::kRemoved);
}

TEST(DiffDisruption, ObjectsMovedToTheNodesLayerAreMovesNotRemovals) {
  // A bundle rendered before the nodes layer held these objects in platform/.
  const RenderedBundle bundle = Render(kFresh, {});
  Folder disk = OnDisk(bundle);
  Folder old;
  for (const auto& [name, text] : disk.files) {
    if (name == "nodes/kustomization.yaml" || name == "apps/nodes.yaml") continue;
    const std::string old_name =
        name.rfind("nodes/", 0) == 0 ? "platform/" + name.substr(6) : name;
    old.files[old_name] = text;
    old.marker.insert(old_name);
  }
  const BundleDiff diff = DiffBundle(bundle, old.files, old.marker);
  const auto configs = OfKind(diff, "MachineConfig");
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0]->kind, BundleChange::Kind::kMoved);
  EXPECT_EQ(configs[0]->moved_from, "platform/20-machineconfig-99-worker-lab-iommu-passthrough.yaml");
  EXPECT_EQ(configs[0]->effect, Disruption::kNone);  // the same object: nothing reboots
  EXPECT_TRUE(Has(AllNotes(*configs[0]), "moves from the platform Application to the nodes one"));
  for (const BundleChange& change : diff.changes)
    EXPECT_NE(change.kind, BundleChange::Kind::kRemoved) << change.file_name;
}

TEST(DiffDisruption, ASelfSyncChangeSaysWhoPressesSyncFromNowOn) {
  const BundleDiff diff = DiffAfter("oke-h100", {"gitops.self_sync=off"});
  bool workload = false;
  for (const BundleChange& change : diff.changes) {
    if (change.object_name != "oke-h100-workload") continue;
    workload = true;
    EXPECT_EQ(AllNotes(change),
              "stops syncing itself: its changes wait for `argocd app sync oke-h100-workload`\n");
  }
  EXPECT_TRUE(workload) << FormatBundleDiff(diff, "out");
}

TEST(OperatorDowngrade, ComparesChannelsReleasesAndCsvNames) {
  EXPECT_NE(OlmDowngrade("p", "v25.10", "v25.3"), "");
  EXPECT_NE(OlmDowngrade("p", "gpu-operator-certified.v25.10.1", "gpu-operator-certified.v24.9.2"),
            "");
  EXPECT_NE(OlmDowngrade("p", "25.10.0", "24.10.1"), "");
  EXPECT_EQ(OlmDowngrade("p", "v25.3", "v25.10"), "");
  EXPECT_EQ(OlmDowngrade("p", "v25.10", "v25.10"), "");
  EXPECT_EQ(OlmDowngrade("p", "stable", "v25.3"), "");  // a channel name is no version
  EXPECT_EQ(ParseOperatorVersion("v25.10.1"), (std::vector<int>{25, 10, 1}));
  EXPECT_EQ(ParseOperatorVersion("stable"), std::nullopt);
}

}  // namespace
}  // namespace hkim
