// --cluster compares releases (cluster_check/versions.h): the barcelona.json cluster with a GPU
// Operator CSV, the DOCA driver of its NicClusterPolicy and its OpenShift release varied, and an
// OKE cluster whose chart objects carry helm.sh/chart. Each finding is at the profile line.

#include "cluster_check/versions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster_check/check_fixture.h"

namespace hkim {
namespace {

using cluster_check_test::Checked;
using cluster_check_test::kFixtures;
using cluster_check_test::kSource;
using nlohmann::json;
using ::testing::HasSubstr;

// `profile` with `sets` against barcelona.json plus `extra` objects (and its ClusterVersion
// replaced when `openshift` is given).
Checked CheckWith(const std::string& profile, const std::vector<std::string>& sets,
                  const std::vector<json>& extra, const std::string& openshift = "") {
  Checked c;
  json list = json::parse(test_files::ReadFile(kFixtures / "barcelona.json"));
  for (json& item : list["items"]) {
    if (item["kind"] == "ClusterVersion" && !openshift.empty())
      item["status"]["desired"]["version"] = openshift;
  }
  for (const json& object : extra) list["items"].push_back(object);
  LayerInputs inputs;
  inputs.profile_path = (kSource / profile).string();
  inputs.set_values = sets;
  DiagnosticSink own;
  c.profile = CheckLayeredProfile(inputs, own);
  EXPECT_TRUE(c.profile && c.profile->profile) << profile;
  if (!c.profile || !c.profile->profile) return c;
  auto cluster = cluster_check::LoadClusterExport({{"export.json", list.dump(1)}}, c.sink);
  EXPECT_NE(cluster, nullptr);
  if (!cluster) return c;
  cluster_check::Findings findings(c.profile->layered.merged, c.sink);
  cluster_check::CheckVersions(*c.profile->profile, *c.profile->plan, *cluster, findings);
  findings.Flush();
  return c;
}

json Csv(const std::string& name, const std::string& phase = "Succeeded") {
  return {{"apiVersion", "operators.coreos.com/v1alpha1"},
          {"kind", "ClusterServiceVersion"},
          {"metadata", {{"name", name}, {"namespace", "nvidia-gpu-operator"}}},
          {"status", {{"phase", phase}}}};
}

json NicClusterPolicy(const std::string& doca) {
  return {{"apiVersion", "mellanox.com/v1alpha1"},
          {"kind", "NicClusterPolicy"},
          {"metadata", {{"name", "nic-cluster-policy"}}},
          {"spec", {{"ofedDriver", {{"image", "doca-driver"}, {"version", doca}}}}}};
}

using cluster_check_test::kBarcelona;

TEST(ClusterVersions, TheReleaseTheProfilePinsRunningIsClean) {
  Checked c = CheckWith(kBarcelona, {"operators.gpu_operator.version=v25.10.1"},
                        {Csv("gpu-operator-certified.v25.10.1")});
  EXPECT_TRUE(c.Of("cluster.operator-version").empty()) << c.All();
  EXPECT_TRUE(c.Of("cluster.known-bad").empty()) << c.All();
}

TEST(ClusterVersions, AnotherRunningReleaseIsNamedAtTheVersionLine) {
  // Left to the cluster, and nothing Barcelona renders depends on the version: a warning that
  // the profile no longer says what runs.
  Checked c = CheckWith(kBarcelona,
                        {"operators.gpu_operator.install=preinstalled",
                         "operators.gpu_operator.version=v25.10.1"},
                        {Csv("gpu-operator-certified.v25.3.4"),
                         Csv("gpu-operator-certified.v25.3.2", "Replacing")});
  auto found = c.Of("cluster.operator-version");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_THAT(found[0]->message, HasSubstr("nothing this bundle renders depends on the version"));
  EXPECT_EQ(found[0]->data_path, "/operators/gpu_operator/version");
  EXPECT_GT(found[0]->location.line, 0);
  EXPECT_THAT(found[0]->message,
              HasSubstr("ClusterServiceVersion/nvidia-gpu-operator/gpu-operator-certified.v25.3.4"));
  EXPECT_THAT(found[0]->message, HasSubstr("runs GPU Operator v25.3.4, the profile pins v25.10.1"));
  EXPECT_THAT(found[0]->fix, HasSubstr("operators.gpu_operator.version: v25.3.4"));
  // Past its support (life-cycle-policy.rst): a note where the cluster's admins install it.
  ASSERT_EQ(c.Of("cluster.end-of-support").size(), 1u) << c.All();
  EXPECT_EQ(c.Of("cluster.end-of-support")[0]->severity, Severity::kNote);
  // Installed by the bundle on OpenShift while a CSV runs: collisions.cc's
  // cluster.operator-installed says so, not this check a second time.
  Checked managed = CheckWith(kBarcelona,
                              {"operators.gpu_operator.install=managed",
                               "operators.gpu_operator.version=v25.10.1"},
                              {Csv("gpu-operator-certified.v25.3.4")});
  EXPECT_TRUE(managed.Of("cluster.operator-version").empty()) << managed.All();
}

TEST(ClusterVersions, AKnownBadCombinationIsAnErrorNamingItsReference) {
  const std::string doca = "doca3.3.0-26.01-1.0.0.0-0";
  Checked bad = CheckWith(kBarcelona, {}, {NicClusterPolicy(doca)}, "4.21.9");
  auto found = bad.Of("cluster.known-bad");
  ASSERT_EQ(found.size(), 1u) << bad.All();
  EXPECT_EQ(found[0]->data_path, "/operators/openshift_version");
  EXPECT_THAT(found[0]->message, HasSubstr("DOCA driver " + doca + " on OpenShift 4.21.9"));
  EXPECT_THAT(found[0]->fix, HasSubstr("Mellanox/network-operator issue #2471"));
  // The same driver on another z-stream, or another driver on 4.21.9: not that combination.
  EXPECT_TRUE(CheckWith(kBarcelona, {}, {NicClusterPolicy(doca)}, "4.21.8")
                  .Of("cluster.known-bad")
                  .empty());
  EXPECT_TRUE(CheckWith(kBarcelona, {}, {NicClusterPolicy("doca3.4.1-26.04-1.1.0.0-1")}, "4.21.9")
                  .Of("cluster.known-bad")
                  .empty());
}

TEST(ClusterVersions, AReleaseThatDoesNotDeclareTheClustersOpenShiftIsAnError) {
  // v25.10.1 declares 4.14-4.20 (and so the profile's 4.20); the cluster was upgraded to 4.21.
  Checked c = CheckWith(kBarcelona, {"operators.gpu_operator.version=v25.10.1"}, {}, "4.21.2");
  auto found = c.Of("cluster.operator-version");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->data_path, "/operators/gpu_operator/version");
  EXPECT_THAT(found[0]->message, HasSubstr("declares OpenShift v4.14-v4.20"));
  EXPECT_THAT(found[0]->message, HasSubstr("the cluster runs 4.21.2"));
}

TEST(ClusterVersions, ARedHatOperatorOfAnotherMinorThanTheClusterIsAWarning) {
  // barcelona.json runs OpenShift 4.20.8.
  json old = Csv("sriov-network-operator.v4.18.0-202505060638");
  old["metadata"]["namespace"] = "openshift-sriov-network-operator";
  Checked c = CheckWith(kBarcelona, {}, {old});
  auto found = c.Of("cluster.operator-version");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_EQ(found[0]->data_path, "/operators/sriov_network_operator/install");
  EXPECT_THAT(found[0]->message, HasSubstr("runs OpenShift 4.20.8 but the SR-IOV Network "
                                           "Operator is at sriov-network-operator.v4.18.0-"));
  EXPECT_THAT(found[0]->message, HasSubstr("sriov-network-operator.v4.20.0.*"));
  // The minor it was built for, with or without the v Red Hat's NFD CSVs leave out.
  EXPECT_TRUE(CheckWith(kBarcelona, {},
                        {Csv("sriov-network-operator.v4.20.0-202511111518"),
                         Csv("nfd.4.20.0-202511101230")})
                  .Of("cluster.operator-version")
                  .empty());
}

TEST(ClusterVersions, OkeChartReleasesAreReadFromTheirHelmChartLabel) {
  const json deployment = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata",
       {{"name", "gpu-operator"},
        {"namespace", "gpu-operator"},
        {"labels", {{"helm.sh/chart", "gpu-operator-v25.10.0"}}}}}};
  const json network = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata",
       {{"name", "network-operator"},
        {"namespace", "network-operator"},
        {"labels", {{"helm.sh/chart", "network-operator-25.10.0"}}}}}};
  Checked c = CheckWith("profiles/oke-h100.yaml", {}, {deployment, network});
  auto found = c.Of("cluster.operator-version");
  ASSERT_EQ(found.size(), 1u) << c.All();  // the Network Operator runs the pinned 25.10.0
  EXPECT_EQ(found[0]->data_path, "/operators/gpu_operator/version");
  // The bundle installs the chart: a sync moves the release, a warning.
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_THAT(found[0]->message, HasSubstr("runs GPU Operator v25.10.0, the profile pins v25.10.1"));
}

