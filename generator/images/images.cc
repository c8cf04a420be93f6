#include "images/images.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "plan/preconditions.h"

namespace hkim {
namespace {

/// Kind/namespace/name (Kind/name when cluster-scoped), as the rendered metadata says.
std::string ObjectName(const PlannedObject& object) {
  std::string name = object.kind + "/";
  if (!object.namespace_name.empty()) name += object.namespace_name + "/";
  return name + object.name;
}

auto PackageKey(const OlmPackage& p) { return std::tie(p.catalog, p.source, p.package, p.channel); }
auto ChartKey(const HelmChart& c) { return std::tie(c.repo_url, c.chart, c.version); }

bool OriginLess(const ImageOrigin& a, const ImageOrigin& b) {
  return std::tie(a.bundle, a.file, a.object, a.field) <
         std::tie(b.bundle, b.file, b.object, b.field);
}

}  // namespace

std::string DefaultCatalogImage(const std::string& source, const std::string& openshift_version) {
  static const char* const kDefaults[] = {"redhat-operators", "certified-operators",
                                          "community-operators", "redhat-marketplace"};
  if (openshift_version.empty()) return "";
  for (const char* known : kDefaults) {
    if (source != known) continue;
    // "redhat-operators" -> "redhat-operator-index" (oc-mirror and the OCP docs name them so).
    std::string name = source;
    if (name.size() > 1 && name.back() == 's') name.pop_back();
    return "registry.redhat.io/redhat/" + name + "-index:v" + openshift_version;
  }
  return "";
}

std::string ImageRegistry(const std::string& image) {
  const size_t slash = image.find('/');
  if (slash == std::string::npos) return "docker.io";
  const std::string first = image.substr(0, slash);
  if (first.find_first_of(".:") == std::string::npos && first != "localhost") return "docker.io";
  return first;
}

CatalogIndex KnownCatalogs(const std::string& openshift_version,
                           const std::map<std::string, std::string>& mirrored_sources) {
  CatalogIndex index;
  for (const char* source :
       {"redhat-operators", "certified-operators", "community-operators", "redhat-marketplace"}) {
    const std::string image = DefaultCatalogImage(source, openshift_version);
    if (!image.empty()) index[source] = image;
  }
  for (const auto& [from, to] : mirrored_sources) {
    auto it = index.find(from);
    if (it != index.end()) index[to] = it->second;
  }
  return index;
}

BundleImages CollectImages(const BundlePlan& plan, const CatalogIndex& catalogs) {
  BundleImages out;
  std::map<std::string, std::vector<ImageOrigin>> found;
  for (const PlannedObject& object : plan.objects) {
    const ImageOrigin base{plan.bundle_name, object.file_name, ObjectName(object), ""};
    for (const Need& need : object.needs) {
      if (need.what.kind != CapabilityKind::kImage) continue;
      ImageOrigin origin = base;
      origin.field = need.field;
      found[need.what.name].push_back(std::move(origin));
    }
    if (const std::optional<PlannedSubscription>& sub = object.subscription) {
      OlmPackage package{sub->package, sub->channel, sub->source, sub->source_namespace, "", base};
      package.origin.field = "spec.name";
      auto catalog = catalogs.find(package.source);
      if (catalog != catalogs.end()) package.catalog = catalog->second;
      out.packages.push_back(std::move(package));
    }
    if (const std::optional<PlannedChart>& chart = object.chart) {
      out.charts.push_back(HelmChart{chart->repo_url, chart->chart, chart->version, base});
      out.charts.back().origin.field = "spec.source";
    }
  }
  // The image the README's precondition checks run on a node (kubectl debug): a disconnected
  // cluster pulls it from the mirror too, so the imageset must hold it.
  for (const Precondition& pre : plan.preconditions) {
    const std::string image = CheckImage(pre.check);
    if (image.empty()) continue;
    found[image].push_back(ImageOrigin{plan.bundle_name, "README.md",
                                       "precondition " + pre.kind + " " + pre.what, "check"});
  }
  for (auto& [image, origins] : found) out.images.push_back({image, std::move(origins)});
  BundleImages sorted;
  MergeImages(sorted, out);
  return sorted;
}

void MergeImages(BundleImages& into, const BundleImages& from) {
  std::map<std::string, std::vector<ImageOrigin>> images;
  for (const BundleImages* part : std::initializer_list<const BundleImages*>{&into, &from}) {
    for (const ImageUse& use : part->images) {
      auto& origins = images[use.image];
      origins.insert(origins.end(), use.origins.begin(), use.origins.end());
    }
  }
  into.images.clear();
  for (auto& [image, origins] : images) {
    std::sort(origins.begin(), origins.end(), OriginLess);
    into.images.push_back({image, std::move(origins)});
  }
  into.packages.insert(into.packages.end(), from.packages.begin(), from.packages.end());
  std::stable_sort(
      into.packages.begin(), into.packages.end(),
      [](const OlmPackage& a, const OlmPackage& b) { return PackageKey(a) < PackageKey(b); });
  into.packages.erase(std::unique(into.packages.begin(), into.packages.end(),
                                  [](const OlmPackage& a, const OlmPackage& b) {
                                    return PackageKey(a) == PackageKey(b);
                                  }),
                      into.packages.end());
  into.charts.insert(into.charts.end(), from.charts.begin(), from.charts.end());
  std::stable_sort(
      into.charts.begin(), into.charts.end(),
      [](const HelmChart& a, const HelmChart& b) { return ChartKey(a) < ChartKey(b); });
  into.charts.erase(std::unique(into.charts.begin(), into.charts.end(),
                                [](const HelmChart& a, const HelmChart& b) {
                                  return ChartKey(a) == ChartKey(b);
                                }),
                    into.charts.end());
}

}  // namespace hkim
