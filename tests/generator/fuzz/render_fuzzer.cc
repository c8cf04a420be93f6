// libFuzzer target: arbitrary bytes as a profile through the whole pipeline (load, validate,
// model, lint, plan, render, the YAML stream, both diagnostic formats). Every failure must say
// why; nothing may crash, throw or run away with memory.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "support/diagnostics_format.h"
#include "load/load.h"
#include "pipeline/pipeline.h"
#include "write/write.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  hkim::DiagnosticSink sink;
  std::optional<hkim::LoadedProfile> loaded = hkim::LoadProfileFromText("fuzz.yaml", text, sink);
  if (!loaded && !sink.HasErrors()) std::abort();  // a failure must say why
  if (loaded) {
    std::optional<hkim::RenderedBundle> bundle = hkim::RenderLoadedProfile(*loaded, sink);
    if (!bundle && !sink.HasErrors()) std::abort();
    if (bundle) {
      std::ostringstream stream;
      if (!hkim::WriteBundleStream(*bundle, stream, sink)) std::abort();
    }
  }
  hkim::SourceTexts sources{{"fuzz.yaml", hkim::LoadProfileFromTextLines(text)}};
  (void)hkim::FormatDiagnostics(sink, sources);
  (void)hkim::DiagnosticsToJson(sink).dump();  // throws on invalid UTF-8: must not
  return 0;
}
