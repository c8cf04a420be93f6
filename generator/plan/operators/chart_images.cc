#include "plan/operators/chart_images.h"

#include "model/image_mirror.h"
#include "model/image_reference.h"
#include "model/operator_catalog.h"
#include "model/operator_versions.h"

namespace hkim {
namespace {

using nlohmann::json;

// kubernetes-sigs/kueue's released charts (oci://registry.k8s.io/kueue/charts/kueue): the release
// sets controllerManager.manager.image to this repository at the release's tag; KueueViz and
// the Prometheus stack are off by default (charts/kueue/values.yaml).
constexpr const char* kKueueImage = "registry.k8s.io/kueue/kueue";

// A plan value or a rendered one (tests/generator/images/plan_vs_rendered_test.cc reads the
// rendered values, where scalars are strings).
bool IsFalse(const json& values, const char* a, const char* b) {
  if (!values.is_object() || !values.contains(a) || !values[a].is_object()) return false;
  const json& v = values[a].value(b, json());
  return (v.is_boolean() && !v.get<bool>()) || (v.is_string() && v.get<std::string>() == "false");
}

std::string At(const json& values, const char* a, const char* b) {
  return values.is_object() && values.contains(a) && values[a].is_object() &&
                 values[a].contains(b) && values[a][b].is_string()
             ? values[a][b].get<std::string>()
             : std::string();
}

// Whether the operator deploys `c` with the bundle's values: on by the chart's default, and what
// it needs on too (the driver only where driver.enabled; sandbox workloads, the DRA GPUCluster,
// the Network Operator's OFED driver and NFD subchart stay off in the bundle).
bool Pulled(const ChartImage& c, bool driver_enabled) {
  if (!c.enabled || c.repository.empty()) return false;
  return c.needs.empty() || (c.needs == "driver" && driver_enabled);
}

// The GPU Operator's driver image gets the node's OS appended to its tag by the operator
// (580.105.08-ubuntu22.04), which the chart does not know: only its repository moves, and it is
// not listed as pulled (docs/release-lines.md says so).
bool OsSuffixed(const ChartImage& c) { return c.component == "driver"; }

// One component's values: repository under the mirror; image and version where the bundle pulls
// it (`full`), so that `hkimgen images` lists exactly what the cluster pulls.
json Entry(const std::string& mirror, const ChartImage& c, bool full) {
  auto mirrored = [&mirror](const std::string& repository) {
    return MirroredRepository(mirror, repository).value_or(repository);
  };
  const size_t dot = c.component.find('.');
  json entry = {{"key", c.component.substr(0, dot)},
                {"has_repository", !c.repository.empty()},
                {"repository", mirrored(c.repository)},
                {"has_sub", false},
                {"sub_key", ""},
                {"sub_repository", ""},
                {"has_sub_image", false},
                {"sub_image", ""},
                {"sub_version", ""}};
  full = full && !c.image.empty() && !c.version.empty();
  entry["has_image"] = full;
  entry["image"] = full ? c.image : "";
  entry["version"] = full ? c.version : "";
  entry["has_tag"] = c.image.empty() && !c.version.empty();
  entry["tag"] = c.version;
  return entry;
}

const ChartImage* Component(const std::vector<ChartImage>& images, const std::string& name) {
  for (const ChartImage& c : images) {
    if (c.component == name) return &c;
  }
  return nullptr;
}

constexpr const char* kValues = "spec.source.helm.valuesObject.";

// The image one mirror-values entry (Entry above) names in full, at `path` of the values; the
// entry's `prefix` keys (sub_ for a nested image) and the key its tag goes under ("version", or
// "tag" for the Network Operator's own image).
void AddNamedImage(const json& entry, const std::string& path, const std::string& prefix,
                   const std::string& tag_key, std::vector<ChartImageUse>& uses) {
  if (!entry.is_object() || !entry.value("has_" + prefix + "image", false)) return;
  const std::string tag_field = prefix.empty() ? tag_key : prefix + "version";
  uses.push_back({ComposeImage(entry.value(prefix + "repository", ""),
                               entry.value(prefix + "image", ""), entry.value(tag_field, "")),
                  kValues + path + ".{repository,image," + tag_key + "}"});
}

// What templates/operators-oke/application-gpu-operator.yaml.mustache renders of
// GpuOperatorMirrorValues: operator, operator.initContainer, driver.manager (the driver's own
// image is never named: OsSuffixed), each component and its nested image, the NFD subchart's
// image.{repository,tag}.
void GpuOperatorNamedImages(const json& mirror, std::vector<ChartImageUse>& uses) {
  AddNamedImage(mirror["operator"], "operator", "", "version", uses);
  AddNamedImage(mirror["init_container"], "operator.initContainer", "", "version", uses);
  const json& driver = mirror["driver"];
  if (driver.is_object() && driver.value("has_sub", false))
    AddNamedImage(driver, "driver." + driver.value("sub_key", ""), "sub_", "version", uses);
  for (const json& c : mirror["components"]) {
    const std::string key = c.value("key", "");
    if (c.value("has_sub", false))
      AddNamedImage(c, key + "." + c.value("sub_key", ""), "sub_", "version", uses);
    AddNamedImage(c, key, "", "version", uses);
  }
  const json& nfd = mirror["nfd_subchart"];
  if (nfd.is_object() && nfd.value("has_tag", false)) {
    uses.push_back({ComposeImage(nfd.value("repository", ""), "", nfd.value("tag", "")),
                    std::string(kValues) + "node-feature-discovery.image.{repository,tag}"});
  }
}

}  // namespace

std::vector<ChartImageUse> ChartPulledImages(const std::string& mirror, const std::string& chart,
                                             const std::string& version, const json& values,
                                             const json& mirror_values) {
  std::vector<ChartImageUse> uses;
  // With images.mirror the GPU and Network Operator values name every pulled image themselves.
  if (mirror_values.is_object() && mirror_values.value("operator", json()).is_object()) {
    if (chart == GpuOperatorFacts().chart.chart) {
      GpuOperatorNamedImages(mirror_values, uses);
    } else {
      // templates/operators-oke/application-network-operator.yaml.mustache.
      AddNamedImage(mirror_values["operator"], "operator", "", "tag", uses);
      AddNamedImage(mirror_values["init_container"], "operator.ofedDriver.initContainer", "",
                    "version", uses);
    }
    return uses;
  }
  for (const std::string& image : ChartDefaultImages(chart, version, values)) {
    uses.push_back({MirroredImage(mirror, image).value_or(image),
                    "chart " + chart + " " + version + " default values"});
  }
  return uses;
}

json GpuOperatorMirrorValues(const Profile& p, const GpuOperator& gpu) {
  if (!p.images.enabled()) return nullptr;
  const std::optional<GpuOperatorRelease> release = FindGpuOperatorRelease(gpu.version);
  // A version outside the catalog (accepted with operators.gpu_operator.accept_unlisted_version)
  // keeps the chart's own images and tags; the newest release's keys move their repositories.
  const bool known = release.has_value();
  const std::vector<ChartImage>& images =
      known ? release->images : GpuOperatorReleases().back().images;
  json out = {{"operator", nullptr}, {"init_container", nullptr}, {"driver", nullptr},
              {"nfd_subchart", nullptr}, {"components", json::array()}};
  json& components = out["components"];
  for (const ChartImage& c : images) {
    const bool full = known && Pulled(c, gpu.driver_enabled) && !OsSuffixed(c);
    const bool parent_pulled = known && Pulled(c, gpu.driver_enabled);
    if (c.component == "operator") {
      out["operator"] = Entry(p.images.mirror, c, full);
    } else if (c.component == "operator.initContainer") {
      out["init_container"] = Entry(p.images.mirror, c, full);
    } else if (c.component == "node-feature-discovery") {
      json nfd = Entry(p.images.mirror, c, false);
      nfd["has_tag"] = known;
      out["nfd_subchart"] = nfd;
    } else if (c.component.find('.') != std::string::npos) {
      continue;  // a nested image (driver.manager, *.driverManager): joined to its parent below
    } else {
      json entry = Entry(p.images.mirror, c, full);
      for (const char* sub : {"manager", "driverManager"}) {
        const ChartImage* nested = Component(images, c.component + "." + sub);
        if (!nested) continue;
        entry["has_sub"] = true;
        entry["sub_key"] = sub;
        entry["sub_repository"] =
            MirroredRepository(p.images.mirror, nested->repository).value_or(nested->repository);
        // driver.manager runs beside the driver: named in full where the driver is deployed.
        const bool sub_full = parent_pulled && Pulled(*nested, gpu.driver_enabled) &&
                              !nested->image.empty() && !nested->version.empty();
        entry["has_sub_image"] = sub_full;
        entry["sub_image"] = sub_full ? nested->image : "";
        entry["sub_version"] = sub_full ? nested->version : "";
      }
      if (c.component == "driver") {
        out["driver"] = entry;
      } else {
        components.push_back(entry);
      }
    }
  }
  return out;
}

json NetworkOperatorMirrorValues(const Profile& p, const std::string& version) {
  if (!p.images.enabled()) return nullptr;
  const std::optional<NetworkOperatorRelease> release = FindNetworkOperatorRelease(version);
  json out = {{"operator", nullptr}, {"init_container", nullptr}};
  if (!release) return out;  // lint.operator-version: never rendered
  for (const ChartImage& c : release->images) {
    if (c.component == "operator") {
      // The chart reads operator.tag (Entry's "tag"), not version, for its own image.
      json entry = Entry(p.images.mirror, c, true);
      entry["tag"] = c.version;
      out["operator"] = entry;
    } else if (c.component == "operator.ofedDriver.initContainer") {
      // It runs only beside an OFED driver the NicClusterPolicy deploys (the bundle's has
      // none): its repository moves, and it is not listed as pulled.
      out["init_container"] = Entry(p.images.mirror, c, false);
    }
  }
  return out;
}

std::vector<std::string> ChartDefaultImages(const std::string& chart, const std::string& version,
                                            const json& values) {
  std::vector<std::string> images;
  // With images.mirror the values name every pulled image themselves (ChartPulledImages).
  const bool mirrored = !At(values, "operator", "repository").empty();
  if (chart == GpuOperatorFacts().chart.chart && !mirrored) {
    const std::optional<GpuOperatorRelease> release = FindGpuOperatorRelease(version);
    if (!release) return images;
    const bool driver_enabled = !IsFalse(values, "driver", "enabled");
    for (const ChartImage& c : release->images) {
      if (Pulled(c, driver_enabled) && !OsSuffixed(c))
        images.push_back(ComposeImage(c.repository, c.image, c.version));
    }
  } else if (chart == NetworkOperatorFacts().chart.chart && !mirrored) {
    for (const NetworkOperatorRelease& release : NetworkOperatorReleases()) {
      if (release.chart_version != version) continue;
      for (const ChartImage& c : release.images) {
        if (Pulled(c, false)) images.push_back(ComposeImage(c.repository, c.image, c.version));
      }
    }
  } else if (chart == KueueFacts().chart.chart) {
    // images.mirror renders controllerManager.manager.image.repository (the tag stays the chart's).
    const json* image = values.is_object() ? &values : nullptr;
    for (const char* key : {"controllerManager", "manager", "image"})
      image = image && image->contains(key) && (*image)[key].is_object() ? &(*image)[key] : nullptr;
    const std::string repository = image && image->contains("repository") &&
                                           (*image)["repository"].is_string()
                                       ? (*image)["repository"].get<std::string>()
                                       : std::string(kKueueImage);
    images.push_back(repository + ":v" + version);
  } else if (chart == VolcanoFacts().chart.chart) {
    // The release catalog's images (installer/helm/chart/volcano/values.yaml `basic` at the
    // tag: image_registry joined with each enabled component's name and tag); images.mirror
    // renders basic.image_registry, the names stay.
    const std::string registry = At(values, "basic", "image_registry");
    if (const auto release = FindVolcanoRelease(version)) {
      for (const std::string& image : release->images) {
        const std::string name = image.substr(image.find('/') + 1);  // under docker.io
        images.push_back(registry.empty() ? image : registry + "/" + name);
      }
    }
  }
  return images;
}

std::string KueueChartImageRepository() { return kKueueImage; }

}  // namespace hkim
