// The images stage (images/images.h) and `hkimgen images`: every image reference a rendered
// bundle pulls, checked against the shipped bundles parsed here on their own, and the oc-mirror
// ImageSetConfiguration it writes.
#include "images/images.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>

#include "images/imageset.h"
#include "pipeline/pipeline.h"
#include "test_files.h"
#include "upstream_validator.h"

namespace {

namespace fs = std::filesystem;
using hkim::BundleImages;
using hkim::DiagnosticSink;
using hkim::test_files::CommandRun;
using hkim::test_files::RunShell;
using hkim::test_files::ShippedProfiles;

const fs::path kSource = HKIM_SOURCE_DIR;

CommandRun Hkimgen(const std::string& args) {
  const fs::path scratch = fs::temp_directory_path() / ("hkim-images-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  CommandRun run = RunShell("'" HKIM_BINARY "' " + args, kSource, scratch);
  fs::remove_all(scratch);
  return run;
}

// The test's own reading of "an image field", on yaml-cpp nodes: `image: x` (with a sibling
// `repository`, and `version`, they make one reference), `repository` + `tag`.
// Every `repository` value of a document: image repositories, chart values included.
void CollectRepositories(const YAML::Node& node, std::set<std::string>& out) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) CollectRepositories(item, out);
    return;
  }
  if (!node.IsMap()) return;
  for (const auto& entry : node) {
    if (entry.first.as<std::string>() == "repository" && entry.second.IsScalar()) {
      out.insert(entry.second.as<std::string>());
    }
    CollectRepositories(entry.second, out);
  }
}

void CollectImageFields(const YAML::Node& node, std::set<std::string>& out) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) CollectImageFields(item, out);
    return;
  }
  if (!node.IsMap()) return;
  auto scalar = [&node](const char* key) {
    return node[key] && node[key].IsScalar() ? node[key].as<std::string>() : std::string();
  };
  if (!scalar("image").empty()) {
    std::string ref = scalar("image");
    if (!scalar("repository").empty()) ref = scalar("repository") + "/" + ref;
    // Charts name the tag `version`, or `tag` (the Network Operator's own image).
    const std::string version = scalar("version").empty() ? scalar("tag") : scalar("version");
    if (!scalar("repository").empty() && !version.empty()) ref += ":" + version;
    out.insert(ref);
  } else if (!scalar("repository").empty() && !scalar("tag").empty()) {
    out.insert(scalar("repository") + ":" + scalar("tag"));
  }
  for (const auto& entry : node) CollectImageFields(entry.second, out);
}

// What a chart Application pulls that its values do not name: the test's own copy of the
// recorded charts' values.yaml defaults (gpu-operator v25.10.1, network-operator 25.10.0,
// volcano 1.15.1, kueue 0.19.2; plan/operators/chart_images.cc cites the files), where the values leave them.
void CollectChartDefaults(const YAML::Node& doc, std::set<std::string>& out) {
  if (!doc["kind"] || doc["kind"].as<std::string>() != "Application" ||
      !doc["spec"]["source"]["chart"]) {
    return;
  }
  const YAML::Node source = doc["spec"]["source"];
  const std::string chart = source["chart"].as<std::string>();
  const std::string version = source["targetRevision"].as<std::string>();
  const YAML::Node values = source["helm"]["valuesObject"];
  const bool own_repository = values && values["operator"] && values["operator"]["repository"];
  if (chart == "gpu-operator" && version == "v25.10.1" && !own_repository) {
    out.insert({"nvcr.io/nvidia/gpu-operator:v25.10.1", "nvcr.io/nvidia/cuda:13.0.1-base-ubi9",
                "nvcr.io/nvidia/k8s/container-toolkit:v1.18.1",
                "nvcr.io/nvidia/k8s-device-plugin:v0.18.1",
                "nvcr.io/nvidia/k8s/dcgm-exporter:4.4.2-4.7.0-distroless",
                "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.13.1",
                "registry.k8s.io/nfd/node-feature-discovery:v0.18.2"});
  } else if (chart == "network-operator" && version == "25.10.0" && !own_repository) {
    out.insert("nvcr.io/nvidia/cloud-native/network-operator:v25.10.0");
  } else if (chart == "volcano" && version == "1.15.1") {
    const std::string registry = values && values["basic"] && values["basic"]["image_registry"]
                                     ? values["basic"]["image_registry"].as<std::string>()
                                     : "docker.io";
    for (const char* name : {"vc-controller-manager", "vc-scheduler", "vc-webhook-manager"})
      out.insert(registry + "/volcanosh/" + name + ":v1.15.1");
  } else if (chart == "kueue" && version == "0.19.2") {
    // kubernetes-sigs/kueue v0.19.2 charts/kueue: controllerManager.manager.image at the release.
    const YAML::Node image = values && values["controllerManager"]
                                 ? values["controllerManager"]["manager"]["image"]
                                 : YAML::Node();
    const std::string repository = image && image["repository"]
                                       ? image["repository"].as<std::string>()
                                       : "registry.k8s.io/kueue/kueue";
    out.insert(repository + ":v0.19.2");
  }
}

