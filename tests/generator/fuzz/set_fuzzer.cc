// libFuzzer target: arbitrary bytes as `--set` assignments (one per line) over a shipped profile,
// through the rest of the pipeline. Every failure must say why; nothing may crash or throw.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/diagnostics_format.h"
#include "layering/layering.h"
#include "load/load.h"
#include "pipeline/pipeline.h"

namespace {

const hkim::LayeredProfile& Base() {
  static const hkim::LayeredProfile* base = [] {
    hkim::DiagnosticSink sink;
    const char* dir = std::getenv("HKIM_FUZZ_PROFILE");
    auto layered = hkim::LoadLayeredProfile(
        hkim::LayerInputs{dir ? dir : "profiles/oke-h100.yaml", {}, {}}, sink);
    if (!layered) std::abort();  // run from the repository root, or set HKIM_FUZZ_PROFILE
    return new hkim::LayeredProfile(std::move(*layered));
  }();
  return *base;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> assignments;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) assignments.push_back(line);
  hkim::LayeredProfile layered = Base();
  hkim::DiagnosticSink sink;
  const bool applied = hkim::ApplySetAssignments(assignments, layered, sink);
  if (!applied && !sink.HasErrors()) std::abort();  // a failure must say why
  if (applied) {
    hkim::LoadedProfile merged = layered.merged;
    std::optional<hkim::RenderedBundle> bundle = hkim::RenderLoadedProfile(merged, sink);
    if (!bundle && !sink.HasErrors()) std::abort();
  }
  hkim::SourceTexts sources{{hkim::kSetLayerFile, assignments}};
  (void)hkim::FormatDiagnostics(sink, sources);
  (void)hkim::DiagnosticsToJson(sink).dump();  // throws on invalid UTF-8: must not
  return 0;
}
