// The requirements model and the closure check (plan/requirements.h, plan/closure.h): every
// shipped profile renders closed; taking away the provider of each kind of need gives the
// located closure.<kind> error; preconditions reach the marker and the bundle's README.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "images/images.h"
#include "layering/layering.h"
#include "load/load.h"
#include "pipeline/pipeline.h"
#include "plan/closure.h"
#include "plan/layers.h"
#include "plan/plan.h"
#include "plan/sync_order.h"
#include "test_files.h"
#include "validate/validate.h"
#include "write/guard.h"

namespace hkim {
namespace {

using test_files::Find;
using test_files::FreshOpenShiftProfile;
using test_files::ReadProfile;
using test_files::Replace;

struct Planned {
  std::string text;
  LoadedProfile loaded;
  Profile profile;
  BundlePlan plan;
};

Planned PlanText(const std::string& text) {
  DiagnosticSink sink;
  Planned out;
  out.text = text;
  auto loaded = LoadProfileFromText("p.yaml", text, sink);
  EXPECT_TRUE(loaded);
  if (!loaded) return out;
  out.loaded = *loaded;
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  EXPECT_TRUE(schema && ValidateProfile(out.loaded, *schema, sink));
  auto profile = BuildProfile(out.loaded, sink);
  for (const Diagnostic& d : sink.diagnostics()) ADD_FAILURE() << d.rule << ": " << d.message;
  if (!profile) return out;
  out.profile = *profile;
  out.plan = PlanBundle(out.profile);
  return out;
}

std::vector<Diagnostic> Check(const Planned& p) {
  DiagnosticSink sink;
  CheckClosure(p.profile, p.loaded, p.plan, sink);
  return sink.diagnostics();
}

/// Takes every provider of `kind` whose name starts with `prefix` out of the plan: the objects'
/// provisions and the preconditions (declared or implied) of that kind.
void RemoveProvider(BundlePlan& plan, CapabilityKind kind, const std::string& prefix) {
  for (PlannedObject& o : plan.objects) {
    auto& p = o.provides;
    p.erase(std::remove_if(p.begin(), p.end(),
                           [&](const Capability& c) {
                             return c.kind == kind && c.name.rfind(prefix, 0) == 0;
                           }),
            p.end());
  }
  auto& pre = plan.preconditions;
  pre.erase(std::remove_if(pre.begin(), pre.end(),
                           [&](const Precondition& c) {
                             return (c.kind == ToString(kind) ||
                                     (kind == CapabilityKind::kGpuDirect && c.kind == "host-driver")) &&
                                    c.what.rfind(prefix, 0) == 0;
                           }),
            pre.end());
}

int LineOf(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  // The needle's last line (a mapping is located at its first key, under its own key).
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at + needle.size() - 1, '\n'));
}

/// The diagnostics of `rule`; fails unless one is at the line holding `needle` with a fix.
void ExpectAt(const std::vector<Diagnostic>& found, const std::string& rule, const Planned& p,
              const std::string& needle) {
  const int line = LineOf(p.text, needle);
  std::string all;
  for (const Diagnostic& d : found) {
    all += d.rule + "@" + std::to_string(d.location.line) + ": " + d.message + "\n";
    if (d.rule == rule && d.location.line == line) {
      EXPECT_EQ(d.severity, Severity::kError);
      EXPECT_NE(d.fix.find("preconditions"), std::string::npos) << d.fix;
      return;
    }
  }
  ADD_FAILURE() << "no " << rule << " at line " << line << " (" << needle << "); got:\n" << all;
}

TEST(Closure, EveryShippedProfileIsClosed) {
  for (const char* name : {"barcelona-h100-cx7", "oke-h100", "oke-a100", "oke-a100-gpu4"}) {
    const Planned p = PlanText(ReadProfile(name));
    for (const Diagnostic& d : Check(p)) ADD_FAILURE() << name << ": " << d.rule << ": " << d.message;
  }
}