std::vector<YAML::Node> BundleDocuments(const fs::path& dir) {
  std::vector<YAML::Node> docs;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      docs.push_back(YAML::LoadFile(entry.path().string()));
    }
  }
  return docs;
}

std::vector<std::string> Lines(const std::string& text, bool comments) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if ((line[0] == '#') == comments) lines.push_back(line);
  }
  return lines;
}

// The images the README's precondition checks run on a node (`kubectl debug node/NODE -it
// --image=X`): hkimgen images lists them too, since a disconnected cluster pulls them.
void CollectCheckImages(const fs::path& readme, std::set<std::string>& out) {
  std::ifstream in(readme);
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  for (size_t at = 0; (at = content.find("--image=", at)) != std::string::npos;) {
    at += 8;
    out.insert(content.substr(at, content.find_first_of(" `\n", at) - at));
  }
}

TEST(ImagesStage, RegistriesCatalogsAndRepositoryNames) {
  EXPECT_EQ(hkim::ImageRegistry("oraclelinux:9"), "docker.io");
  EXPECT_EQ(hkim::ImageRegistry("library/ubuntu"), "docker.io");
  EXPECT_EQ(hkim::ImageRegistry("localhost/x:1"), "localhost");
  EXPECT_EQ(hkim::ImageRegistry("mirror:5000/x:1"), "mirror:5000");
  EXPECT_EQ(hkim::ImageRegistry("nvcr.io/nvidia/x:1"), "nvcr.io");
  EXPECT_EQ(hkim::DefaultCatalogImage("redhat-operators", "4.20"),
            "registry.redhat.io/redhat/redhat-operator-index:v4.20");
  EXPECT_EQ(hkim::DefaultCatalogImage("my-catalog", "4.20"), "");
  EXPECT_EQ(hkim::DefaultCatalogImage("redhat-operators", ""), "");
  EXPECT_EQ(hkim::HelmRepositoryName("https://helm.ngc.nvidia.com/nvidia"),
            "helm-ngc-nvidia-com-nvidia");
}

TEST(ImagesStage, ImageSetRefusesAPackageOfAnUnknownCatalog) {
  DiagnosticSink sink;
  BundleImages found;
  // A Subscription whose catalog source KnownCatalogs does not know: no index image.
  found.packages.push_back(hkim::OlmPackage{
      "pkg", "stable", "cs-mirrored", "openshift-marketplace", "",
      hkim::ImageOrigin{"c", "platform/00-subscription-o-s.yaml", "Subscription/o/s",
                        "spec.name"}});
  EXPECT_EQ(hkim::ImageSetConfiguration(found, sink), "");
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].rule, "images.unknown-catalog");
  EXPECT_NE(sink.diagnostics()[0].message.find("cs-mirrored"), std::string::npos);
}

// Done when: `hkimgen images` lists every image that appears in each shipped bundle.
TEST(ShippedImages, ListsEveryImageFieldOfEachShippedBundle) {
  for (const std::string& name : ShippedProfiles()) {
    SCOPED_TRACE(name);
    std::set<std::string> expected;
    for (const YAML::Node& doc : BundleDocuments(kSource / "out" / name)) {
      CollectImageFields(doc, expected);
      CollectChartDefaults(doc, expected);
    }
    CollectCheckImages(kSource / "out" / name / "README.md", expected);
    EXPECT_GE(expected.size(), 2u) << "the workload and wrapper images at least";
    CommandRun run = Hkimgen("images profiles/" + name + ".yaml");
    ASSERT_EQ(run.status, 0) << run.err;
    const std::vector<std::string> listed = Lines(run.out, false);
    EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
    EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()).size(), listed.size());
    EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), expected);
  }
}

