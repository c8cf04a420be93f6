#include "pipeline/pipeline.h"

#include <fstream>
#include <mutex>
#include <sstream>

#include "lint/lint.h"
#include "model/model.h"
#include "pipeline/prepare.h"
#include "plan/closure.h"
#include "plan/likely_templates.h"
#include "plan/plan.h"
#include "validate/validate.h"
#include "write/write.h"

namespace hkim {

const TemplateSet* SharedEmbeddedTemplates(DiagnosticSink& sink) {
  static std::once_flag once;
  static std::optional<TemplateSet> templates;
  static DiagnosticSink parse_errors;
  std::call_once(once, [] { templates = ParseEmbeddedTemplates(parse_errors); });
  for (const Diagnostic& d : parse_errors.diagnostics()) sink.Report(d);
  return templates ? &*templates : nullptr;
}

std::optional<ProfileRender> RenderLoadedProfileWithPlan(const LoadedProfile& loaded,
                                                         DiagnosticSink& sink,
                                                         const RenderSettings& settings) {
  if (settings.preparation) {  // parsed while the profile is checked and planned, first first
    const std::vector<std::string>& likely = LikelyTemplates();
    settings.preparation->ParseTemplates({likely.rbegin(), likely.rend()});
  }
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  if (!schema) return std::nullopt;
  if (!ValidateProfile(loaded, *schema, sink) || sink.HasErrors()) return std::nullopt;

  // Cross-object rules (lint/lint.h) run even after the model's cross-field errors, so every fault
  // is reported in one run; lint warnings do not stop the render.
  std::optional<Profile> profile = BuildProfileForLint(loaded, sink);
  if (!profile) return std::nullopt;
  RunLint(*profile, loaded, sink);
  if (sink.HasErrors()) return std::nullopt;

  if (settings.adjust_profile) settings.adjust_profile(*profile);

  const TemplateSet* templates = SharedEmbeddedTemplates(sink);
  if (!templates) return std::nullopt;
  FileRendered rendered;
  if (settings.progress || settings.file_rendered) {
    rendered = [&settings](const RenderedFile& file) {
      if (settings.progress) settings.progress(0, 1);
      if (settings.file_rendered) settings.file_rendered(file);
    };
  }
  // Rendered while planned, a few namespaces at a time, and each object's template context
  // released once rendered (peak memory); the objects' identities stay for the fleet plan.
  RenderAhead ahead(*templates, settings.check, settings.jobs, rendered);
  size_t counted = 0;  // objects the progress total holds so far
  BundlePlan plan = PlanBundle(*profile, [&](BundlePlan& planned) {
    if (settings.preparation) {
      std::vector<std::string> names;
      for (size_t i = counted; i < planned.objects.size(); ++i) {
        names.push_back(planned.objects[i].template_name);
      }
      settings.preparation->ParseTemplates(names);
    }
    if (settings.progress) settings.progress(planned.objects.size() - counted, 0);
    counted = planned.objects.size();
    ahead.Render(planned);
  });
  if (settings.preparation) settings.preparation->ParseTemplates(TemplateNamesInRenderOrder(plan), true);
  // Closure (closure.h): every need of the plan met by the bundle, the platform or a
  // precondition. Nothing is written after an error (the files rendered ahead are dropped).
  if (CheckClosure(*profile, loaded, plan, sink) > 0) return std::nullopt;
  if (settings.progress) {
    settings.progress(
        plan.objects.size() + plan.layer_files.size() + plan.bootstrap.size() + 3 - counted, 0);
  }
  std::optional<RenderedBundle> bundle = RenderBundle(std::move(plan), *templates, sink,
                                                      settings.check, rendered, settings.jobs,
                                                      &ahead);
  if (!bundle || sink.HasErrors()) return std::nullopt;
  return ProfileRender{std::move(*profile), std::move(plan), std::move(*bundle)};
}

std::optional<RenderedBundle> RenderLoadedProfile(const LoadedProfile& loaded,
                                                  DiagnosticSink& sink,
                                                  const RenderSettings& settings) {
  std::optional<ProfileRender> render = RenderLoadedProfileWithPlan(loaded, sink, settings);
  if (!render) return std::nullopt;
  return std::move(render->bundle);
}

std::optional<RenderedBundle> RenderProfileFile(const std::string& path, DiagnosticSink& sink,
                                                SourceTexts* sources) {
  return RenderProfileLayers(LayerInputs{path, {}, {}}, sink, sources);
}

std::optional<RenderedBundle> RenderProfileLayers(const LayerInputs& inputs, DiagnosticSink& sink,
                                                  SourceTexts* sources,
                                                  const RenderSettings& settings) {
  // Layering (extends:, -f, --set) keeps every file's lines in `sources`, even on failure.
  std::optional<LayeredProfile> layered = LoadLayeredProfile(inputs, sink, sources);
  if (!layered || sink.HasErrors()) return std::nullopt;
  return RenderLoadedProfile(layered->merged, sink, settings);
}

bool WriteStage(const RenderedBundle& bundle, const WriteTarget& target, std::ostream& stream,
                DiagnosticSink& sink) {
  if (target.check) return CheckBundleDir(bundle, target.output_dir, sink, target.check_fix);
  if (target.output_dir.empty()) return WriteBundleStream(bundle, stream, sink);
  return WriteBundleDir(bundle, target.output_dir, sink);
}

int ExitCodeFor(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    // Ctrl-C: 130 as a shell reports SIGINT, whatever else was reported (support/interrupt.h).
    if (d.rule == "write.interrupted") return 130;
  }
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
