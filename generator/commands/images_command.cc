#include "commands/images_command.h"

#include <iostream>
#include <memory>

#include "commands/acceptance.h"
#include "commands/cli_support.h"
#include "commands/layer_options.h"
#include "fleet/fleet.h"
#include "images/images.h"
#include "images/imageset.h"
#include "pipeline/pipeline.h"

namespace hkim {
namespace {

const std::vector<std::string> kFormats = {"text", "json", "imageset"};

constexpr char kFooter[] = R"(
Examples:
  hkimgen images profiles/barcelona-h100-cx7.yaml
  hkimgen images profiles/ -o json
  hkimgen images profiles/ -o imageset > imageset.yaml
  oc-mirror --config imageset.yaml file:///srv/mirror --v2
  oc-mirror --config imageset.yaml --from file:///srv/mirror docker://mirror.example.internal:5000 --v2
  hkimgen images profiles/oke-h100.yaml --set images.mirror=mirror.example.com:5000/gpu

Renders each profile (writes nothing) and lists every image reference the bundle makes the
cluster pull, as its plan records them (a test holds them equal to the rendered documents,
field by field): pod and init containers of every workload kind, image fields of operator
custom resources (NicClusterPolicy repository/image:version, the NFD operand, ClusterPolicy
components where set) and images set in chart values. Text: one image per line, sorted and
without duplicates, then lines starting with "# olm:" (an operator installed from a catalog:
package, channel, catalog source and index image) and "# chart:" (a Helm chart an Argo CD
Application installs): those operators pull their own images, which oc-mirror finds in the
catalog and the chart. Pipe the images alone with `grep -v '^#'`.
-o json gives each image with where it comes from (bundle, file, object, field); -o imageset an
oc-mirror v2 ImageSetConfiguration (mirror.openshift.io/v2alpha1): the catalogs with the
bundle's packages and channels, the Helm repositories and charts, every image as
additionalImages. Several profiles (files, folders, quoted patterns) give one list for all.
The two oc-mirror lines are its v2 disk workflow, as docs/disconnected.md: the connected side
fills /srv/mirror, the side inside pushes it to the mirror registry.
Exit status: 0 ok, 1 invalid profile, 2 I/O or internal failure.)";

nlohmann::json OriginJson(const ImageOrigin& origin) {
  return {{"bundle", origin.bundle},
          {"file", origin.file},
          {"object", origin.object},
          {"field", origin.field}};
}

nlohmann::json ImagesJson(const BundleImages& images) {
  nlohmann::json list = nlohmann::json::array();
  for (const ImageUse& use : images.images) {
    nlohmann::json origins = nlohmann::json::array();
    for (const ImageOrigin& origin : use.origins) origins.push_back(OriginJson(origin));
    list.push_back({{"image", use.image}, {"origins", origins}});
  }
  nlohmann::json packages = nlohmann::json::array();
  for (const OlmPackage& p : images.packages) {
    packages.push_back({{"package", p.package},
                        {"channel", p.channel},
                        {"source", p.source},
                        {"source_namespace", p.source_namespace},
                        {"catalog", p.catalog},
                        {"origin", OriginJson(p.origin)}});
  }
  nlohmann::json charts = nlohmann::json::array();
  for (const HelmChart& c : images.charts) {
    charts.push_back({{"repo_url", c.repo_url},
                      {"chart", c.chart},
                      {"version", c.version},
                      {"origin", OriginJson(c.origin)}});
  }
  return {{"images", list}, {"olm_packages", packages}, {"charts", charts}};
}

void PrintText(const BundleImages& images, std::ostream& out) {
  for (const ImageUse& use : images.images) out << use.image << '\n';
  for (const OlmPackage& p : images.packages) {
    out << "# olm: " << p.package << " channel " << p.channel << " from " << p.source << " ("
        << (p.catalog.empty() ? "catalog image unknown" : p.catalog) << ")\n";
  }
  for (const HelmChart& c : images.charts) {
    out << "# chart: " << c.repo_url << " " << c.chart << " " << c.version << '\n';
  }
}

}  // namespace

void SetupImagesCommand(CLI::App& app) {
  auto options = std::make_shared<ImagesOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* command = app.add_subcommand(
      "images",
      "List every image the rendered bundle pulls (or an oc-mirror ImageSetConfiguration)");
  command
      ->add_option("PROFILE", options->profiles,
                   "Cluster profiles (YAML), folders of them or quoted patterns; - reads stdin")
      ->required();
  AddLayerOptions(command, options->layers);
  AddAllowOption(command, options->allow);
  AddOutputOption(command, *output, kFormats);
  command->footer(kFooter);
  command->callback([options, output] {
    if (!ResolveOutputChoice(*output, kFormats, "images", "", "", std::cerr)) FinishCommand(1);
    options->format = output->format;
    FinishCommand(RunImagesCommand(*options, std::cout, std::cerr));
  });
}

int RunImagesCommand(const ImagesOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  SourceTexts sources;
  BundleImages all;
  for (const std::string& profile : ExpandProfileArgs(options.profiles, sink)) {
    LayerInputs inputs = options.layers;
    inputs.profile_path = profile;
    DiagnosticSink one;
    std::optional<LayeredProfile> layered = LoadLayeredProfile(inputs, one, &sources);
    if (layered && !one.HasErrors()) {
      if (std::optional<ProfileRender> render = RenderLoadedProfileWithPlan(layered->merged, one)) {
        const Profile& p = render->profile;
        if (options.format == "imageset" && p.images.enabled()) {
          // The model rewrote every reference to the mirror, keeping only the path: the
          // registry each came from (docker.io, nvcr.io, registry.k8s.io, ...) is gone, and an
          // ImageSetConfiguration must name the sources oc-mirror copies from.
          const std::string pointer = p.images.pointer + "/mirror";
          one.Report(Diagnostic{Severity::kError, layered->merged.locations.Find(pointer), pointer,
                                "images.imageset-mirrored",
                                "-o imageset names the sources oc-mirror copies from, but this "
                                "profile's images.mirror rewrites every image and chart to the "
                                "mirror, where their upstream registries are lost",
                                "run -o imageset on the profile without its images section (the "
                                "upstream references), mirror with it, then render the profile "
                                "with images.mirror"});
        } else {
          const CatalogIndex catalogs = KnownCatalogs(
              p.operators ? p.operators->openshift_version : "", p.images.catalog_sources);
          MergeImages(all, CollectImages(render->plan, catalogs));
        }
      }
    }
    one = AcceptWarnings(one, layered ? &layered->merged : nullptr, options.allow);
    for (const Diagnostic& d : one.diagnostics()) sink.Report(d);
  }
  std::string imageset;
  if (!sink.HasErrors() && options.format == "imageset") {
    imageset = ImageSetConfiguration(all, sink);
  }
  const int status = ExitCodeFor(sink);
  if (options.format == "json") {
    out << DumpJson(
               JsonReport("images", status, sink, status == 0 ? ImagesJson(all) : nlohmann::json()))
        << '\n';
    return status;
  }
  PrintDiagnostics(sink, sources, err);
  if (status != 0) return status;
  if (options.format == "imageset") {
    out << "# oc-mirror v2 ImageSetConfiguration written by hkimgen images -o imageset:\n"
        << "#   oc-mirror --config imageset.yaml file://DIR --v2                   (connected side)\n"
        << "#   oc-mirror --config imageset.yaml --from file://DIR docker://MIRROR --v2   (inside)\n"
        << imageset;
  } else {
    PrintText(all, out);
  }
  return status;
}

}  // namespace hkim
