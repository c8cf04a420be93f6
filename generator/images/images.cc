#include "images/images.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "model/image_reference.h"
#include "plan/operators/chart_images.h"
#include "plan/preconditions.h"
#include "render/rendered_json.h"

namespace hkim {
namespace {

using nlohmann::json;

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string ObjectName(const json& doc) {
  if (!doc.is_object()) return "";
  const json& meta = doc.contains("metadata") ? doc["metadata"] : json::object();
  std::string name = Str(doc, "kind") + "/";
  if (meta.is_object() && !Str(meta, "namespace").empty()) name += Str(meta, "namespace") + "/";
  return name + (meta.is_object() ? Str(meta, "name") : "");
}

class Walker {
 public:
  Walker(ImageOrigin base, std::map<std::string, std::vector<ImageOrigin>>& found)
      : base_(std::move(base)), found_(found) {}

  void Walk(const json& node, const std::string& path) {
    if (node.is_array()) {
      for (size_t i = 0; i < node.size(); ++i) {
        Walk(node[i], path + "[" + std::to_string(i) + "]");
      }
      return;
    }
    if (!node.is_object()) return;
    const std::string repository = Str(node, "repository");
    const std::string image = Str(node, "image");
    const std::string tag = Str(node, "tag");
    if (!repository.empty() && !image.empty()) {
      // Charts name the tag `version` or `tag` (the Network Operator's own image).
      const std::string version = Str(node, "version");
      Add(ComposeImage(repository, image, version.empty() ? tag : version),
          Join(path, version.empty() && !tag.empty() ? "{repository,image,tag}"
                                                     : "{repository,image,version}"));
    } else if (!image.empty()) {
      Add(image, Join(path, "image"));
    } else if (!repository.empty() && !tag.empty()) {
      Add(ComposeImage(repository, "", tag), Join(path, "{repository,tag}"));
    }
    for (const auto& [key, value] : node.items()) {
      if (value.is_structured()) Walk(value, Join(path, key));
    }
  }

 private:
  static std::string Join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  void Add(const std::string& image, const std::string& field) {
    ImageOrigin origin = base_;
    origin.field = field;
    found_[image].push_back(std::move(origin));
  }

  ImageOrigin base_;
  std::map<std::string, std::vector<ImageOrigin>>& found_;
};

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

BundleImages CollectImages(const RenderedBundle& bundle, const CatalogIndex& catalogs,
                           DiagnosticSink& sink) {
  BundleImages out;
  std::map<std::string, std::vector<ImageOrigin>> found;
  for (const RenderedFile& file : bundle.files) {
    // Render's own reader (render/rendered_json.h): it quotes every string that would read back
    // as another type, so image fields come back as the strings it wrote.
    std::string error;
    const std::optional<json> doc = RenderedDocumentJson(file.content, &error);
    if (!doc) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{file.file_name, 0, 0}, "",
                             "images.parse",
                             "the rendered document " + file.file_name + " does not parse: " + error,
                             "report this: render wrote a document that is not YAML"});
      continue;
    }
    const json& object = *doc;
    ImageOrigin base{bundle.bundle_name, file.file_name, ObjectName(object), ""};
    Walker(base, found).Walk(object, "");
    const std::string kind = Str(object, "kind");
    const json spec = object.is_object() && object.contains("spec") ? object["spec"] : json();
    if (kind == "Subscription" && spec.is_object()) {
      OlmPackage package{Str(spec, "name"),
                         Str(spec, "channel"),
                         Str(spec, "source"),
                         Str(spec, "sourceNamespace"),
                         "",
                         base};
      package.origin.field = "spec.name";
      auto catalog = catalogs.find(package.source);
      if (catalog != catalogs.end()) package.catalog = catalog->second;
      out.packages.push_back(std::move(package));
    }
    if (kind == "Application" && spec.is_object() && spec.contains("source") &&
        spec["source"].is_object() && !Str(spec["source"], "chart").empty()) {
      const json& source = spec["source"];
      HelmChart chart{Str(source, "repoURL"), Str(source, "chart"), Str(source, "targetRevision"),
                      base};
      chart.origin.field = "spec.source";
      // What the chart pulls that its values do not name (plan/operators/chart_images.h).
      const json values = source.contains("helm") && source["helm"].is_object() &&
                                  source["helm"].contains("valuesObject")
                              ? source["helm"]["valuesObject"]
                              : json();
      for (const std::string& image : ChartDefaultImages(chart.chart, chart.version, values)) {
        ImageOrigin origin = base;
        origin.field = "chart " + chart.chart + " " + chart.version + " default values";
        found[image].push_back(std::move(origin));
      }
      out.charts.push_back(std::move(chart));
    }
  }
  // The image the README's precondition checks run on a node (kubectl debug): a disconnected
  // cluster pulls it from the mirror too, so the imageset must hold it (issue 37).
  for (const Precondition& pre : bundle.preconditions) {
    const std::string image = CheckImage(pre.check);
    if (image.empty()) continue;
    found[image].push_back(ImageOrigin{bundle.bundle_name, "README.md",
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
