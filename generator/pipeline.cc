#include "pipeline.h"

#include <fstream>
#include <sstream>

#include "model.h"
#include "plan.h"
#include "validate.h"
#include "write.h"

namespace hkim {

std::optional<RenderedBundle> RenderLoadedProfile(const LoadedProfile& loaded,
                                                  DiagnosticSink& sink) {
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  if (!schema) return std::nullopt;
  if (!ValidateProfile(loaded, *schema, sink) || sink.HasErrors()) return std::nullopt;

  std::optional<Profile> profile = BuildProfile(loaded, sink);
  if (!profile || sink.HasErrors()) return std::nullopt;

  const BundlePlan plan = PlanBundle(*profile);

  std::optional<TemplateSet> templates = ParseEmbeddedTemplates(sink);
  if (!templates) return std::nullopt;
  std::optional<RenderedBundle> bundle = RenderBundle(plan, *templates, sink);
  if (!bundle || sink.HasErrors()) return std::nullopt;
  return bundle;
}

std::optional<RenderedBundle> RenderProfileFile(const std::string& path, DiagnosticSink& sink,
                                                SourceTexts* sources) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  // Read here rather than in LoadProfile so that the lines are known even when loading fails
  // (a syntax error still shows its line); LoadProfile reports the unreadable file.
  std::optional<LoadedProfile> loaded = in ? LoadProfileFromText(path, text.str(), sink)
                                           : LoadProfile(path, sink);
  if (sources) {
    (*sources)[path] = loaded ? loaded->source_lines
                              : LoadProfileFromTextLines(text.str());
  }
  if (!loaded || sink.HasErrors()) return std::nullopt;
  return RenderLoadedProfile(*loaded, sink);
}

bool WriteStage(const RenderedBundle& bundle, const WriteTarget& target, std::ostream& stream,
                DiagnosticSink& sink) {
  if (target.check) return CheckBundleDir(bundle, target.output_dir, sink);
  if (target.output_dir.empty()) return WriteBundleStream(bundle, stream, sink);
  return WriteBundleDir(bundle, target.output_dir, sink);
}

int ExitCodeFor(const DiagnosticSink& sink) {
  bool any_error = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity != Severity::kError) continue;
    any_error = true;
    const std::string& rule = d.rule;
    for (const char* prefix : {"io.", "internal.", "template.", "render."}) {
      if (rule.rfind(prefix, 0) == 0) return 2;
    }
    if (rule == "schema.invalid" || rule == "schema.missing" || rule == "schema.internal") {
      return 2;
    }
  }
  return any_error ? 1 : 0;
}

}  // namespace hkim
