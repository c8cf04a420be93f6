// The images stage lists what a bundle pulls from the plan's typed data (images/images.h: image
// needs with their fields, Subscriptions' packages, Applications' charts), never parsing the
// rendered documents. This is the one place that reads the rendered documents for images: it
// walks every document of every shipped profile (and variants: OLM installs, mirrors, digests,
// Volcano and Kueue) and every `hkimgen init` starter on its own, and holds the two equal,
// origin by origin, so the typed list cannot drift from what the bundle says.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "commands/init_command.h"
#include "images/images.h"
#include "layering/layering.h"
#include "model/image_reference.h"
#include "pipeline/pipeline.h"
#include "plan/operators/chart_images.h"
#include "render/rendered_json.h"
#include "test_files.h"

namespace {

using hkim::BundleImages;
using hkim::ImageOrigin;
using hkim::RenderedBundle;
using nlohmann::json;

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// --- The rendered documents' own reading ---------------------------------------------------

std::string ObjectName(const json& doc) {
  const json meta = doc.value("metadata", json::object());
  std::string name = Str(doc, "kind") + "/";
  if (!Str(meta, "namespace").empty()) name += Str(meta, "namespace") + "/";
  return name + Str(meta, "name");
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// Every image reference of one document (images.h: `image`, repository/image[/version|tag],
// repository/tag), with its field path.
void Walk(const json& node, const std::string& path, const ImageOrigin& base,
          std::map<std::string, std::vector<ImageOrigin>>& found) {
  auto add = [&](const std::string& image, const std::string& field) {
    ImageOrigin origin = base;
    origin.field = field;
    found[image].push_back(origin);
  };
  if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i)
      Walk(node[i], path + "[" + std::to_string(i) + "]", base, found);
    return;
  }
  if (!node.is_object()) return;
  const std::string repository = Str(node, "repository"), image = Str(node, "image"),
                    tag = Str(node, "tag"), version = Str(node, "version");
  if (!repository.empty() && !image.empty()) {
    add(hkim::ComposeImage(repository, image, version.empty() ? tag : version),
        Join(path, version.empty() && !tag.empty() ? "{repository,image,tag}"
                                                   : "{repository,image,version}"));
  } else if (!image.empty()) {
    add(image, Join(path, "image"));
  } else if (!repository.empty() && !tag.empty()) {
    add(hkim::ComposeImage(repository, "", tag), Join(path, "{repository,tag}"));
  }
  for (const auto& [key, value] : node.items())
    if (value.is_structured()) Walk(value, Join(path, key), base, found);
}

// The images the README's precondition checks run (`kubectl debug ... --image=X`).
std::vector<std::string> ReadmeCheckImages(const std::string& readme) {
  std::vector<std::string> images;
  for (size_t at = 0; (at = readme.find("--image=", at)) != std::string::npos;) {
    at += 8;
    images.push_back(readme.substr(at, readme.find_first_of(" `\n", at) - at));
  }
  return images;
}

