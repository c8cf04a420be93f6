#include "discover/discover.h"

#include "discover/adopt.h"
#include "discover/cluster_facts.h"
#include "discover/emit.h"
#include "discover/infer.h"

namespace hkim::discover {

std::string Discover(const std::vector<ExportInput>& inputs, const DiscoverSettings& settings,
                     DiagnosticSink& sink, SourceTexts* sources) {
  ExportSet exports = LoadExports(inputs, sink);
  // The exports' lines for the formatter, once every finding about them is in (JSON files'
  // lines are split only when one cites them).
  auto keep_sources = [&] {
    if (sources == nullptr) return;
    FillCitedSourceLines(exports, sink);
    for (const LoadedProfile& file : exports.files) (*sources)[file.path] = file.source_lines;
  };
  if (sink.HasErrors()) {
    keep_sources();
    return "";
  }
  ClusterFacts facts = ExtractFacts(exports, sink);
  // Findings about the export as a whole point at its first file.
  const SourceLocation where{inputs.empty() ? std::string("<stdin>") : inputs.front().path, 0, 0};
  std::vector<DiscoveredProfile> profiles = Infer(facts, where, settings.all_groups, sink);
  for (DiscoveredProfile& profile : profiles) {
    profile.namespaces = settings.namespaces;
    if (!settings.namespaces.empty()) profile.namespaces_from = "--namespace";
    if (profile.platform == "openshift") profile.adoption = InferAdoption(exports, profile);
  }
  std::string text;
  for (size_t i = 0; i < profiles.size(); ++i) {
    EmitOptions options{settings.cluster_name, i == 0 ? "" : "-" + std::to_string(i + 1)};
    if (i > 0) text += "---\n";
    text += EmitProfile(profiles[i], options);
  }
  keep_sources();
  return sink.HasErrors() ? "" : text;
}

}  // namespace hkim::discover