TEST(Closure, ObjectsRecordWhatTheyNeedAndProvide) {
  const Planned p = PlanText(ReadProfile("oke-h100"));
  const PlannedObject* nad = Find(p.plan, "NetworkAttachmentDefinition", "oci-rdma-sriov");
  ASSERT_NE(nad, nullptr);
  std::vector<std::string> cni;
  for (const Need& n : nad->needs)
    if (n.what.kind == CapabilityKind::kCniPlugin) cni.push_back(n.what.name);
  // Parsed from the NAD's own config: sriov (nv-ipam), tuning, rdma, sbr.
  EXPECT_EQ(cni, (std::vector<std::string>{"sriov", "nv-ipam", "tuning", "rdma", "sbr"}));
  const PlannedObject* policy = Find(p.plan, "NicClusterPolicy", "nic-cluster-policy");
  ASSERT_NE(policy, nullptr);
  EXPECT_TRUE(policy->node_agent);
  bool resource = false;
  for (const Capability& c : policy->provides)
    resource |= c.kind == CapabilityKind::kResource && c.name == "nvidia.com/sriov_rdma_vf";
  EXPECT_TRUE(resource);
}

TEST(Closure, MissingCrdIsLocatedAtTheOperator) {
  Planned p = PlanText(FreshOpenShiftProfile());
  RemoveProvider(p.plan, CapabilityKind::kCrd, "sriovnetwork.openshift.io");
  ExpectAt(Check(p), "closure.crd", p, "  sriov_network_operator:\n    install");
  // OKE without the NicClusterPolicy's secondary network: nothing brings the NAD CRD (Multus)
  // nor the tuning and sbr plugins.
  Planned oke = PlanText(Replace(ReadProfile("oke-h100"), "    install: managed\n    version: v25.10.0",
                                 "    install: managed\n    secondary_network: false\n    version: v25.10.0"));
  ExpectAt(Check(oke), "closure.crd", oke, "    - name: oci-rdma-sriov");
  ExpectAt(Check(oke), "closure.cni-plugin", oke, "    - name: oci-rdma-sriov");
}

TEST(Closure, MissingCniPluginAndIpamAreLocatedAtTheRail) {
  Planned p = PlanText(FreshOpenShiftProfile());
  RemoveProvider(p.plan, CapabilityKind::kCniPlugin, "sriov");
  ExpectAt(Check(p), "closure.cni-plugin", p, "    - name: eno5np0");
  Planned oke = PlanText(ReadProfile("oke-h100"));
  RemoveProvider(oke.plan, CapabilityKind::kCniPlugin, "nv-ipam");
  ExpectAt(Check(oke), "closure.cni-plugin", oke, "        type: nv-ipam");
}

TEST(Closure, RdmaCniNeedsExclusiveNetnsMode) {
  Planned p = PlanText(ReadProfile("oke-h100"));
  RemoveProvider(p.plan, CapabilityKind::kRdmaNetns, "");
  ExpectAt(Check(p), "closure.rdma-netns", p, "    - name: oci-rdma-sriov");
}

TEST(Closure, MissingResourcesAreLocatedAtTheirRequest) {
  Planned p = PlanText(FreshOpenShiftProfile());
  RemoveProvider(p.plan, CapabilityKind::kResource, "openshift.io/eno6np0rdma");
  RemoveProvider(p.plan, CapabilityKind::kResource, "nvidia.com/gpu");
  const auto found = Check(p);
  ExpectAt(found, "closure.resource", p, "      resource_name: openshift.io/eno6np0rdma");
  ExpectAt(found, "closure.resource", p, "  gpus_per_pod: 4");
}

TEST(Closure, NodeLabelsNeedAProviderOrAPrecondition) {
  // Barcelona's h100 role label is the cluster admins' (implied by machine_config_pool:
  // existing): without that precondition the SR-IOV policies select nodes nothing labels.
  const std::string text = FreshOpenShiftProfile();
  Planned p = PlanText(text);
  RemoveProvider(p.plan, CapabilityKind::kNodeLabel, "node-role.kubernetes.io/h100");
  ExpectAt(Check(p), "closure.node-label", p, "  machine_config_role: h100");
  // nvidia.com/gpu.product comes from the GPU Operator's feature discovery.
  Planned q = PlanText(text);
  RemoveProvider(q.plan, CapabilityKind::kNodeLabel, "nvidia.com/gpu.");
  ExpectAt(Check(q), "closure.node-label", q, "    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3");
}

TEST(Closure, MachineConfigsNeedTheirPool) {
  Planned p = PlanText(FreshOpenShiftProfile());
  RemoveProvider(p.plan, CapabilityKind::kMachineConfigPool, "h100");
  ExpectAt(Check(p), "closure.machine-config-pool", p, "  machine_config_role: h100");
}