// What the rendered bundle pulls and installs, read from its documents: the independent reading the
// typed list is held to. README check images carry no object (the text does not name it).
BundleImages RenderedImages(const RenderedBundle& bundle, const hkim::CatalogIndex& catalogs) {
  BundleImages out;
  std::map<std::string, std::vector<ImageOrigin>> found;
  for (const hkim::RenderedFile& file : bundle.files) {
    if (file.file_name == "README.md") {
      for (const std::string& image : ReadmeCheckImages(file.content))
        found[image].push_back(ImageOrigin{bundle.bundle_name, "README.md", "", "check"});
      continue;
    }
    if (!hkim::test_files::IsManifest(file.file_name)) continue;
    std::string error;
    const std::optional<json> doc = hkim::RenderedDocumentJson(file.content, &error);
    EXPECT_TRUE(doc) << file.file_name << ": " << error;
    if (!doc || !doc->is_object()) continue;
    const ImageOrigin base{bundle.bundle_name, file.file_name, ObjectName(*doc), ""};
    Walk(*doc, "", base, found);
    const std::string kind = Str(*doc, "kind");
    // The nightly check's pod, carried as JSON text in its ConfigMap (plan/health.cc): its images
    // are pulled on the nodes as any pod's.
    if (kind == "ConfigMap" && doc->contains("data") && (*doc)["data"].is_object())
      for (const auto& [key, value] : (*doc)["data"].items()) {
        const json pod = value.is_string() ? json::parse(value.get<std::string>(), nullptr, false)
                                           : json();
        if (pod.is_object() && Str(pod, "kind") == "Pod")
          Walk(pod, "data[" + key + "]", base, found);
      }
    const json spec = doc->value("spec", json::object());
    if (kind == "Subscription") {
      hkim::OlmPackage package{Str(spec, "name"),
                               Str(spec, "channel"),
                               Str(spec, "source"),
                               Str(spec, "sourceNamespace"),
                               "",
                               base};
      package.origin.field = "spec.name";
      if (catalogs.count(package.source)) package.catalog = catalogs.at(package.source);
      out.packages.push_back(package);
    }
    const json source = spec.value("source", json::object());
    if (kind == "Application" && !Str(source, "chart").empty()) {
      // Argo CD names an OCI Helm repository without its scheme (Kueue's chart); the chart's
      // source, as `hkimgen images` names it, keeps oci://.
      std::string repo = Str(source, "repoURL");
      if (!repo.empty() && repo.find("://") == std::string::npos) repo = "oci://" + repo;
      hkim::HelmChart chart{repo, Str(source, "chart"), Str(source, "targetRevision"), base};
      chart.origin.field = "spec.source";
      // What the chart pulls that its rendered values do not name.
      const json values = source.value("helm", json::object()).value("valuesObject", json());
      for (const std::string& image :
           hkim::ChartDefaultImages(chart.chart, chart.version, values)) {
        ImageOrigin origin = base;
        origin.field = "chart " + chart.chart + " " + chart.version + " default values";
        found[image].push_back(origin);
      }
      out.charts.push_back(chart);
    }
  }
  for (auto& [image, origins] : found) out.images.push_back({image, origins});
  BundleImages sorted;
  hkim::MergeImages(sorted, out);
  return sorted;
}

// --- The comparison ------------------------------------------------------------------------

std::string OriginText(const ImageOrigin& o) {
  // The README's text does not say which precondition a check belongs to.
  if (o.file == "README.md") return o.bundle + " README.md " + o.field;
  return o.bundle + " " + o.file + " " + o.object + " " + o.field;
}

// Every image origin, package and chart on one side only, one line each ("" when equal).
std::string Differences(const BundleImages& planned, const BundleImages& rendered) {
  std::map<std::string, int> count;  // +1 planned, -1 rendered
  auto tally = [&count](const BundleImages& images, int side) {
    for (const hkim::ImageUse& use : images.images)
      for (const ImageOrigin& o : use.origins)
        count["image " + use.image + " at " + OriginText(o)] += side;
    for (const hkim::OlmPackage& p : images.packages)
      count["olm " + p.package + " " + p.channel + " " + p.source + " " + p.source_namespace + " " +
            p.catalog + " at " + OriginText(p.origin)] += side;
    for (const hkim::HelmChart& c : images.charts)
      count["chart " + c.repo_url + " " + c.chart + " " + c.version + " at " +
            OriginText(c.origin)] += side;
  };
  tally(planned, 1);
  tally(rendered, -1);
  std::string out;
  for (const auto& [what, n] : count) {
    if (n > 0) out += "only in the plan: " + what + "\n";
    if (n < 0) out += "only in the rendered documents: " + what + "\n";
  }
  return out;
}

