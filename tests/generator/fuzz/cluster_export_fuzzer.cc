// libFuzzer target over `--cluster`'s input edge: any bytes as a cluster export. Loading must
// never crash and never fail silently; what loads is compared with the shipped profiles (the one
// HKIM_FUZZ_PROFILE names, and barcelona-h100-cx7.yaml beside it, for the OpenShift checks), and
// every diagnostic about the export must name a place in it.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cluster_check/cluster_check.h"
#include "pipeline/profile_check.h"

namespace {

struct Built {
  hkim::LoadedProfile loaded;
  hkim::Profile profile;
  hkim::BundlePlan plan;
};

std::vector<Built> LoadProfiles() {
  std::vector<Built> built;
  const char* env = std::getenv("HKIM_FUZZ_PROFILE");
  if (env == nullptr) return built;
  const std::filesystem::path first(env);
  for (const std::filesystem::path& path : {first, first.parent_path() / "barcelona-h100-cx7.yaml"}) {
    hkim::DiagnosticSink sink;
    std::optional<hkim::LoadedProfile> loaded = hkim::LoadProfile(path.string(), sink);
    if (!loaded) continue;
    hkim::BundlePlan plan;
    std::optional<hkim::Profile> profile = hkim::CheckLoadedProfile(*loaded, sink, &plan);
    if (profile) built.push_back({std::move(*loaded), std::move(*profile), std::move(plan)});
  }
  return built;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Built> profiles = LoadProfiles();
  const std::string text(reinterpret_cast<const char*>(data), size);
  hkim::DiagnosticSink sink;
  auto cluster = hkim::cluster_check::LoadClusterExport({{"fuzz.json", text}}, sink);
  if (!cluster && !sink.HasErrors()) std::abort();  // a failure must say why
  for (const hkim::Diagnostic& d : sink.diagnostics()) {
    if (d.location.file != "fuzz.json") std::abort();
  }
  if (!cluster) return 0;
  std::vector<hkim::cluster_check::ProfileReport> reports;
  for (const Built& built : profiles) {
    hkim::DiagnosticSink checks;
    reports.push_back(hkim::cluster_check::CheckProfile(built.profile, built.plan, built.loaded, *cluster, checks));
    (void)hkim::cluster_check::FormatNodeTable(reports.back());
    (void)hkim::cluster_check::NodeTableJson(reports.back()).dump();
  }
  if (!profiles.empty()) {
    hkim::DiagnosticSink unpicked;
    hkim::cluster_check::CheckUnpickedNodes(reports, profiles.front().profile,
                                            profiles.front().loaded, *cluster, unpicked);
  }
  return 0;
}
