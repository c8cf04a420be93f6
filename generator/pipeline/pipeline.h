#pragma once

// The one place that knows the order of the stages:
//   load → validate → model (BuildProfile) → plan (PlanBundle) → render → write.
// Each stage reports every error it finds to the sink; the pipeline stops after a stage that
// reported errors.

#include <functional>
#include <optional>
#include <string>

#include "support/diagnostics.h"
#include "support/diagnostics_format.h"
#include "layering/layering.h"
#include "load/load.h"
#include "model/model.h"
#include "plan/plan.h"
#include "render/render.h"

namespace hkim {

class RenderPreparation;  // pipeline/prepare.h

/// Choices every render path shares; the defaults are a normal single-profile render.
struct RenderSettings {
  RenderCheck check = RenderCheck::kByConstruction;  ///< kReparse: `render --verify`, tests
  /// Applied to the typed profile after the model stage and before the plan; a fleet render
  /// (fleet/fleet.h) sets the bundle's folder and Argo CD projects here. Empty: nothing changes.
  std::function<void(Profile&)> adjust_profile;
  /// Called with the number of objects the plan holds (plus its bundle files) once planned, and
  /// with 1 for each file rendered; may be empty. Called from the rendering threads.
  std::function<void(size_t planned, size_t rendered)> progress;
  /// Threads rendering the bundle's objects (the bytes do not depend on it). 1 inside a fleet,
  /// whose threads each render a profile.
  unsigned jobs = 1;
  /// When set, the templates are parsed ahead on its thread as the plan names them (prepare.h).
  RenderPreparation* preparation = nullptr;
  /// Called with each file once rendered (-d into a new folder: write/write_behind.h writes it
  /// while the rest renders); from the rendering threads; may be empty.
  FileRendered file_rendered;
};

/// A profile's render with what came before it: the fleet stage plans `_fleet/` from the typed
/// profile and the bundle plan (kinds, namespaces, destinations).
struct ProfileRender {
  Profile profile;
  BundlePlan plan;  ///< the objects' identities; their template contexts are released (null)
  RenderedBundle bundle;
};

/// The same as RenderLoadedProfile, keeping the profile and the plan. Safe to call from several
/// threads at once, each with its own sink: the schema and templates are parsed once per process
/// and only read afterwards.
std::optional<ProfileRender> RenderLoadedProfileWithPlan(const LoadedProfile& loaded,
                                                         DiagnosticSink& sink,
                                                         const RenderSettings& settings = {});

/// Validate → model → plan → render for a profile already loaded (or merged from layers).
/// Returns nullopt after the first stage that reported errors.
std::optional<RenderedBundle> RenderLoadedProfile(const LoadedProfile& loaded,
                                                  DiagnosticSink& sink,
                                                  const RenderSettings& settings = {});

/// The embedded templates, parsed on first use and shared (read-only) by every render of the
/// process. Reports template errors to `sink` on every call while they exist.
const TemplateSet* SharedEmbeddedTemplates(DiagnosticSink& sink);

/// Load → validate → model → plan → render for one profile file. Fills `sources` (when given) with
/// the profile's lines, for the diagnostics formatter.
std::optional<RenderedBundle> RenderProfileFile(const std::string& path, DiagnosticSink& sink,
                                                SourceTexts* sources = nullptr);

/// The same with layers (layering/layering.h): the profile's `extends:` bases, `-f` files and `--set`
/// assignments are merged before validation; `sources` gets every layer's lines.
std::optional<RenderedBundle> RenderProfileLayers(const LayerInputs& inputs, DiagnosticSink& sink,
                                                  SourceTexts* sources = nullptr,
                                                  const RenderSettings& settings = {});

/// Where a rendered bundle goes.
struct WriteTarget {
  std::string output_dir;  ///< empty: the YAML stream on `stream`
  bool check = false;      ///< compare with output_dir instead of writing (needs output_dir)
  /// --check's fix for a stale bundle (the command that renders it); empty: a generic one.
  std::string check_fix;
};

/// The last stage: writes (or checks) `bundle` as `target` says. Returns false after reporting.
bool WriteStage(const RenderedBundle& bundle, const WriteTarget& target, std::ostream& stream,
                DiagnosticSink& sink);

/// The process exit status for what `sink` holds (ARCHITECTURE.md): 0 no errors; 2 when an
/// error is an I/O or internal failure (rules "io.*", "internal.*", "template.*", "render.*",
/// "schema.invalid", "schema.missing", "schema.internal"); else 1 (invalid input); 130 when
/// the write was interrupted ("write.interrupted": Ctrl-C or SIGTERM).
int ExitCodeFor(const DiagnosticSink& sink);

}  // namespace hkim