struct Case {
  std::string name;
  std::optional<hkim::LoadedProfile> loaded;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::string olm =
      "operators.sriov_network_operator.install=managed,operators.nfd.install="
      "managed,operators.gpu_operator.install=managed";
  const std::string oke_mirror =
      "images.mirror=m.example.com:5000/g,images.chart_mirror="
      "https://c.example.com/x";
  std::vector<std::pair<std::string, std::vector<std::string>>> layered;
  for (const std::string& name : hkim::test_files::ShippedProfiles()) {
    layered.push_back({name, {}});
    if (name.rfind("oke-", 0) == 0) {
      layered.push_back({name, {oke_mirror}});
      layered.push_back({name, {oke_mirror, "operators.gpu_operator.driver.enabled=true"}});
      layered.push_back(
          {name, {"operators.volcano.install=managed,operators.kueue.install=managed"}});
      layered.push_back({name,
                         {oke_mirror,
                          "operators.volcano.install=managed,"
                          "operators.kueue.install=managed"}});
      layered.push_back({name,
                         {oke_mirror, "images.digests.docker\\.io/library/oraclelinux:9=sha256:" +
                                          std::string(64, '7')}});
    } else {
      layered.push_back({name, {olm}});
      layered.push_back({name, {olm, "operators.gpu_operator.driver.enabled=true"}});
      layered.push_back({name,
                         {olm,
                          "images.mirror=m.example.com:5000/g,"
                          "images.catalog_sources.redhat-operators=cs-rh,"
                          "images.catalog_sources.certified-operators=cs-cert"}});
    }
  }
  for (const auto& [name, sets] : layered) {
    hkim::DiagnosticSink sink;
    hkim::LayerInputs inputs{
        (std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / (name + ".yaml")).string(),
        {},
        sets};
    std::optional<hkim::LayeredProfile> profile = hkim::LoadLayeredProfile(inputs, sink, nullptr);
    std::string label = name;
    for (const std::string& set : sets) label += " --set " + set;
    EXPECT_TRUE(profile && !sink.HasErrors()) << label;
    cases.push_back({label, profile ? std::optional(profile->merged) : std::nullopt});
  }
  for (const char* platform : {"openshift", "oke"}) {
    for (const std::string& shape : hkim::InitShapes()) {
      hkim::InitOptions options;
      options.platform = platform;
      options.shape = shape;
      options.repo_url = "https://github.com/lab/bundles.git";
      hkim::DiagnosticSink sink;
      cases.push_back(
          {std::string("init ") + platform + " " + shape,
           hkim::LoadProfileFromText("p.yaml", hkim::StarterProfile(options).value_or(""), sink)});
    }
  }
  return cases;
}

hkim::CatalogIndex Catalogs(const hkim::Profile& p) {
  return hkim::KnownCatalogs(p.operators ? p.operators->openshift_version : "",
                             p.images.catalog_sources);
}

TEST(PlanVsRendered, TheTypedImagesPackagesAndChartsAreWhatTheRenderedBundleSays) {
  for (Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(c.loaded);
    hkim::DiagnosticSink sink;
    std::optional<hkim::ProfileRender> render = hkim::RenderLoadedProfileWithPlan(*c.loaded, sink);
    ASSERT_TRUE(render) << (sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message);
    const hkim::CatalogIndex catalogs = Catalogs(render->profile);
    const BundleImages planned = hkim::CollectImages(render->plan, catalogs);
    EXPECT_GE(planned.images.size(), 2u) << "the workload and wrapper images at least";
    EXPECT_EQ(Differences(planned, RenderedImages(render->bundle, catalogs)), "");
  }
}

// The comparison sees a drift either way: an image the plan does not record, a field moved,
// a chart's version, a package's channel.
TEST(PlanVsRendered, AMismatchIsDetected) {
  hkim::DiagnosticSink sink;
  std::optional<hkim::LoadedProfile> loaded =
      hkim::LoadProfileFromText("p.yaml", hkim::test_files::ReadProfile("oke-h100"), sink);
  ASSERT_TRUE(loaded);
  std::optional<hkim::ProfileRender> render = hkim::RenderLoadedProfileWithPlan(*loaded, sink);
  ASSERT_TRUE(render);
  const BundleImages planned = hkim::CollectImages(render->plan, {});
  ASSERT_EQ(Differences(planned, RenderedImages(render->bundle, {})), "");

  RenderedBundle edited = render->bundle;
  for (hkim::RenderedFile& file : edited.files) {
    if (file.file_name.find("statefulset") == std::string::npos) continue;
    const size_t at = file.content.find("containers:\n");
    ASSERT_NE(at, std::string::npos);
    // A second container the plan knows nothing of.
    file.content.insert(file.content.find("\n", file.content.find("image:", at)) + 1,
                        "      - name: extra\n        image: quay.io/x/extra:1\n");
  }
  const std::string diff = Differences(planned, RenderedImages(edited, {}));
  EXPECT_NE(
      diff.find("only in the rendered documents: image quay.io/x/extra:1 at oke-h100 "
                "workload/70-statefulset-gpu-training-nccl-allreduce.yaml "
                "StatefulSet/gpu-training/nccl-allreduce spec.template.spec.containers[1].image"),
      std::string::npos)
      << diff;

  BundleImages moved = planned;
  moved.images[0].origins[0].field += "x";
  moved.charts.at(0).version = "0.0.1";
  EXPECT_NE(Differences(moved, RenderedImages(render->bundle, {})).find("only in the plan: image "),
            std::string::npos);
  EXPECT_NE(Differences(moved, RenderedImages(render->bundle, {})).find("only in the plan: chart "),
            std::string::npos);
  hkim::OlmPackage package{"pkg", "stable", "redhat-operators", "openshift-marketplace", "", {}};
  BundleImages with_package = planned;
  with_package.packages.push_back(package);
  EXPECT_NE(Differences(with_package, RenderedImages(render->bundle, {}))
                .find("only in the plan: olm pkg"),
            std::string::npos);
}

