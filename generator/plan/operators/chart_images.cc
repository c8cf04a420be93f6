#include "plan/operators/chart_images.h"

#include "model/image_mirror.h"

namespace hkim {
namespace {

using nlohmann::json;

struct ChartImage {
  const char* key;         // the values key: "toolkit", "operator", "node-feature-discovery"
  const char* repository;  // the chart's default; "" where it has none (vgpuManager: the user's)
  const char* image;       // "" where the chart keeps image and tag in another shape
  const char* version;
  const char* sub_key = "";  // a nested image's key (driver.manager, vfioManager.driverManager)
  const char* sub_repository = "";
};

// NVIDIA/gpu-operator v25.10.1 (846018752b8a34d4039feb6f18629b4c64210e32),
// deployments/gpu-operator/values.yaml: the components a ClusterPolicy deploys with the chart's
// defaults and driver.enabled=false (operator and validator default to the chart's appVersion).
constexpr const char* kGpuOperatorChart = "v25.10.1";
const ChartImage kGpuOperatorImages[] = {
    {"operator", "nvcr.io/nvidia", "gpu-operator", "v25.10.1"},
    {"validator", "nvcr.io/nvidia", "gpu-operator", "v25.10.1"},
    {"toolkit", "nvcr.io/nvidia/k8s", "container-toolkit", "v1.18.1"},
    {"devicePlugin", "nvcr.io/nvidia", "k8s-device-plugin", "v0.18.1"},
    {"dcgmExporter", "nvcr.io/nvidia/k8s", "dcgm-exporter", "4.4.2-4.7.0-distroless"},
    {"gfd", "nvcr.io/nvidia", "k8s-device-plugin", "v0.18.1"},
    {"migManager", "nvcr.io/nvidia/cloud-native", "k8s-mig-manager", "v0.13.1"},
};
// operator.initContainer (same file): the operator pod's init container.
const ChartImage kGpuOperatorInit = {"initContainer", "nvcr.io/nvidia", "cuda", "13.0.1-base-ubi9"};
// Components off by default (dcgm, nodeStatusExporter, gds, gdrcopy, sandbox and vGPU ones,
// ccManager) and the driver (its tag gets the node OS appended by the operator): only their
// repository moves, so that enabling one still pulls from the mirror.
const ChartImage kGpuOperatorRepositories[] = {
    {"driver", "nvcr.io/nvidia", "", "", "manager", "nvcr.io/nvidia/cloud-native"},
    {"dcgm", "nvcr.io/nvidia/cloud-native", "", ""},
    {"nodeStatusExporter", "nvcr.io/nvidia", "", ""},
    {"gds", "nvcr.io/nvidia/cloud-native", "", ""},
    {"gdrcopy", "nvcr.io/nvidia/cloud-native", "", ""},
    {"vgpuDeviceManager", "nvcr.io/nvidia/cloud-native", "", ""},
    {"vfioManager", "nvcr.io/nvidia", "", "", "driverManager", "nvcr.io/nvidia/cloud-native"},
    {"vgpuManager", "", "", "", "driverManager", "nvcr.io/nvidia/cloud-native"},
    {"kataManager", "nvcr.io/nvidia/cloud-native", "", ""},
    {"sandboxDevicePlugin", "nvcr.io/nvidia", "", ""},
    {"ccManager", "nvcr.io/nvidia/cloud-native", "", ""},
};
// The chart's node-feature-discovery subchart v0.18.2
// (deployments/gpu-operator/charts/node-feature-discovery/values.yaml: image.repository; the
// tag defaults to its appVersion v0.18.2).
const ChartImage kGpuOperatorNfd = {"node-feature-discovery",
                                    "registry.k8s.io/nfd/node-feature-discovery", "", "v0.18.2"};

// Mellanox/network-operator v25.10.0 (625ea34cb4c3f4aead034f38d137ab2344e7569a),
// deployment/network-operator/values.yaml: operator.{repository,image} with the tag defaulting
// to the chart's appVersion v25.10.0, and operator.ofedDriver.initContainer. Its NFD and SR-IOV
// subcharts are off in the bundle (application-network-operator.yaml.mustache).
constexpr const char* kNetworkOperatorChart = "25.10.0";
const ChartImage kNetworkOperator = {"operator", "nvcr.io/nvidia/cloud-native", "network-operator",
                                     "v25.10.0"};
// The init container runs only beside an OFED driver the NicClusterPolicy deploys (the bundle's
// has none): its repository moves, and it is not listed as pulled.
const ChartImage kNetworkOperatorInit = {"initContainer", "nvcr.io/nvidia/mellanox", "", ""};

// volcano-sh/volcano v1.15.1 (0a56ed331897f5455916a44d3075671376d731d6),
// installer/helm/chart/volcano/values.yaml `basic`: image_registry (docker.io) joined with
// these names and image_tag_version; the controller, scheduler and admission webhook are on by
// default (`custom`), the agents and the metrics stack off.
constexpr const char* kVolcanoChart = "1.15.1";
const char* const kVolcanoImages[] = {"volcanosh/vc-controller-manager", "volcanosh/vc-scheduler",
                                      "volcanosh/vc-webhook-manager"};

std::string Reference(const ChartImage& c) {
  return std::string(c.repository) + "/" + c.image + ":" + c.version;
}

// One component's values: repository under the mirror; image and version when `known` (the
// recorded chart version) and the chart has them in this shape.
json Entry(const std::string& mirror, const ChartImage& c, bool known) {
  auto mirrored = [&mirror](const std::string& repository) {
    return MirroredRepository(mirror, repository).value_or(repository);
  };
  json entry = {{"key", c.key},
                {"has_repository", *c.repository != '\0'},
                {"repository", mirrored(c.repository)},
                {"has_sub", *c.sub_key != '\0'},
                {"sub_key", c.sub_key},
                {"sub_repository", mirrored(c.sub_repository)}};
  const bool full = known && *c.image != '\0';
  entry["has_image"] = full;
  entry["image"] = full ? c.image : "";
  entry["version"] = full ? c.version : "";
  entry["has_tag"] = known && *c.image == '\0' && *c.version != '\0';
  entry["tag"] = known ? c.version : "";
  return entry;
}

}  // namespace

json GpuOperatorMirrorValues(const Profile& p, const GpuOperator& gpu) {
  if (!p.images.enabled()) return nullptr;
  const bool known = gpu.version == kGpuOperatorChart;
  json components = json::array();
  for (const ChartImage& c : kGpuOperatorImages) {
    if (std::string(c.key) != "operator") components.push_back(Entry(p.images.mirror, c, known));
  }
  for (const ChartImage& c : kGpuOperatorRepositories)
    if (std::string(c.key) != "driver") components.push_back(Entry(p.images.mirror, c, known));
  return {{"operator", Entry(p.images.mirror, kGpuOperatorImages[0], known)},
          {"init_container", Entry(p.images.mirror, kGpuOperatorInit, known)},
          {"driver", Entry(p.images.mirror, kGpuOperatorRepositories[0], known)},
          {"nfd", Entry(p.images.mirror, kGpuOperatorNfd, known)},
          {"components", components}};
}

json NetworkOperatorMirrorValues(const Profile& p, const std::string& chart_version) {
  if (!p.images.enabled()) return nullptr;
  const bool known = chart_version == kNetworkOperatorChart;
  // The chart reads operator.tag (Entry's "tag"), not version, for its own image.
  return {{"operator", Entry(p.images.mirror, kNetworkOperator, known)},
          {"init_container", Entry(p.images.mirror, kNetworkOperatorInit, known)}};
}

std::vector<std::string> ChartDefaultImages(const std::string& chart, const std::string& version,
                                            const json& values) {
  std::vector<std::string> images;
  auto at = [&values](const char* a, const char* b) {
    return values.is_object() && values.contains(a) && values[a].is_object() &&
                   values[a].contains(b) && values[a][b].is_string()
               ? values[a][b].get<std::string>()
               : std::string();
  };
  if (chart == "gpu-operator" && version == kGpuOperatorChart &&
      at("operator", "repository").empty()) {
    for (const ChartImage& c : kGpuOperatorImages) images.push_back(Reference(c));
    images.push_back(Reference(kGpuOperatorInit));
    images.push_back(std::string(kGpuOperatorNfd.repository) + ":" + kGpuOperatorNfd.version);
  } else if (chart == "network-operator" && version == kNetworkOperatorChart &&
             at("operator", "repository").empty()) {
    images.push_back(Reference(kNetworkOperator));
  } else if (chart == "volcano" && version == kVolcanoChart) {
    const std::string registry = at("basic", "image_registry");
    for (const char* name : kVolcanoImages) {
      images.push_back((registry.empty() ? "docker.io" : registry) + "/" + name + ":v" +
                       kVolcanoChart);
    }
  }
  return images;
}

}  // namespace hkim