TEST(Closure, GpuDirectNeedsTheDriverOrAHostDriverPrecondition) {
  Planned p = PlanText(FreshOpenShiftProfile());
  RemoveProvider(p.plan, CapabilityKind::kGpuDirect, "");
  ExpectAt(Check(p), "closure.gpudirect", p, "  gpudirect: dmabuf");
  // OKE's GPU Operator leaves the driver to the host: only a host-driver precondition helps.
  Planned oke = PlanText(ReadProfile("oke-h100"));
  RemoveProvider(oke.plan, CapabilityKind::kGpuDirect, "");
  ExpectAt(Check(oke), "closure.gpudirect", oke, "  gpudirect: auto");
}

TEST(Closure, WorkloadTaintsArePropagatedToTheNodeAgents) {
  for (const char* name : {"oke-h100", "barcelona-h100-cx7"}) {
    const std::string profile =
        std::string(name) == "oke-h100" ? ReadProfile(name) : FreshOpenShiftProfile();
    const std::string text = Replace(profile, "  tolerations:\n",
                                     "  tolerations:\n    - key: dedicated\n      operator: Exists\n");
    Planned p = PlanText(text);
    EXPECT_TRUE(Check(p).empty()) << name;
    int agents = 0;
    for (const PlannedObject& o : p.plan.objects) {
      if (!o.node_agent) continue;
      ++agents;
      if (o.kind == "NicClusterPolicy" || o.kind == "ClusterPolicy" ||
          (o.kind == "Application" && o.name.find("gpu-operator") != std::string::npos)) {
        EXPECT_NE(o.context.dump().find("\"dedicated\""), std::string::npos) << o.kind;
      }
    }
    EXPECT_GE(agents, 2) << name;
    // An agent that does not tolerate it is the located error.
    for (PlannedObject& o : p.plan.objects)
      if (o.kind == "NicClusterPolicy" || o.kind == "ClusterPolicy") o.tolerates.clear();
    ExpectAt(Check(p), "closure.toleration", p, "    - key: dedicated");
  }
}

// The agents' tolerations are matched as the scheduler matches them (model/node_fit.h): an
// agent that tolerates every key with effect NoSchedule never runs where the workload tolerates
// NoExecute, and one naming an effect does not cover a workload toleration that names none.
TEST(Closure, AgentTolerationsMatchByKeyValueOperatorAndEffect) {
  auto planned = [](const std::string& toleration, const ToleratedTaint& agent) {
    Planned p = PlanText(Replace(ReadProfile("oke-h100"), "  tolerations:\n",
                                 "  tolerations:\n" + toleration));
    // Its own toleration of the workload's "dedicated" taint becomes `agent`.
    for (PlannedObject& o : p.plan.objects) {
      if (o.kind != "NicClusterPolicy") continue;
      std::erase_if(o.tolerates, [](const ToleratedTaint& t) { return t.key == "dedicated"; });
      o.tolerates.push_back(agent);
    }
    return p;
  };
  const std::string no_execute = "    - key: dedicated\n      operator: Exists\n      effect: NoExecute\n";
  Planned every_key = planned(no_execute, ToleratedTaint{"", true, "", "NoSchedule"});
  ExpectAt(Check(every_key), "closure.toleration", every_key, "    - key: dedicated");
  EXPECT_TRUE(Check(planned(no_execute, ToleratedTaint{"", true, "", ""})).empty());
  EXPECT_TRUE(Check(planned(no_execute, ToleratedTaint{"dedicated", true, "", "NoExecute"})).empty());

  const std::string ours = "    - key: dedicated\n      value: ours\n";
  Planned one_effect = planned(ours, ToleratedTaint{"dedicated", false, "ours", "NoSchedule"});
  ExpectAt(Check(one_effect), "closure.toleration", one_effect, "    - key: dedicated");
  Planned theirs = planned(ours, ToleratedTaint{"dedicated", false, "theirs", ""});
  ExpectAt(Check(theirs), "closure.toleration", theirs, "    - key: dedicated");
  EXPECT_TRUE(Check(planned(ours, ToleratedTaint{"dedicated", false, "ours", ""})).empty());
  EXPECT_TRUE(Check(planned(ours, ToleratedTaint{"dedicated", true, "", ""})).empty());
  // An agent of Equal never covers a workload that tolerates every value.
  Planned equal = planned("    - key: dedicated\n      operator: Exists\n",
                          ToleratedTaint{"dedicated", false, "ours", ""});
  ExpectAt(Check(equal), "closure.toleration", equal, "    - key: dedicated");
}