// The rendered reading itself (the reference the typed list is held to) finds images in every
// workload kind, operator custom resources and chart values, and packages and charts.
TEST(PlanVsRendered, TheRenderedReadingFindsEveryShapeOfImageReference) {
  RenderedBundle bundle{"c", {}, {}};
  auto add = [&bundle](const char* name, const char* text) {
    bundle.files.push_back({name, "t", text});
  };
  add("a/cron.yaml",
      "kind: CronJob\nmetadata: {name: c, namespace: n}\nspec:\n  jobTemplate:\n"
      "    spec:\n      template:\n        spec:\n          initContainers:\n"
      "          - {name: w, image: quay.io/a/w:1}\n          containers:\n"
      "          - {name: m, image: quay.io/a/m:2}\n");
  add("a/ds.yaml",
      "kind: DaemonSet\nmetadata: {name: d, namespace: n}\nspec:\n  template:\n"
      "    spec:\n      containers:\n      - {name: x, image: quay.io/a/m:2}\n");
  add("a/cp.yaml",
      "kind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  driver:\n"
      "    repository: nvcr.io/nvidia\n    image: driver\n    version: sha256:0123\n");
  add("apps/chart.yaml",
      "kind: Application\nmetadata: {name: g, namespace: argocd}\nspec:\n  source:\n"
      "    repoURL: https://charts.example.com/x\n    chart: x\n    targetRevision: 1.0.0\n"
      "    helm:\n      valuesObject:\n        exporter:\n"
      "          image: {repository: ghcr.io/x/exporter, tag: v3}\n");
  add("a/sub.yaml",
      "kind: Subscription\nmetadata: {name: s, namespace: o}\nspec:\n  name: pkg\n"
      "  channel: stable\n  source: certified-operators\n  sourceNamespace: "
      "openshift-marketplace\n");
  const BundleImages found = RenderedImages(bundle, hkim::KnownCatalogs("4.19"));
  std::vector<std::string> images;
  for (const auto& use : found.images) images.push_back(use.image);
  EXPECT_EQ(images,
            (std::vector<std::string>{"ghcr.io/x/exporter:v3", "nvcr.io/nvidia/driver@sha256:0123",
                                      "quay.io/a/m:2", "quay.io/a/w:1"}));
  ASSERT_EQ(found.images[2].origins.size(), 2u);  // the CronJob's and the DaemonSet's
  EXPECT_EQ(found.images[2].origins[0].object, "CronJob/n/c");
  EXPECT_EQ(found.images[2].origins[0].field,
            "spec.jobTemplate.spec.template.spec.containers[0].image");
  EXPECT_EQ(found.images[3].origins[0].field,
            "spec.jobTemplate.spec.template.spec.initContainers[0].image");
  EXPECT_EQ(found.images[0].origins[0].field,
            "spec.source.helm.valuesObject.exporter.image.{repository,tag}");
  EXPECT_EQ(found.images[1].origins[0].object, "ClusterPolicy/p");
  ASSERT_EQ(found.packages.size(), 1u);
  EXPECT_EQ(found.packages[0].catalog, "registry.redhat.io/redhat/certified-operator-index:v4.19");
  ASSERT_EQ(found.charts.size(), 1u);
  EXPECT_EQ(found.charts[0].version, "1.0.0");
}

}  // namespace