// Every Subscription and chart Application of every shipped bundle is in the
// ImageSetConfiguration, and its keys are the oc-mirror v2 API's (type_config.go).
TEST(ShippedImages, ImageSetNamesEveryPackageChartAndImage) {
  CommandRun run = Hkimgen("images profiles/ -o imageset");
  ASSERT_EQ(run.status, 0) << run.err;
  const YAML::Node set = YAML::Load(run.out);
  EXPECT_EQ(set["apiVersion"].as<std::string>(), "mirror.openshift.io/v2alpha1");
  EXPECT_EQ(set["kind"].as<std::string>(), "ImageSetConfiguration");
  const YAML::Node mirror = set["mirror"];
  for (const auto& key : set) {
    EXPECT_TRUE(
        std::set<std::string>({"apiVersion", "kind", "mirror"}).count(key.first.as<std::string>()));
  }
  for (const auto& key : mirror) {
    EXPECT_TRUE(std::set<std::string>({"platform", "operators", "additionalImages", "helm",
                                       "blockedImages", "samples"})
                    .count(key.first.as<std::string>()));
  }
  std::set<std::string> packages, charts, images;
  for (const YAML::Node& catalog : mirror["operators"]) {
    EXPECT_NE(catalog["catalog"].as<std::string>().find("registry.redhat.io/redhat/"),
              std::string::npos);
    for (const YAML::Node& package : catalog["packages"]) {
      for (const YAML::Node& channel : package["channels"]) {
        packages.insert(package["name"].as<std::string>() + "@" +
                        channel["name"].as<std::string>());
      }
    }
  }
  for (const YAML::Node& repository : mirror["helm"]["repositories"]) {
    EXPECT_FALSE(repository["name"].as<std::string>().empty());
    for (const YAML::Node& chart : repository["charts"]) {
      charts.insert(repository["url"].as<std::string>() + " " + chart["name"].as<std::string>() +
                    " " + chart["version"].as<std::string>());
    }
  }
  for (const YAML::Node& image : mirror["additionalImages"])
    images.insert(image["name"].as<std::string>());

  std::set<std::string> want_packages, want_charts, want_images;
  for (const std::string& name : ShippedProfiles()) {
    CollectCheckImages(kSource / "out" / name / "README.md", want_images);
    for (const YAML::Node& doc : BundleDocuments(kSource / "out" / name)) {
      CollectImageFields(doc, want_images);
      CollectChartDefaults(doc, want_images);
      const std::string kind = doc["kind"] ? doc["kind"].as<std::string>() : "";
      if (kind == "Subscription") {
        want_packages.insert(doc["spec"]["name"].as<std::string>() + "@" +
                             doc["spec"]["channel"].as<std::string>());
      }
      if (kind == "Application" && doc["spec"]["source"]["chart"]) {
        const YAML::Node source = doc["spec"]["source"];
        // Argo CD names an OCI Helm repository without its scheme (Kueue's chart); oc-mirror
        // needs oci:// to know it is one.
        std::string repo = source["repoURL"].as<std::string>();
        if (repo.find("://") == std::string::npos) repo = "oci://" + repo;
        want_charts.insert(repo + " " +
                           source["chart"].as<std::string>() + " " +
                           source["targetRevision"].as<std::string>());
      }
    }
  }
  // Every shipped OpenShift operator is preinstalled (Barcelona adopts what its cluster runs):
  // the OLM packages come from a fresh OpenShift profile, below.
  EXPECT_GE(want_charts.size(), 3u);
  EXPECT_EQ(packages, want_packages);
  EXPECT_EQ(charts, want_charts);
  EXPECT_EQ(images, want_images);
}

// A fresh OpenShift cluster's bundle installs its operators through OLM: the image set names
// each package with the channel its Subscription follows.
TEST(ShippedImages, ImageSetNamesTheOlmPackagesOfAFreshOpenShiftBundle) {
  const std::string profile = hkim::test_files::FreshOpenShiftProfileFile();
  CommandRun run = Hkimgen("images '" + profile + "' -o imageset");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* package : {"name: gpu-operator-certified", "name: nfd", "name: sriov-network-operator"})
    EXPECT_NE(run.out.find(package), std::string::npos) << package << "\n" << run.out;
}