// Argo CD orders sync waves only inside one Application; between Applications only the parent's
// waves order them (plan/sync_order.h).
TEST(SyncOrder, WavesCompareOnlyInsideOneApplication) {
  const SyncPlacement platform_1{"c-platform", 1, 1, false};
  const SyncPlacement platform_2{"c-platform", 2, 1, false};
  const SyncPlacement nodes_1{"c-nodes", 1, 2, false};
  const SyncPlacement workload_4{"c-workload", 4, 3, false};
  const SyncPlacement chart{"c-network-operator", 0, 0, true};
  // One Application: an earlier wave, or the same one for all but CRDs.
  EXPECT_TRUE(SyncsInTime(platform_1, platform_2, false));
  EXPECT_FALSE(SyncsInTime(platform_2, platform_1, true));
  EXPECT_TRUE(SyncsInTime(platform_1, platform_1, true));
  EXPECT_FALSE(SyncsInTime(platform_1, platform_1, false));
  // Another Application: its wave in the parent decides, not the objects' waves.
  EXPECT_TRUE(SyncsInTime(platform_2, nodes_1, false));   // later object wave, earlier Application
  EXPECT_FALSE(SyncsInTime(nodes_1, platform_2, true));   // earlier object wave, later Application
  EXPECT_FALSE(SyncsInTime(workload_4, nodes_1, true));
  // Siblings of one parent wave sync side by side: no order, whatever the need.
  const SyncPlacement sibling{"c-kueue", 0, 0, true};
  EXPECT_FALSE(SyncsInTime(sibling, chart, true));
  EXPECT_FALSE(SyncsInTime(chart, SyncPlacement{"c-platform", 1, 0, false}, false));
  // A chart's contents come once its Application has synced.
  EXPECT_TRUE(SyncsInTime(chart, platform_1, false));
  EXPECT_TRUE(SyncsInTime(chart, chart, false));
}

