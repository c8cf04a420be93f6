// --cluster answers the OKE preconditions an export can show and the nightly health
// check's reach over the pool: oke-installed.json is one OKE cluster with an H100 pool
// (oke-h100.yaml installs the operators) and an A100 pool of three nodes in us-ashburn-1, where
// the Network Operator runs as a Helm release and the GPU Operator's ClusterPolicy came from its
// chart outside Argo CD.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_check/check_fixture.h"

namespace hkim {
namespace {

using cluster_check_test::Checked;
using cluster_check_test::FindItem;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kOkeH100[] = "profiles/oke-h100.yaml";
constexpr char kOkeA100[] = "profiles/oke-a100.yaml";

// oke-installed.json changed by `edit`, checked with `profile` (and `sets`).
Checked CheckEdited(const std::string& profile, const std::function<void(json& items)>& edit,
                    const std::vector<std::string>& sets = {}) {
  return cluster_check_test::CheckEdited(profile, "oke-installed.json", edit, sets);
}

Checked CheckInstalled(const std::string& profile, const std::vector<std::string>& sets = {}) {
  return CheckEdited(profile, [](json&) {}, sets);
}

TEST(OkePreconditions, AnOperatorInstalledByHelmOrOutsideArgoCdIsAnErrorAtItsInstallLine) {
  Checked c = CheckInstalled(kOkeH100);
  auto found = c.Of("cluster.operator-installed");
  ASSERT_EQ(found.size(), 2u) << c.All();
  std::map<std::string, std::string> by_pointer;
  for (const Diagnostic* d : found) {
    EXPECT_EQ(d->severity, Severity::kError);
    by_pointer[d->data_path] = d->message;
  }
  // The current release's Secret, not the superseded revision's.
  EXPECT_THAT(by_pointer["/operators/network_operator/install"],
              HasSubstr("Secret/nvidia-network-operator/sh.helm.release.v1.network-operator.v2"));
  EXPECT_THAT(by_pointer["/operators/network_operator/install"],
              ::testing::Not(HasSubstr("network-operator.v1")));
  EXPECT_THAT(by_pointer["/operators/network_operator/install"], HasSubstr("is the Helm release network-operator"));
  EXPECT_THAT(by_pointer["/operators/gpu_operator/install"],
              HasSubstr("ClusterPolicy/cluster-policy (oke-installed.json:"));
  EXPECT_THAT(by_pointer["/operators/gpu_operator/install"],
              HasSubstr("chart gpu-operator-v25.3.0 outside Argo CD"));
  // The pod carries the chart's labels too, but a controller made it: not named.
  EXPECT_EQ(c.All().find("gpu-feature-discovery-x1"), std::string::npos) << c.All();
  EXPECT_THAT(found[0]->fix, HasSubstr("install: preinstalled"));
}

TEST(OkePreconditions, ChartObjectsThisBundleSyncsAreItsOwn) {
  Checked c = CheckEdited(kOkeH100, [](json& items) {
    json& policy = FindItem(items, "ClusterPolicy", "cluster-policy");
    policy["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] =
        "oke-h100-gpu-operator:nvidia.com/ClusterPolicy:/cluster-policy";
    for (json& item : items)
      if (item["kind"] == "Secret") item["metadata"]["labels"]["status"] = "uninstalled";
  });
  EXPECT_TRUE(c.Of("cluster.operator-installed").empty()) << c.All();
}

TEST(OkePreconditions, AnotherApplicationsChartOrAnUnlabelledClusterPolicyIsAnInstall) {
  // Another Argo CD Application's install, named; an add-on's ClusterPolicy need not carry
  // Helm's labels: the operator's singleton CR synced by no Application of this bundle counts.
  Checked other = CheckEdited(kOkeH100, [](json& items) {
    (FindItem(items, "ClusterPolicy", "cluster-policy"))["metadata"]["labels"]["app.kubernetes.io/instance"] =
        "team-b-gpu";
  });
  auto found = other.Of("cluster.operator-installed");
  ASSERT_EQ(found.size(), 2u) << other.All();
  EXPECT_THAT(other.All(), HasSubstr("as app.kubernetes.io/instance team-b-gpu (a Helm release or "
                                     "an Argo CD Application of that name)"));
  Checked tracked = CheckEdited(kOkeH100, [](json& items) {
    (FindItem(items, "ClusterPolicy", "cluster-policy"))["metadata"]["annotations"]
                                                     ["argocd.argoproj.io/tracking-id"] =
        "team-b-gpu:nvidia.com/ClusterPolicy:/cluster-policy";
  });
  EXPECT_THAT(tracked.All(), HasSubstr("by Argo CD Application team-b-gpu,"));
  Checked addon = CheckEdited(kOkeH100, [](json& items) {
    (FindItem(items, "ClusterPolicy", "cluster-policy"))["metadata"].erase("labels");
  });
  EXPECT_THAT(addon.All(), HasSubstr("is the operator's ClusterPolicy, made outside Argo CD"));
}

TEST(OkePreconditions, WithoutSecretsTheHelmCheckIsNotedAsSkipped) {
  Checked c = CheckEdited(kOkeH100, [](json& items) {
    json kept = json::array();
    for (json& item : items)
      if (item["kind"] != "Secret" && item["kind"] != "ClusterPolicy") kept.push_back(item);
    items = kept;
  });
  EXPECT_TRUE(c.Of("cluster.operator-installed").empty()) << c.All();
  auto skipped = c.Of("cluster.not-exported");
  ASSERT_EQ(skipped.size(), 1u) << c.All();
  EXPECT_THAT(skipped[0]->message, HasSubstr("whether gpu-operator is installed already as a Helm release"));
  EXPECT_THAT(skipped[0]->message, HasSubstr("whether network-operator is installed already"));
  EXPECT_THAT(skipped[0]->fix, HasSubstr("kubectl get --raw '/api/v1/secrets?labelSelector=owner%3Dhelm'"));
}

// `kubectl get --raw /api/v1/secrets?...` answers a SecretList whose items carry no kind: an
// empty one says the cluster has no Helm release (a fresh cluster: checked, clean), and the
// releases it lists are read as Secrets.
TEST(OkePreconditions, AnEmptySecretListSaysThereIsNoHelmRelease) {
  Checked c = CheckEdited(kOkeH100, [](json& items) {
    json kept = json::array();
    for (json& item : items)
      if (item["kind"] != "Secret" && item["kind"] != "ClusterPolicy") kept.push_back(item);
    kept.push_back({{"kind", "SecretList"}, {"apiVersion", "v1"}, {"metadata", json::object()},
                    {"items", json::array()}});
    items = kept;
  });
  EXPECT_TRUE(c.Of("cluster.operator-installed").empty()) << c.All();
  for (const Diagnostic* note : c.Of("cluster.not-exported")) {
    EXPECT_THAT(note->message, ::testing::Not(HasSubstr("Secret"))) << c.All();
    EXPECT_THAT(note->message, ::testing::Not(HasSubstr("Helm release"))) << c.All();
  }
}

TEST(OkePreconditions, HelmReleasesInTheApisSecretListAreRead) {
  Checked c = CheckEdited(kOkeH100, [](json& items) {
    json kept = json::array(), secrets = json::array();
    for (json& item : items) {
      if (item["kind"] != "Secret") {
        kept.push_back(item);
        continue;
      }
      item.erase("kind");
      item.erase("apiVersion");
      secrets.push_back(item);
    }
    kept.push_back({{"kind", "SecretList"}, {"apiVersion", "v1"}, {"metadata", json::object()},
                    {"items", secrets}});
    items = kept;
  });
  EXPECT_EQ(c.Of("cluster.operator-installed").size(), 2u) << c.All();
  EXPECT_THAT(c.All(), HasSubstr("is the Helm release network-operator"));
}

TEST(OkePreconditions, A100NodesOutsidePhoenixAndOsakaAreAWarningAtTheShape) {
  Checked c = CheckInstalled(kOkeA100);
  auto found = c.Of("cluster.oci-region");
  ASSERT_EQ(found.size(), 1u) << c.All();  // the three nodes fold into one
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_EQ(found[0]->data_path, "/node_shape/name");
  EXPECT_THAT(found[0]->message, HasSubstr("Node/a100-1"));
  EXPECT_THAT(found[0]->message, HasSubstr("is in region us-ashburn-1"));
  EXPECT_THAT(found[0]->message, HasSubstr("unconfirmed"));
  EXPECT_THAT(found[0]->fix, HasSubstr("ask OCI to enable SR-IOV VFs"));
  // The H100 shape has VFs in every region: no oci-region precondition, no finding.
  EXPECT_TRUE(CheckInstalled(kOkeH100).Of("cluster.oci-region").empty());
}

TEST(OkePreconditions, ARegionWithA100VfsIsMetAndAMissingLabelIsANote) {
  for (const char* region : {"us-phoenix-1", "ap-osaka-1", "PHX", "kix"}) {
    Checked c = CheckEdited(kOkeA100, [&](json& items) {
      for (json& item : items)
        if (item["kind"] == "Node") item["metadata"]["labels"]["topology.kubernetes.io/region"] = region;
    });
    EXPECT_TRUE(c.Of("cluster.oci-region").empty()) << region << "\n" << c.All();
  }
  Checked unknown = CheckEdited(kOkeA100, [](json& items) {
    for (json& item : items)
      if (item["kind"] == "Node") item["metadata"]["labels"].erase("topology.kubernetes.io/region");
  });
  auto found = unknown.Of("cluster.oci-region");
  ASSERT_EQ(found.size(), 1u) << unknown.All();
  EXPECT_EQ(found[0]->severity, Severity::kNote);
  EXPECT_THAT(found[0]->message, HasSubstr("has no topology.kubernetes.io/region label"));
  EXPECT_THAT(found[0]->fix, HasSubstr("-L topology.kubernetes.io/region"));
}

}  // namespace
}  // namespace hkim