TEST(ShippedImages, JsonNamesWhereEachImageComesFrom) {
  CommandRun run = Hkimgen("images profiles/oke-h100.yaml -o json");
  ASSERT_EQ(run.status, 0) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["command"], "images");
  bool wrapper_seen = false;
  int chart_default_seen = 0;
  for (const auto& image : report["result"]["images"]) {
    ASSERT_FALSE(image["origins"].empty());
    for (const auto& origin : image["origins"]) {
      EXPECT_EQ(origin["bundle"], "oke-h100");
      EXPECT_TRUE(fs::exists(kSource / "out/oke-h100" / origin["file"].get<std::string>()))
          << origin["file"];
      EXPECT_FALSE(origin["object"].get<std::string>().empty());
      if (origin["field"].get<std::string>().find("initContainers[0].image") != std::string::npos)
        wrapper_seen = true;
      // A chart's own default comes from its Application, and says so.
      if (image["image"] == "nvcr.io/nvidia/k8s/container-toolkit:v1.18.1") {
        ++chart_default_seen;
        EXPECT_EQ(origin["object"], "Application/argocd/oke-h100-gpu-operator");
        EXPECT_EQ(origin["field"], "chart gpu-operator v25.10.1 default values");
      }
    }
  }
  EXPECT_EQ(chart_default_seen, 1);
  EXPECT_TRUE(wrapper_seen);
  EXPECT_EQ(report["result"]["charts"].size(), 4u);  // gpu, network operator, volcano, kueue
}

// Done when: with images.mirror, no image reference in any shipped bundle points
// outside the mirror; charts and catalog sources follow; the OpenShift mirror sets validate.
constexpr char kMirror[] = "mirror.example.com:5000/gpu";
constexpr char kMirrorLayer[] =
    "images:\n  mirror: mirror.example.com:5000/gpu\n"
    "  chart_mirror: https://charts.example.com/gpu\n  catalog_sources:\n"
    "    redhat-operators: cs-redhat-operator-index-v4-19\n"
    "    certified-operators: cs-certified-operator-index-v4-19\n";