// A chart the bundle installs on OKE, running newer than the profile pins,
// is refused as an OLM downgrade is; an older one is the upgrade warning above.
TEST(ClusterVersions, AnOkeChartNewerThanThePinIsARefusedDowngrade) {
  auto deployment = [](const std::string& chart) {
    return json{{"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata",
                 {{"name", "gpu-operator"},
                  {"namespace", "gpu-operator"},
                  {"labels", {{"helm.sh/chart", chart}}}}}};
  };
  Checked c = CheckWith("profiles/oke-h100.yaml", {}, {deployment("gpu-operator-v26.3.0")});
  auto found = c.Of("cluster.operator-downgrade");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->severity, Severity::kError);
  EXPECT_EQ(found[0]->data_path, "/operators/gpu_operator/version");
  EXPECT_THAT(found[0]->message, HasSubstr("runs GPU Operator v26.3.0, newer than the profile's v25.10.1"));
  EXPECT_THAT(found[0]->fix, HasSubstr("operators.gpu_operator.version: v26.3.0"));
  EXPECT_TRUE(c.Of("cluster.operator-version").empty()) << c.All();  // not reported twice
  // Left to the cluster (shared, preinstalled) the bundle applies no chart: nothing to refuse.
  EXPECT_TRUE(CheckWith("profiles/oke-h100.yaml", {"operators.gpu_operator.install=preinstalled"},
                        {deployment("gpu-operator-v26.3.0")})
                  .Of("cluster.operator-downgrade")
                  .empty());
  EXPECT_TRUE(CheckWith("profiles/oke-h100.yaml", {}, {deployment("gpu-operator-v25.10.0")})
                  .Of("cluster.operator-downgrade")
                  .empty());
}


// Every chart release with a release line is compared on OKE, Kueue's too (its chart labels its
// objects kueue-<version>); the fix the finding offers makes the check clean.
TEST(ClusterVersions, AnOkeKueueReleaseOtherThanThePinIsNamedAndItsFixIsClean) {
  const json controller = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata",
       {{"name", "kueue-controller-manager"},
        {"namespace", "kueue-system"},
        {"labels", {{"helm.sh/chart", "kueue-0.18.1"}}}}}};
  Checked c = CheckWith("profiles/oke-h100.yaml", {}, {controller});
  auto found = c.Of("cluster.operator-version");
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found[0]->data_path, "/operators/kueue/version");
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_THAT(found[0]->message, HasSubstr("runs Kueue v0.18.1, the profile pins v0.19.2"));
  EXPECT_THAT(found[0]->fix, HasSubstr("operators.kueue.version: v0.18.1"));
  Checked fixed =
      CheckWith("profiles/oke-h100.yaml", {"operators.kueue.version=v0.18.1"}, {controller});
  EXPECT_TRUE(fixed.Of("cluster.operator-version").empty()) << fixed.All();
}

}  // namespace
}  // namespace hkim
