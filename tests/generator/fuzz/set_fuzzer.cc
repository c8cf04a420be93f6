// libFuzzer target over the `--set` parser alone: arbitrary bytes as `--set` arguments (one per
// line) applied to a shipped profile (ApplySetAssignments: splitting at commas, paths, `[N]` and
// `[name=X]` look-ups, scalar typing, `{a,b}` lists, the merge into the layered document). Every
// failure must say why at the `--set` layer; nothing may crash or throw; the diagnostics must
// format and serialize. The pipeline on what it produced is set_render_fuzzer.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "base_profile.h"
#include "support/diagnostics_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> assignments = hkim::fuzz::SetArguments(data, size);
  hkim::LayeredProfile layered = hkim::fuzz::BaseProfile();
  hkim::DiagnosticSink sink;
  const bool applied = hkim::ApplySetAssignments(assignments, layered, sink);
  if (!applied && !sink.HasErrors()) std::abort();  // a failure must say why
  if (applied && !layered.merged.document.is_object()) std::abort();
  for (const hkim::Diagnostic& d : sink.diagnostics()) {
    if (d.severity == hkim::Severity::kError && d.location.file != hkim::kSetLayerFile) std::abort();
  }
  hkim::SourceTexts sources{{hkim::kSetLayerFile, assignments}};
  (void)hkim::FormatDiagnostics(sink, sources);
  (void)hkim::DiagnosticsToJson(sink).dump();  // throws on invalid UTF-8: must not
  return 0;
}
