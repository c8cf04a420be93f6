// libFuzzer target over `--cluster`'s input edge: any bytes as a cluster export. Loading must
// never crash and never fail silently; what loads is compared with the shipped profiles (the one
// HKIM_FUZZ_PROFILE names, and barcelona-h100-cx7.yaml beside it, for the OpenShift checks), and
// every diagnostic about the export must name a place in it. Every object of a JSON export must
// start where the parser said (its '{'); every formatted diagnostic and node table, and the
// profile discover drafts from the same bytes, must hold no raw control character and stay a few
// KiB. A JSON input is also tried inside a List inside a List (exports pasted together).
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cluster_check/cluster_check.h"
#include "discover/discover.h"
#include "pipeline/profile_check.h"
#include "support/diagnostics_format.h"

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

// No byte a terminal acts on (C0 other than newline, DEL, ESC sequences) in text hkimgen prints.
void ExpectPrintable(const std::string& text, std::size_t max_line_bytes) {
  std::size_t line = 0;
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') {
      line = 0;
      continue;
    }
    if (u < 0x20 || u == 0x7f) std::abort();
    if (++line > max_line_bytes) std::abort();
  }
}

void CheckOne(const std::string& text, const std::vector<Built>& profiles) {
  hkim::DiagnosticSink sink;
  auto cluster = hkim::cluster_check::LoadClusterExport({{"fuzz.json", text}}, sink);
  if (!cluster && !sink.HasErrors()) std::abort();  // a failure must say why
  for (const hkim::Diagnostic& d : sink.diagnostics()) {
    if (d.location.file != "fuzz.json") std::abort();
    ExpectPrintable(hkim::FormatDiagnostic(d, {}), 16 * 1024);
  }
  if (!cluster) return;
  const hkim::discover::ExportSet& set = cluster->set;
  for (const hkim::discover::ExportObject& object : set.objects) {
    const std::string& json = set.texts[object.file];
    if (!json.empty() && (object.offset >= json.size() || json[object.offset] != '{')) std::abort();
  }
  std::vector<hkim::cluster_check::ProfileReport> reports;
  for (const Built& built : profiles) {
    hkim::DiagnosticSink checks;
    reports.push_back(
        hkim::cluster_check::CheckProfile(built.profile, built.plan, built.loaded, *cluster, checks));
    ExpectPrintable(hkim::cluster_check::FormatNodeTable(reports.back()), 16 * 1024);
    (void)hkim::cluster_check::NodeTableJson(reports.back()).dump();
    for (const hkim::Diagnostic& d : checks.diagnostics()) {
      ExpectPrintable(hkim::FormatDiagnostic(d, {}), 16 * 1024);
    }
  }
  if (!profiles.empty()) {
    hkim::DiagnosticSink unpicked;
    hkim::cluster_check::CheckUnpickedNodes(reports, profiles.front().profile,
                                            profiles.front().loaded, *cluster, unpicked);
  }
  hkim::DiagnosticSink drafted;
  const std::string draft = hkim::discover::Discover({{"fuzz.json", text}}, {}, drafted);
  ExpectPrintable(draft, 16 * 1024);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Built> profiles = LoadProfiles();
  const std::string text(reinterpret_cast<const char*>(data), size);
  CheckOne(text, profiles);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    CheckOne("{\"kind\":\"List\",\"items\":[1,{\"kind\":\"NodeList\",\"items\":[" + text +
                 ",\"x\"]}," + text + "]}",
             profiles);
  }
  return 0;
}
