// libFuzzer target: arbitrary bytes as `--set` arguments (one per line) over a shipped profile,
// then the rest of the pipeline on what they produced (validate, model, lint, plan, render).
// Slower than set_fuzzer (the parser alone) by a whole render per accepted input. Every failure
// must say why; nothing may crash or throw.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "base_profile.h"
#include "pipeline/pipeline.h"
#include "support/diagnostics_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> assignments = hkim::fuzz::SetArguments(data, size);
  hkim::LayeredProfile layered = hkim::fuzz::BaseProfile();
  hkim::DiagnosticSink sink;
  if (!hkim::ApplySetAssignments(assignments, layered, sink)) return 0;  // set_fuzzer's part
  std::optional<hkim::RenderedBundle> bundle = hkim::RenderLoadedProfile(layered.merged, sink);
  if (!bundle && !sink.HasErrors()) std::abort();  // a failure must say why
  hkim::SourceTexts sources = layered.Sources();
  (void)hkim::FormatDiagnostics(sink, sources);
  (void)hkim::DiagnosticsToJson(sink).dump();  // throws on invalid UTF-8: must not
  return 0;
}
