// Fabric-aware placement (plan/scheduling.cc): scheduling.kueue renders Kueue's
// Topology, ResourceFlavor, ClusterQueue and a LocalQueue per namespace, and queues the
// StatefulSet with its topology annotation; Kueue's CRDs and the level labels go through the
// closure check; a profile without `scheduling` plans none of it.
#include <gtest/gtest.h>

#include "layering/layering.h"
#include "load/load.h"
#include "plan/closure.h"
#include "plan/plan.h"
#include "render/render.h"
#include "test_files.h"
#include "validate/validate.h"

namespace hkim {
namespace {

using nlohmann::json;
using test_files::Find;
using test_files::ReadProfile;
using test_files::Replace;

struct Built {
  LoadedProfile loaded;
  std::optional<Profile> profile;
  std::vector<Diagnostic> diagnostics;  ///< model's, then the closure check's
  BundlePlan plan;
};

Built Build(const std::string& text) {
  Built out;
  DiagnosticSink sink;
  auto loaded = LoadProfileFromText("p.yaml", text, sink);
  EXPECT_TRUE(loaded);
  if (!loaded) return out;
  out.loaded = *loaded;
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  EXPECT_TRUE(schema && ValidateProfile(out.loaded, *schema, sink)) << text;
  out.profile = BuildProfile(out.loaded, sink);
  if (out.profile) {
    out.plan = PlanBundle(*out.profile);
    CheckClosure(*out.profile, out.loaded, out.plan, sink);
  }
  out.diagnostics = sink.diagnostics();
  return out;
}

std::string Rules(const Built& b) {
  std::string all;
  for (const Diagnostic& d : b.diagnostics)
    if (d.severity == Severity::kError) all += d.rule + "@" + d.data_path + ": " + d.message + "\n";
  return all;
}

// Barcelona with a rack label: OpenShift has no default levels, and Kueue is the admins'.
constexpr char kRackScheduling[] =
    "scheduling:\n"
    "  kueue:\n"
    "    levels: [topology.example.com/rack, kubernetes.io/hostname]\n"
    "    placement: preferred\n";
constexpr char kKueuePreinstalled[] =
    "  kueue:\n"
    "    install: preinstalled\n"
    "    version: v0.19.2\n"
    "  gpu_operator:\n";
constexpr char kRackPrecondition[] =
    "preconditions:\n"
    "  - kind: node-label\n"
    "    what: topology.example.com/rack\n"
    "    why: the cluster's admins label each GPU node with its rack\n"
    "    check: oc get nodes -L topology.example.com/rack\n";

std::string BarcelonaWithRack(bool declare_rack) {
  std::string text = ReadProfile("barcelona-h100-cx7");
  text = Replace(text, "  gpu_operator:\n", kKueuePreinstalled);
  // The shipped profile declares no precondition: the rack label's is the first.
  if (declare_rack) text = Replace(text, "\noperators:\n", std::string("\n") + kRackPrecondition + "\noperators:\n");
  return Replace(text, "\ngitops:", std::string("\n") + kRackScheduling + "\ngitops:");
}

TEST(Scheduling, OkeH100QueuesTheJobOverOciRdmaLevels) {
  const Built b = Build(ReadProfile("oke-h100"));
  ASSERT_TRUE(b.profile) << Rules(b);
  EXPECT_EQ(Rules(b), "");
  const PlannedObject* topology = Find(b.plan, "Topology", "oke-h100");
  ASSERT_NE(topology, nullptr);
  EXPECT_EQ(topology->api_version, "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(topology->context["levels"],
            json::parse(R"([{"value":"oci.oraclecloud.com/rdma.hpc_island_id"},
                            {"value":"oci.oraclecloud.com/rdma.network_block_id"},
                            {"value":"oci.oraclecloud.com/rdma.local_block_id"},
                            {"value":"kubernetes.io/hostname"}])"));
  // One job's worth: 2 replicas x 8 GPUs, x 16 VFs, x 1Gi ephemeral storage.
  const PlannedObject* queue = Find(b.plan, "ClusterQueue", "oke-h100");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->context["resources"],
            json::parse(R"([{"name":"ephemeral-storage","quota":"2Gi"},
                            {"name":"nvidia.com/gpu","quota":"16"},
                            {"name":"nvidia.com/sriov_rdma_vf","quota":"32"}])"));
  const PlannedObject* flavor = Find(b.plan, "ResourceFlavor", "oke-h100");
  ASSERT_NE(flavor, nullptr);
  // The workload's tolerations, never the health check's taint.
  EXPECT_EQ(flavor->context["tolerations"].dump().find("nccl-health"), std::string::npos);
  ASSERT_NE(Find(b.plan, "LocalQueue", "nccl-allreduce"), nullptr);
  const PlannedObject* sts = Find(b.plan, "StatefulSet", "nccl-allreduce");
  ASSERT_NE(sts, nullptr);
  EXPECT_EQ(sts->context["queue"], "nccl-allreduce");
  EXPECT_EQ(sts->context["topology_annotation"], "kueue.x-k8s.io/podset-required-topology");
  EXPECT_EQ(sts->context["topology_level"], "oci.oraclecloud.com/rdma.network_block_id");
  // OCI's labels are implied preconditions on OKE; hostname is the platform's.
  int oci_labels = 0;
  for (const Precondition& pre : b.plan.preconditions)
    oci_labels += pre.kind == "node-label" && pre.what.rfind("oci.oraclecloud.com/rdma.", 0) == 0;
  EXPECT_EQ(oci_labels, 3);
  // Kueue's chart provides the CRDs.
  const PlannedObject* chart = Find(b.plan, "Application", "oke-h100-kueue");
  ASSERT_NE(chart, nullptr);
  EXPECT_EQ(chart->context["repo_url"], "registry.k8s.io/kueue/charts");
  EXPECT_EQ(chart->context["version"], "0.19.2");
}

TEST(Scheduling, WithoutKueueInstalledTheClosureNamesItsCrds) {
  std::string text = ReadProfile("oke-h100");
  text = Replace(text, "  kueue:                  #", "  # kueue:");
  text = Replace(text, "    install: managed\n    version: v0.19.2\n", "");
  const Built b = Build(text);
  ASSERT_TRUE(b.profile) << Rules(b);
  const std::string rules = Rules(b);
  EXPECT_NE(rules.find("closure.crd@/scheduling/kueue"), std::string::npos) << rules;
  EXPECT_NE(rules.find("kueue.x-k8s.io/Topology"), std::string::npos) << rules;
  EXPECT_NE(rules.find("kueue.x-k8s.io/LocalQueue"), std::string::npos) << rules;
}

TEST(Scheduling, BarcelonaNamesARackLabelWhichMustBeDeclared) {
  const Built undeclared = Build(BarcelonaWithRack(false));
  ASSERT_TRUE(undeclared.profile) << Rules(undeclared);
  EXPECT_NE(Rules(undeclared).find("closure.node-label@/scheduling/kueue/levels/0"),
            std::string::npos)
      << Rules(undeclared);

  const Built b = Build(BarcelonaWithRack(true));
  ASSERT_TRUE(b.profile) << Rules(b);
  EXPECT_EQ(Rules(b), "");
  const PlannedObject* sts = Find(b.plan, "StatefulSet", b.profile->workload.name);
  ASSERT_NE(sts, nullptr);
  // The outermost level by default; preferred.
  EXPECT_EQ(sts->context["topology_level"], "topology.example.com/rack");
  EXPECT_EQ(sts->context["topology_annotation"], "kueue.x-k8s.io/podset-preferred-topology");
  // Kueue preinstalled: no chart, its CRDs through the implied operator precondition.
  EXPECT_EQ(Find(b.plan, "Application", "barcelona-kueue"), nullptr);
  // Four rails: each rail's resource has its quota, one VF per pod per rail.
  const PlannedObject* queue = Find(b.plan, "ClusterQueue", b.profile->cluster_name);
  ASSERT_NE(queue, nullptr);
  EXPECT_NE(queue->context["resources"].dump().find("openshift.io/eno5np0rdma"), std::string::npos);
}

TEST(Scheduling, ModelRefusesWhatItCannotRender) {
  const std::string barcelona = BarcelonaWithRack(true);
  auto rules_of = [](const std::string& text) {
    DiagnosticSink sink;
    auto loaded = LoadProfileFromText("p.yaml", text, sink);
    EXPECT_TRUE(loaded);
    const ProfileSchema* schema = ProfileSchema::Embedded(sink);
    EXPECT_TRUE(schema && ValidateProfile(*loaded, *schema, sink));
    EXPECT_FALSE(BuildProfile(*loaded, sink));
    std::string rules;
    for (const Diagnostic& d : sink.diagnostics()) rules += d.rule + " ";
    return rules;
  };
  EXPECT_EQ(rules_of(Replace(barcelona, "version: v0.19.2", "version: v0.13.0")),
            "model.kueue-version ");
  EXPECT_EQ(rules_of(Replace(barcelona, "    install: preinstalled\n    version: v0.19.2",
                             "    install: managed\n    version: v0.19.2")),
            "model.kueue-install ");
  EXPECT_EQ(rules_of(Replace(barcelona,
                             "    levels: [topology.example.com/rack, kubernetes.io/hostname]\n",
                             "")),
            "model.scheduling-levels ");
  EXPECT_EQ(rules_of(Replace(barcelona, "    placement: preferred\n",
                             "    level: topology.example.com/row\n")),
            "model.scheduling-level ");
}

TEST(Scheduling, KueueV014GetsV1beta1) {
  EXPECT_EQ(KueueApiVersion("v0.14.3"), "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(KueueApiVersion("0.15.0"), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(KueueApiVersion("v0.19.2"), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(KueueApiVersion("v0.13.9"), std::nullopt);
  EXPECT_EQ(KueueApiVersion("latest"), std::nullopt);
  const Built b = Build(Replace(BarcelonaWithRack(true), "version: v0.19.2", "version: v0.14.3"));
  ASSERT_TRUE(b.profile) << Rules(b);
  for (const char* kind : {"Topology", "ResourceFlavor", "ClusterQueue"})
    EXPECT_EQ(Find(b.plan, kind, b.profile->cluster_name)->context["api_version"],
              "kueue.x-k8s.io/v1beta1")
        << kind;
}

// A profile without `scheduling` plans no Kueue object and its StatefulSet no queue: the bundles
// of barcelona-h100-cx7, oke-a100 and oke-a100-gpu4 stay byte-identical (ShippedBundle tests
// compare them with out/).
TEST(Scheduling, WithoutSchedulingNothingChanges) {
  for (const char* name : {"barcelona-h100-cx7", "oke-a100", "oke-a100-gpu4"}) {
    const Built b = Build(ReadProfile(name));
    ASSERT_TRUE(b.profile) << name;
    for (const PlannedObject& o : b.plan.objects) {
      EXPECT_EQ(o.api_version.rfind("kueue.x-k8s.io", 0), std::string::npos) << name << o.kind;
      if (o.kind == "StatefulSet") EXPECT_EQ(o.context["has_queue"], false) << name;
    }
  }
}

}  // namespace
}  // namespace hkim