TEST(Closure, ProviderInALaterApplicationIsLateWhateverItsObjectWave) {
  // The NicClusterPolicy (wave 1 of oke-h100-nodes) needs the CRD the Network Operator's chart
  // brings. Parent wave 0 for the chart: in time. The chart after the nodes layer: the
  // policy's wave is still later than the chart's, but Argo CD never compares the two.
  Planned p = PlanText(ReadProfile("oke-h100"));
  const PlannedObject* policy = Find(p.plan, "NicClusterPolicy", "nic-cluster-policy");
  ASSERT_NE(policy, nullptr);
  const SyncPlacement at = PlacementOf(p.profile, p.plan, *policy);
  EXPECT_EQ(at.application, "oke-h100-nodes");
  EXPECT_EQ(at.application_wave, 2);
  EXPECT_TRUE(Check(p).empty());
  PlannedObject* chart = nullptr;
  for (PlannedObject& o : p.plan.objects)
    if (o.layer == kAppsLayer && o.name == "oke-h100-network-operator") chart = &o;
  ASSERT_NE(chart, nullptr);
  chart->sync_wave = at.application_wave;  // a sibling of the nodes layer: no order either
  // Located at the value that made the policy (network.sriov_device_plugin).
  std::vector<Diagnostic> found = Check(p);
  ExpectAt(found, "closure.crd", p, "  sriov_device_plugin:\n    resource_prefix");
  chart->sync_wave = at.application_wave + 1;
  found = Check(p);
  ExpectAt(found, "closure.crd", p, "  sriov_device_plugin:\n    resource_prefix");
  bool named = false;
  for (const Diagnostic& d : found) {
    if (d.message.find("NicClusterPolicy") == std::string::npos) continue;
    named = true;
    EXPECT_NE(d.message.find("wave 1 of Application oke-h100-nodes (wave 2 of oke-h100)"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("Application oke-h100-network-operator (wave 3 of oke-h100), which the parent "
                             "does not sync before Application oke-h100-nodes"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("health check for argoproj.io/Application"), std::string::npos) << d.message;
    EXPECT_NE(d.fix.find("let the parent sync Application oke-h100-network-operator in an earlier wave than oke-h100-nodes"),
              std::string::npos) << d.fix;
  }
  EXPECT_TRUE(named);
}

std::set<std::string> ImagePreconditions(const BundlePlan& plan) {
  std::set<std::string> out;
  for (const Precondition& pre : plan.preconditions) {
    if (pre.kind != "image") continue;
    out.insert(pre.what);
    EXPECT_NE(pre.check.find("crictl pull "), std::string::npos) << pre.check;
  }
  return out;
}

TEST(Closure, ImagesComeFromTheirRegistriesOrUnderAMirrorFromItAlone) {
  // Without a mirror, each registry the images come from is an implied precondition.
  Planned plain = PlanText(ReadProfile("oke-h100"));
  EXPECT_EQ(ImagePreconditions(plain.plan),
            (std::set<std::string>{"docker.io/*", "iad.ocir.io/*", "nvcr.io/*", "quay.io/*", "registry.k8s.io/*"}));
  EXPECT_TRUE(Check(plain).empty());
  // Under images.mirror the mirror alone is, so an image outside it is closure.image, located
  // at the value that names it.
  Planned mirrored = PlanText(ReadProfile("oke-h100") +
                              "images:\n  mirror: mirror.example.com:5000/gpu\n"
                              "  chart_mirror: https://charts.example.com/gpu\n");
  EXPECT_EQ(ImagePreconditions(mirrored.plan), (std::set<std::string>{"mirror.example.com:5000/gpu/*"}));
  EXPECT_TRUE(Check(mirrored).empty());
  int changed = 0;
  for (PlannedObject& o : mirrored.plan.objects)
    for (Need& need : o.needs)
      if (need.what.kind == CapabilityKind::kImage && need.pointer == "/workload/image") {
        need.what.name = "iad.ocir.io/hpc_limited_availability/nccl-tests:pytorch-23.10-nccl-2.19.3-1";
        ++changed;
      }
  EXPECT_GE(changed, 1);
  ExpectAt(Check(mirrored), "closure.image", mirrored, "  image: iad.ocir.io/");
}

// Every image the bundle pulls (the images stage's list, which
// tests/generator/images/plan_vs_rendered_test.cc holds equal to the rendered documents) is
// covered by an image precondition.
TEST(Closure, EveryImageARenderedBundlePullsIsCoveredByAnImagePrecondition) {
  for (const char* name : {"barcelona-h100-cx7", "oke-h100", "oke-a100"}) {
    SCOPED_TRACE(name);
    DiagnosticSink sink;
    auto loaded = LoadProfileFromText("p.yaml", ReadProfile(name), sink);
    ASSERT_TRUE(loaded);
    std::optional<ProfileRender> render = RenderLoadedProfileWithPlan(*loaded, sink);
    ASSERT_TRUE(render);
    const BundleImages images = CollectImages(render->plan, {});
    ASSERT_GE(images.images.size(), 2u);
    for (const ImageUse& use : images.images) {
      bool covered = false;
      for (const Precondition& pre : render->bundle.preconditions)
        covered |= pre.kind == "image" && CapabilityMatches(CapabilityKind::kImage, pre.what, use.image);
      EXPECT_TRUE(covered) << use.image;
    }
  }
}

// OKE: the VF DaemonSet left to the nodes' image (operators.vf_config.install: preinstalled)
// provides what the bundle's would (the catalogue's vf_config row): the rails' sriov and rdma
// CNI and the exclusive netns mode, so nothing the NADs chain is missing.
TEST(Closure, PreinstalledVfConfigProvidesWhatTheBundlesDaemonSetsWould) {
  std::string text = ReadProfile("oke-h100");
  const std::string managed = "  vf_config:\n    install: managed\n";
  const size_t at = text.find(managed);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, managed.size(), "  vf_config:\n    install: preinstalled\n");
  const Planned p = PlanText(text);
  for (const Diagnostic& d : Check(p)) ADD_FAILURE() << d.rule << ": " << d.message;
  bool operator_pre = false;
  for (const Precondition& pre : p.plan.preconditions)
    operator_pre |= pre.kind == "operator" && pre.what == "vf_config";
  EXPECT_TRUE(operator_pre);
}

TEST(Closure, PreconditionsAreImpliedListedInTheMarkerAndTheReadme) {
  const Planned p = PlanText(ReadProfile("oke-a100"));  // operators shared with oke-h100
  bool shared = false;
  for (const Precondition& pre : p.plan.preconditions)
    shared |= pre.kind == "operator" && pre.what == "network_operator" &&
              pre.why.find("shared") != std::string::npos;
  EXPECT_TRUE(shared);

  DiagnosticSink sink;
  const std::string path =
      (std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / "barcelona-h100-cx7.yaml").string();
  std::optional<RenderedBundle> bundle = RenderProfileFile(path, sink);
  ASSERT_TRUE(bundle) << (sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message);
  const RenderedFile* readme = nullptr;
  for (const RenderedFile& f : bundle->files)
    if (f.file_name == "README.md") readme = &f;
  ASSERT_NE(readme, nullptr);
  // The Argo CD instance the parent is applied into, and Barcelona's API server registered in it.
  EXPECT_NE(readme->content.find("oc get argocd -n openshift-gitops"), std::string::npos);
  EXPECT_NE(readme->content.find("https://api.barcelona.nerc.mghpcc.org:6443"), std::string::npos);
  // The hand-made pool and its role label: nothing the bundle renders goes through them.
  EXPECT_EQ(readme->content.find("oc get machineconfigpool h100"), std::string::npos);
  EXPECT_NE(readme->content.find("oc apply -f bootstrap/"), std::string::npos);
  EXPECT_NE(readme->content.find("kubectl get pods -n nccl-test -l app=h-kim"), std::string::npos);
  EXPECT_EQ(BundleStream(*bundle).find("Bundle barcelona"), std::string::npos);  // not an object
  const auto marker = nlohmann::json::parse(BundleMarkerText({"a.yaml"}, bundle->preconditions));
  ASSERT_TRUE(marker.contains("preconditions"));
  std::set<std::string> kinds;
  for (const auto& pre : marker["preconditions"]) kinds.insert(pre["kind"].get<std::string>());
  EXPECT_EQ(kinds.count("argocd-instance"), 1u);
  EXPECT_EQ(kinds.count("argocd-cluster"), 1u);
  EXPECT_EQ(kinds.count("machine-config-pool"), 0u);
}

std::string RenderedReadme(const std::string& name, const std::vector<std::string>& sets = {}) {
  DiagnosticSink sink;
  const std::string path = (std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / (name + ".yaml")).string();
  std::optional<RenderedBundle> bundle = RenderProfileLayers(LayerInputs{path, {}, sets}, sink);
  EXPECT_TRUE(bundle) << (sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message);
  if (!bundle) return "";
  for (const RenderedFile& f : bundle->files)
    if (f.file_name == "README.md") return f.content;
  return "";
}

TEST(Closure, TheBundleReadmeSaysWhoProvidesGpuDirectAndWhetherTheFabricCheckProvesIt) {
  const std::string barcelona = RenderedReadme("barcelona-h100-cx7");
  EXPECT_NE(barcelona.find("(`nccl.gpudirect: dmabuf`)"), std::string::npos) << barcelona;
  // Barcelona's GPU Operator runs already: its precondition provides GPUDirect.
  EXPECT_NE(barcelona.find("- precondition operator `gpu_operator` (below)"), std::string::npos);
  EXPECT_NE(barcelona.find("The in-pod fabric check requires it"), std::string::npos);
  const std::string oke = RenderedReadme("oke-h100");
  EXPECT_NE(oke.find("- DaemonSet `oke-h100-vf-config/oke-h100-vf-config` (nvidia-peermem)"), std::string::npos) << oke;
  EXPECT_NE(oke.find("The in-pod fabric check does not require it"), std::string::npos);
  // Named, the mode is required by the check (auto transport); TCP mode has no GPUDirect need.
  const std::string named = RenderedReadme("oke-h100", {"nccl.gpudirect=nvidia-peermem",
                                                        "fabric_health.gate.transport=auto"});
  EXPECT_NE(named.find("The in-pod fabric check requires it"), std::string::npos) << named;
  EXPECT_EQ(RenderedReadme("oke-h100", {"workload.mode=tcp", "fabric_health.gate.transport=auto"})
                .find("## GPUDirect RDMA"),
            std::string::npos);
}

TEST(Closure, RenderStopsAtAClosureError) {
  // A node selector label nothing provides and no precondition declares.
  const std::string text = Replace(FreshOpenShiftProfile(),
                                   "    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3",
                                   "    example.com/rack: r1");
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText("p.yaml", text, sink);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(RenderLoadedProfile(*loaded, sink));
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) found |= d.rule == "closure.node-label";
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace hkim
