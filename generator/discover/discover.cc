#include "discover/discover.h"

#include <cctype>
#include <set>

#include "discover/address_plan.h"
#include "discover/adopt.h"
#include "discover/cluster_facts.h"
#include "discover/emit.h"
#include "discover/infer.h"

namespace hkim::discover {
namespace {

constexpr size_t kMaxName = 63;  // cluster.name is a DNS label

// "BM.GPU.H200.8" -> "bm-gpu-h200-8": lower-case letters and digits, '-' between runs.
std::string Slug(const std::string& text) {
  std::string slug;
  for (unsigned char c : text) {
    if (std::isalnum(c)) {
      slug += static_cast<char>(std::tolower(c));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug;
}

// Each group's name suffix ("-bm-gpu-h200-8"), distinct, and short enough that
// `base` + suffix is a DNS label.
std::vector<std::string> GroupSuffixes(const std::vector<DiscoveredProfile>& profiles,
                                       const std::string& base) {
  std::vector<std::string> slugs;
  for (const DiscoveredProfile& p : profiles) {
    const std::string type = Slug(p.group.instance_type), product = Slug(p.group.gpu_product);
    slugs.push_back(!type.empty() ? type : !product.empty() ? product : "gpus");
  }
  for (size_t i = 0; i < profiles.size(); ++i) {
    bool shared = false;
    for (size_t j = 0; j < profiles.size(); ++j) shared |= j != i && slugs[j] == slugs[i];
    const std::string product = Slug(profiles[i].group.gpu_product);
    if (shared && !product.empty() && slugs[i] != product) slugs[i] += "-" + product;
  }
  std::vector<std::string> suffixes;
  std::set<std::string> used;
  const size_t room = kMaxName > base.size() + 1 ? kMaxName - base.size() - 1 : 0;
  for (size_t i = 0; i < profiles.size(); ++i) {
    std::string slug = slugs[i].substr(0, room);
    while (!slug.empty() && slug.back() == '-') slug.pop_back();
    // Still the same as another's (cut short, or nothing to tell them apart): numbered.
    for (int n = 2; slug.empty() || used.count(slug); ++n) {
      const std::string number = "-" + std::to_string(n);
      std::string cut = slugs[i].substr(0, room > number.size() ? room - number.size() : 0);
      while (!cut.empty() && cut.back() == '-') cut.pop_back();
      slug = (cut.empty() ? "g" : cut) + number;
    }
    used.insert(slug);
    suffixes.push_back("-" + slug);
  }
  return suffixes;
}

}  // namespace

std::vector<Draft> DiscoverDrafts(std::vector<ExportInput> inputs, const DiscoverSettings& settings,
                                  DiagnosticSink& sink, SourceTexts* sources) {
  const std::string first_path = inputs.empty() ? std::string("<stdin>") : inputs.front().path;
  ExportSet exports = LoadExports(std::move(inputs), sink);
  // The exports' lines for the formatter, once every finding about them is in (JSON files'
  // lines are split only when one cites them).
  auto keep_sources = [&] {
    if (sources == nullptr) return;
    FillCitedSourceLines(exports, sink);
    for (const LoadedProfile& file : exports.files) (*sources)[file.path] = file.source_lines;
  };
  if (sink.HasErrors()) {
    keep_sources();
    return {};
  }
  ClusterFacts facts = ExtractFacts(exports, sink);
  // Findings about the export as a whole point at its first file.
  const SourceLocation where{first_path, 0, 0};
  std::vector<DiscoveredProfile> profiles =
      Infer(facts, where, settings.all_groups, settings.namespaces, sink);
  for (DiscoveredProfile& profile : profiles) {
    profile.namespaces = settings.namespaces;
    if (!settings.namespaces.empty()) profile.namespaces_from = "--namespace";
    if (profile.platform == "openshift") profile.adoption = InferAdoption(exports, profile);
  }
  const std::string base = settings.cluster_name.empty() ? "my-cluster" : settings.cluster_name;
  const std::vector<std::string> suffixes = settings.all_groups
                                                ? GroupSuffixes(profiles, base)
                                                : std::vector<std::string>(profiles.size());
  // The groups share the cluster: each group's drafted ranges keep clear of the earlier ones'.
  for (size_t i = 1; i < profiles.size(); ++i) {
    for (const DraftedAddresses& drafted : DraftAddresses(profiles[i - 1]))
      if (!drafted.cidr.empty()) profiles[i].exported_ranges.push_back(drafted.cidr);
    if (i >= 2)
      profiles[i].exported_ranges.insert(profiles[i].exported_ranges.end(),
                                         profiles[i - 1].exported_ranges.begin(),
                                         profiles[i - 1].exported_ranges.end());
  }
  std::vector<Draft> drafts;
  for (size_t i = 0; i < profiles.size(); ++i) {
    EmitOptions options{settings.cluster_name, suffixes[i], {}};
    if (settings.all_groups) {
      for (size_t j = 0; j < profiles.size(); ++j)
        if (j != i) options.other_names.push_back(base + suffixes[j]);
    }
    drafts.push_back({base + suffixes[i], EmitProfile(profiles[i], options)});
  }
  keep_sources();
  if (sink.HasErrors()) return {};
  return drafts;
}

std::string Discover(std::vector<ExportInput> inputs, const DiscoverSettings& settings,
                     DiagnosticSink& sink, SourceTexts* sources) {
  std::vector<Draft> drafts = DiscoverDrafts(std::move(inputs), settings, sink, sources);
  return drafts.empty() ? "" : drafts.front().text;
}

}  // namespace hkim::discover