TEST(ShippedImages, WithAMirrorNothingPointsOutsideIt) {
  const fs::path scratch =
      fs::temp_directory_path() / ("hkim-images-mirror-" + std::to_string(getpid()));
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  const fs::path layer = scratch / "mirror.yaml";
  std::ofstream(layer) << kMirrorLayer;
  // The shipped profiles, and Barcelona as a fresh cluster (its operators installed by OLM).
  const std::string fresh = hkim::test_files::FreshOpenShiftProfileFile();
  std::vector<std::pair<std::string, std::string>> cases;
  for (const std::string& name : ShippedProfiles()) cases.push_back({name, "profiles/" + name + ".yaml"});
  cases.push_back({"fresh-openshift", "'" + fresh + "'"});
  for (const auto& [name, path] : cases) {
    SCOPED_TRACE(name);
    const std::string args = path + " -f '" + layer.string() + "'";
    CommandRun plain = Hkimgen("images " + path);
    CommandRun run = Hkimgen("images " + args);
    ASSERT_EQ(run.status, 0) << run.err;
    const std::vector<std::string> images = Lines(run.out, false);
    // The same images, each under the mirror: the charts' own operands through their values
    // (in the bundle that installs the charts; the others share them: install: shared).
    const bool charts = plain.out.find(" gpu-operator ") != std::string::npos;
    EXPECT_EQ(images.size(), Lines(plain.out, false).size());
    if (charts) {
      for (const char* operand :
           {"/nvidia/gpu-operator:v25.10.1", "/nvidia/k8s/container-toolkit:v1.18.1",
            "/nvidia/k8s-device-plugin:v0.18.1",
            "/nvidia/k8s/dcgm-exporter:", "/nfd/node-feature-discovery:v0.18.2",
            "/nvidia/cloud-native/network-operator:v25.10.0"}) {
        EXPECT_NE(run.out.find(std::string(kMirror) + operand), std::string::npos) << operand;
      }
    }
    for (const std::string& image : images) {
      EXPECT_EQ(image.rfind(std::string(kMirror) + "/", 0), 0u) << image;
    }
    const fs::path dir = scratch / name;
    CommandRun render = Hkimgen("render " + args + " -d '" + dir.string() + "'");
    ASSERT_EQ(render.status, 0) << render.err;
    std::set<std::string> found, repositories;
    int mirror_sets = 0, volcano = 0;
    for (const YAML::Node& doc : BundleDocuments(dir)) {
      CollectImageFields(doc, found);
      CollectChartDefaults(doc, found);
      CollectRepositories(doc, repositories);
      const std::string kind = doc["kind"] ? doc["kind"].as<std::string>() : "";
      if (kind == "Application" && doc["spec"]["source"]["chart"]) {
        EXPECT_EQ(doc["spec"]["source"]["repoURL"].as<std::string>(),
                  "https://charts.example.com/gpu");
        // Volcano names its images image_registry/volcanosh/...: the registry is the mirror.
        if (doc["spec"]["source"]["chart"].as<std::string>() == "volcano") {
          ++volcano;
          EXPECT_EQ(doc["spec"]["source"]["helm"]["valuesObject"]["basic"]["image_registry"]
                        .as<std::string>(),
                    kMirror);
        }
      }
      if (kind == "Subscription") {
        EXPECT_EQ(doc["spec"]["source"].as<std::string>().rfind("cs-", 0), 0u);
      }
      if (kind == "ImageDigestMirrorSet" || kind == "ImageTagMirrorSet") {
        ++mirror_sets;
        const YAML::Node entries =
            doc["spec"][kind == "ImageDigestMirrorSet" ? "imageDigestMirrors" : "imageTagMirrors"];
        ASSERT_GE(entries.size(), 1u);
        for (const YAML::Node& entry : entries) {
          EXPECT_EQ(entry["mirrors"][0].as<std::string>(), kMirror);
        }
      }
    }
    // The precondition checks run their node-debug image from the mirror too (a disconnected
    // cluster cannot pull docker.io/library/busybox).
    std::set<std::string> check_images;
    CollectCheckImages(dir / "README.md", check_images);
    for (const std::string& image : check_images) {
      EXPECT_EQ(image.rfind(std::string(kMirror) + "/", 0), 0u) << image;
      found.insert(image);
    }
    EXPECT_EQ(std::set<std::string>(images.begin(), images.end()), found);
    // No image repository value, a chart's included, points outside the mirror.
    EXPECT_EQ(volcano, name == "oke-h100" ? 1 : 0);
    if (charts) {  // the chart values' repositories are among them
      EXPECT_EQ(repositories.count(std::string(kMirror) + "/nvidia/cloud-native"), 1u);
      EXPECT_EQ(repositories.count(std::string(kMirror) + "/nfd/node-feature-discovery"), 1u);
    }
    for (const std::string& repository : repositories) {
      EXPECT_EQ(repository.rfind(std::string(kMirror) + "/", 0), 0u) << repository;
    }
    // OLM pulls the operators' images by their own names: mirror sets redirect them. Only a
    // bundle that installs operators through OLM has them.
    EXPECT_EQ(mirror_sets, name == "fresh-openshift" ? 2 : 0);
    const hkim::test_files::UpstreamVerdict valid =
        hkim::test_files::ValidateUpstream(hkim::test_files::ManifestsUnder(dir));
    if (valid.skip.empty()) EXPECT_EQ(valid.status, 0) << valid.text;
  }
  // A mirrored profile's references are the mirror's, their upstream registries lost: -o imageset
  // (what oc-mirror copies from) refuses it at images.mirror, and the same profile without the
  // mirror names its catalogs.
  CommandRun set =
      Hkimgen("images '" + fresh + "' -f '" + layer.string() + "' -o imageset");
  EXPECT_EQ(set.status, 1) << set.out;
  EXPECT_NE(set.err.find("[images.imageset-mirrored]"), std::string::npos) << set.err;
  EXPECT_NE(set.err.find(layer.filename().string() + ":"), std::string::npos) << set.err;
  CommandRun upstream = Hkimgen("images '" + fresh + "' -o imageset");
  EXPECT_EQ(upstream.status, 0) << upstream.err;
  EXPECT_NE(upstream.out.find("catalog: registry.redhat.io/redhat/redhat-operator-index:v4."),
            std::string::npos)
      << upstream.out;
  fs::remove_all(scratch);
}

}  // namespace
