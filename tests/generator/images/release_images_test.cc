// Every release of the catalog (model/operator_versions.h) through `hkimgen images` and
// `-o imageset`: the list names each image the chart deploys at that tag (its values.yaml, as
// catalog/releases.json records it, checked against the bundle's relatedImages in
// release_catalog_test.cc) and each NicClusterPolicy component; a version outside the catalog
// fails with the known list; and no two releases render the same bundle.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "model/operator_versions.h"
#include "test_files.h"

namespace {

namespace fs = std::filesystem;
using hkim::test_files::CommandRun;
using hkim::test_files::BuildFrom;
using hkim::test_files::ReadProfile;
using hkim::test_files::RunShell;

const fs::path kSource = HKIM_SOURCE_DIR;

CommandRun Hkimgen(const std::string& args) {
  const fs::path scratch =
      fs::temp_directory_path() / ("hkim-release-images-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  CommandRun run = RunShell("'" HKIM_BINARY "' " + args, kSource, scratch);
  fs::remove_all(scratch);
  return run;
}

std::set<std::string> Listed(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.insert(line);
  return out;
}

std::set<std::string> ImageSet(const std::string& yaml) {
  std::set<std::string> out;
  const YAML::Node set = YAML::Load(yaml);
  for (const YAML::Node& image : set["mirror"]["additionalImages"])
    out.insert(image["name"].as<std::string>());
  return out;
}

// The test's own reading of "what the chart deploys" for a bundle with driver.enabled false
// (the OKE profiles): on by default, nothing else needed.
std::set<std::string> ChartPulls(const std::vector<hkim::ChartImage>& images) {
  std::set<std::string> out;
  for (const hkim::ChartImage& c : images) {
    if (!c.enabled || !c.needs.empty() || c.repository.empty()) continue;
    out.insert(c.image.empty() ? c.repository + ":" + c.version
                               : c.repository + "/" + c.image + ":" + c.version);
  }
  return out;
}

TEST(ReleaseImages, EveryGpuOperatorReleaseListsItsChartsImagesInImagesAndImageSet) {
  for (const hkim::GpuOperatorRelease& r : hkim::GpuOperatorReleases()) {
    SCOPED_TRACE(r.version);
    const std::string args =
        "images profiles/oke-h100.yaml --set operators.gpu_operator.version=" + r.version;
    const CommandRun list = Hkimgen(args);
    ASSERT_EQ(list.status, 0) << list.err;
    const CommandRun imageset = Hkimgen(args + " -o imageset");
    ASSERT_EQ(imageset.status, 0) << imageset.err;
    const std::set<std::string> listed = Listed(list.out);
    const std::set<std::string> mirrored = ImageSet(imageset.out);
    const std::set<std::string> want = ChartPulls(r.images);
    ASSERT_GE(want.size(), 6u);
    for (const std::string& image : want) {
      EXPECT_EQ(listed.count(image), 1u) << image;
      EXPECT_EQ(mirrored.count(image), 1u) << image;
    }
    // Nothing of another release: every nvcr.io/nvidia GPU Operator image is this release's.
    for (const std::string& image : listed) {
      if (image.rfind("nvcr.io/nvidia/gpu-operator:", 0) == 0)
        EXPECT_EQ(image, "nvcr.io/nvidia/gpu-operator:" + r.version);
    }
  }
}

TEST(ReleaseImages, EveryNetworkOperatorReleaseListsItsOperatorAndPolicyImages) {
  for (const hkim::NetworkOperatorRelease& r : hkim::NetworkOperatorReleases()) {
    SCOPED_TRACE(r.version);
    const std::string args =
        "images profiles/oke-h100.yaml --set operators.network_operator.version=" + r.version;
    const CommandRun list = Hkimgen(args);
    ASSERT_EQ(list.status, 0) << list.err;
    const CommandRun imageset = Hkimgen(args + " -o imageset");
    ASSERT_EQ(imageset.status, 0) << imageset.err;
    const std::set<std::string> listed = Listed(list.out);
    const std::set<std::string> mirrored = ImageSet(imageset.out);
    std::set<std::string> want = ChartPulls(r.images);
    // The NicClusterPolicy (device plugin, nv-ipam, Multus, CNI plugins) and the CNI DaemonSets.
    for (const hkim::ComponentImage* c : {&r.sriov_device_plugin, &r.nv_ipam, &r.multus,
                                          &r.cni_plugins, &r.sriov_cni, &r.rdma_cni})
      want.insert(c->repository + "/" + c->image + ":" + c->version);
    for (const std::string& image : want) {
      EXPECT_EQ(listed.count(image), 1u) << image;
      EXPECT_EQ(mirrored.count(image), 1u) << image;
    }
  }
}

// Under images.mirror the chart values name every image themselves: the same images as without
// the mirror, each under it, for every release (a release whose values the bundle mirrored
// only in part would list fewer, or leave one outside).
TEST(ReleaseImages, EveryGpuOperatorReleaseUnderAMirrorListsTheSameImagesThere) {
  const std::string mirror = "mirror.example.com:5000/gpu";
  const fs::path layer =
      fs::temp_directory_path() / ("hkim-release-mirror-" + std::to_string(getpid()) + ".yaml");
  std::ofstream(layer) << "images:\n  mirror: " << mirror
                       << "\n  chart_mirror: https://charts.example.com/gpu\n";
  for (const hkim::GpuOperatorRelease& r : hkim::GpuOperatorReleases()) {
    SCOPED_TRACE(r.version);
    const std::string set = " --set operators.gpu_operator.version=" + r.version;
    const CommandRun plain = Hkimgen("images profiles/oke-h100.yaml" + set);
    const CommandRun mirrored =
        Hkimgen("images profiles/oke-h100.yaml -f '" + layer.string() + "'" + set);
    ASSERT_EQ(mirrored.status, 0) << mirrored.err;
    std::set<std::string> want;
    for (const std::string& image : Listed(plain.out)) {
      const size_t slash = image.find('/');
      const std::string host = image.substr(0, slash);
      // docker.io images keep their path under the mirror (oc-mirror's layout).
      want.insert(mirror + "/" + (host.find('.') == std::string::npos && host.find(':') ==
                                          std::string::npos
                                      ? image
                                      : image.substr(slash + 1)));
    }
    EXPECT_EQ(Listed(mirrored.out), want);
  }
  fs::remove(layer);
}

TEST(ReleaseImages, AVersionOutsideTheCatalogFailsWithTheKnownList) {
  const CommandRun run =
      Hkimgen("images profiles/oke-h100.yaml --set operators.gpu_operator.version=v99.1.0");
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.err.find("[lint.operator-release]"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(hkim::KnownGpuOperatorVersions()), std::string::npos) << run.err;
}

// The whole rendered stream of a profile with one operator's version set.
std::string Rendered(const std::string& profile, const std::string& set) {
  const CommandRun run = Hkimgen("render profiles/" + profile + ".yaml --set " + set);
  EXPECT_EQ(run.status, 0) << set << "\n" << run.err;
  return run.out;
}

TEST(ReleaseImages, TwoReleasesNeverRenderTheSameBundle) {
  const hkim::Profile barcelona = BuildFrom(ReadProfile("barcelona-h100-cx7"));
  ASSERT_TRUE(barcelona.operators);
  const std::string openshift = barcelona.operators->openshift_version;
  for (const char* profile : {"oke-h100", "barcelona-h100-cx7"}) {
    SCOPED_TRACE(profile);
    std::map<std::string, std::string> seen;  // bundle -> version
    for (const hkim::GpuOperatorRelease& r : hkim::GpuOperatorReleases()) {
      // Barcelona takes the releases that declare its OpenShift minor.
      if (std::string(profile) == "barcelona-h100-cx7" &&
          !hkim::OpenShiftInRange(openshift, r.openshift).value_or(false))
        continue;
      const std::string bundle =
          Rendered(profile, "operators.gpu_operator.version=" + r.version +
                                " --set operators.gpu_operator.install=managed");
      auto [it, fresh] = seen.emplace(bundle, r.version);
      EXPECT_TRUE(fresh) << r.version << " renders what " << it->second << " does";
    }
    EXPECT_GE(seen.size(), 5u);
  }
  std::set<std::string> network;
  for (const hkim::NetworkOperatorRelease& r : hkim::NetworkOperatorReleases())
    EXPECT_TRUE(
        network.insert(Rendered("oke-h100", "operators.network_operator.version=" + r.version))
            .second)
        << r.version;
}

}  // namespace
