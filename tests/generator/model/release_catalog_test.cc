// The release catalog (catalog/releases.json, model/operator_versions.h): it parses into complete
// releases, each with its source; the lines users run are there; the chart images read from
// values.yaml agree with the bundle's own image list (the CSV's relatedImages) read from the same
// tag; and the hand-kept rows name their references.
#include "model/operator_versions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

namespace {

using hkim::ChartImage;
using hkim::GpuOperatorRelease;
using hkim::NetworkOperatorRelease;

std::string Name(const ChartImage& c) {
  return c.image.empty() ? c.repository : c.repository + "/" + c.image;
}

TEST(ReleaseCatalog, EveryReleaseIsCompleteAndNamesItsSource) {
  ASSERT_GE(hkim::GpuOperatorReleases().size(), 10u);
  ASSERT_GE(hkim::NetworkOperatorReleases().size(), 8u);
  std::set<std::string> versions;
  for (const GpuOperatorRelease& r : hkim::GpuOperatorReleases()) {
    SCOPED_TRACE(r.version);
    EXPECT_TRUE(hkim::ParseGpuOperatorVersion(r.version)) << "a vYY.M.P tag";
    EXPECT_TRUE(versions.insert(r.version).second) << "listed once";
    EXPECT_NE(r.source.find("NVIDIA/gpu-operator " + r.version + " ("), std::string::npos);
    EXPECT_EQ(r.date.size(), 10u);
    EXPECT_EQ(r.csv, "gpu-operator-certified." + r.version);
    EXPECT_EQ(r.chart_version, r.version);
    EXPECT_TRUE(hkim::OpenShiftInRange("4.17", r.openshift).has_value()) << r.openshift;
    EXPECT_FALSE(r.driver.empty());
    EXPECT_FALSE(r.crds.empty());
    std::set<std::string> components;
    for (const ChartImage& c : r.images) components.insert(c.component);
    for (const char* always : {"operator", "validator", "toolkit", "devicePlugin",
                               "dcgmExporter", "gfd", "migManager", "node-feature-discovery"})
      EXPECT_EQ(components.count(always), 1u) << always;
  }
  for (const NetworkOperatorRelease& r : hkim::NetworkOperatorReleases()) {
    SCOPED_TRACE(r.version);
    EXPECT_EQ("v" + r.chart_version, r.version) << "the chart a tag publishes";
    EXPECT_NE(r.source.find("Mellanox/network-operator " + r.version + " ("), std::string::npos);
    for (const hkim::ComponentImage* c :
         {&r.sriov_device_plugin, &r.nv_ipam, &r.multus, &r.cni_plugins, &r.sriov_cni,
          &r.rdma_cni, &r.doca_driver}) {
      EXPECT_FALSE(c->repository.empty() || c->image.empty() || c->version.empty());
    }
    ASSERT_FALSE(r.images.empty());
    EXPECT_EQ(r.images[0].component, "operator");
    EXPECT_EQ(r.images[0].version, r.version);
  }
}

TEST(ReleaseCatalog, CoversTheLinesUsersRun) {
  for (const char* v : {"v25.10.0", "v25.10.1", "v26.3.0", "v26.3.3", "v26.7.0"})
    EXPECT_TRUE(hkim::FindGpuOperatorRelease(v)) << v;
  for (const char* v : {"v25.10.0", "v26.1.0", "v26.4.1"})
    EXPECT_TRUE(hkim::FindNetworkOperatorRelease(v)) << v;
  // Not released (only betas are tagged), so not in the catalog.
  EXPECT_FALSE(hkim::FindNetworkOperatorRelease("v26.7.0"));
  EXPECT_FALSE(hkim::FindGpuOperatorRelease("v99.1.0"));
  // OpenShift 4.18 to 4.21 each have a GPU Operator release that declares them.
  for (const char* openshift : {"4.18", "4.19", "4.20", "4.21"}) {
    bool found = false;
    for (const GpuOperatorRelease& r : hkim::GpuOperatorReleases())
      found |= hkim::OpenShiftInRange(openshift, r.openshift).value_or(false);
    EXPECT_TRUE(found) << openshift;
  }
}

// Two upstream files of one tag, read separately: every image the bundle's CSV relates
// (relatedImages) is one the chart's values.yaml names, so the catalog's image lists cannot
// silently miss an operand. The operator's own CSV image is a main-latest placeholder upstream
// and is left out by the script.
TEST(ReleaseCatalog, ChartImagesCoverTheBundlesRelatedImages) {
  for (const GpuOperatorRelease& r : hkim::GpuOperatorReleases()) {
    SCOPED_TRACE(r.version);
    std::set<std::string> named;
    for (const ChartImage& c : r.images) named.insert(Name(c));
    ASSERT_FALSE(r.bundle_images.empty());
    for (const std::string& related : r.bundle_images)
      EXPECT_EQ(named.count(related), 1u) << related << " (CSV relatedImages)";
  }
}

TEST(ReleaseCatalog, SupportStatusAndKnownBadRowsNameTheirReferences) {
  std::string source;
  EXPECT_EQ(hkim::GpuOperatorSupport("v25.10.1", &source), "end-of-support");
  EXPECT_NE(source.find("life-cycle-policy.rst"), std::string::npos);
  EXPECT_EQ(hkim::GpuOperatorSupport("v26.3.2"), "deprecated");
  EXPECT_EQ(hkim::GpuOperatorSupport("v26.7.0"), "supported");
  EXPECT_EQ(hkim::GpuOperatorSupport("v1.0.0"), "");
  ASSERT_FALSE(hkim::KnownBadCombinations().empty());
  for (const hkim::KnownBadCombination& bad : hkim::KnownBadCombinations()) {
    EXPECT_FALSE(bad.reference.empty());
    EXPECT_FALSE(bad.what.empty());
    EXPECT_FALSE(bad.doca_driver.empty() && bad.openshift.empty() && bad.version.empty());
  }
}

TEST(ReleaseCatalog, RedHatOperatorsHaveACsvPerOpenShiftMinor) {
  for (const char* minor : {"4.18", "4.19", "4.20", "4.21"}) {
    for (const char* key : {"sriov_network_operator", "nfd"}) {
      const auto csv = hkim::OpenShiftOperatorCsvFor(key, minor);
      ASSERT_TRUE(csv) << key << " " << minor;
      EXPECT_NE(csv->csv.find(std::string(".v") + minor + ".0"), std::string::npos) << csv->csv;
      EXPECT_NE(csv->source.find(std::string("release-") + minor), std::string::npos);
    }
  }
  EXPECT_FALSE(hkim::OpenShiftOperatorCsvFor("nfd", "4.9"));
}

TEST(ReleaseCatalog, OpenShiftRangesCompareMinors) {
  EXPECT_EQ(hkim::OpenShiftInRange("4.20", "v4.14-v4.20"), true);
  EXPECT_EQ(hkim::OpenShiftInRange("4.20.3", "v4.14-v4.20"), true);
  EXPECT_EQ(hkim::OpenShiftInRange("4.21", "v4.14-v4.20"), false);
  EXPECT_EQ(hkim::OpenShiftInRange("4.9", "v4.14-v4.20"), false);
  EXPECT_FALSE(hkim::OpenShiftInRange("4.20", "v4.14"));
}

// The NCCL releases' variable names (lint.nccl-env-name): the last release of each minor from
// 2.18 on, each read from its own tag.
TEST(ReleaseCatalog, NcclNamesPerReleaseFoldIntoOneSortedList) {
  ASSERT_GE(hkim::NcclReleases().size(), 13u);
  EXPECT_EQ(hkim::NcclReleases().front().version, "v2.18.6-1");
  std::set<std::string> all;
  for (const hkim::NcclRelease& r : hkim::NcclReleases()) {
    SCOPED_TRACE(r.version);
    EXPECT_NE(r.source.find("NVIDIA/nccl " + r.version + " ("), std::string::npos);
    EXPECT_TRUE(std::is_sorted(r.names.begin(), r.names.end()));
    // (NCCL_DEBUG is not among them in 2.28 and 2.29: those releases read it in a way the
    // extraction does not see, and the union keeps it.)
    for (const char* always : {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME"})
      EXPECT_TRUE(std::binary_search(r.names.begin(), r.names.end(), always)) << always;
    all.insert(r.names.begin(), r.names.end());
  }
  EXPECT_EQ(std::vector<std::string>(all.begin(), all.end()), hkim::NcclEnvNames());
  // Read by newer releases only (a name the union keeps).
  const auto& oldest = hkim::NcclReleases().front().names;
  EXPECT_LT(oldest.size(), hkim::NcclEnvNames().size());
}



// The build lays the catalog out per release (model/tools/catalog_sections.cc) and a run parses
// only what it asks for: every release, table and name of catalog/releases.json must read back,
// in its order, whichever is asked first.
TEST(ReleaseCatalog, LaidOutAsTheFileSays) {
  std::ifstream in(std::filesystem::path(HKIM_SOURCE_DIR) / "catalog/releases.json");
  ASSERT_TRUE(in) << "catalog/releases.json";
  const nlohmann::json file = nlohmann::json::parse(in);
  // A single release first (the render's way in), then the lists.
  const std::string last_gpu = file["gpu_operator"].back()["version"].get<std::string>();
  const auto one = hkim::FindGpuOperatorRelease(last_gpu);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->version, last_gpu);
  EXPECT_EQ(one->images.size(), file["gpu_operator"].back()["images"].size());
  EXPECT_FALSE(hkim::FindGpuOperatorRelease("v0.0.0"));

  ASSERT_EQ(hkim::GpuOperatorReleases().size(), file["gpu_operator"].size());
  for (size_t i = 0; i < file["gpu_operator"].size(); ++i) {
    const nlohmann::json& want = file["gpu_operator"][i];
    const GpuOperatorRelease& got = hkim::GpuOperatorReleases()[i];
    EXPECT_EQ(got.version, want["version"].get<std::string>());
    EXPECT_EQ(got.driver, want.value("driver", ""));
    EXPECT_EQ(got.crds.size(), want.value("crds", nlohmann::json::object()).size());
  }
  ASSERT_EQ(hkim::NetworkOperatorReleases().size(), file["network_operator"].size());
  for (size_t i = 0; i < file["network_operator"].size(); ++i) {
    const nlohmann::json& want = file["network_operator"][i];
    const NetworkOperatorRelease& got = hkim::NetworkOperatorReleases()[i];
    EXPECT_EQ(got.version, want["version"].get<std::string>());
    EXPECT_EQ(hkim::FindNetworkOperatorRelease(got.version)->chart_version, got.chart_version);
  }
  std::set<std::string> names;
  for (const nlohmann::json& release : file["nccl"]) {
    for (const nlohmann::json& name : release["names"]) names.insert(name.get<std::string>());
  }
  EXPECT_EQ(hkim::NcclEnvNames(), std::vector<std::string>(names.begin(), names.end()));
  EXPECT_EQ(hkim::NcclReleases().size(), file["nccl"].size());
  EXPECT_EQ(hkim::KnownBadCombinations().size(), file.value("known_bad", nlohmann::json::array()).size());
  std::string versions;
  for (const nlohmann::json& release : file["gpu_operator"]) {
    versions += (versions.empty() ? "" : ", ") + release["version"].get<std::string>();
  }
  EXPECT_EQ(hkim::KnownGpuOperatorVersions(), versions);
}

}  // namespace
