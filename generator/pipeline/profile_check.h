#pragma once

// The checking half of the pipeline, shared by `validate`, `lint`, `explain` and `diff`:
// layered load (extends, -f, --set) → validate (schema) → model → lint → the plan's closure
// check (plan/closure.h; what render would refuse). Writes nothing.

#include <optional>

#include "support/diagnostics.h"
#include "support/diagnostics_format.h"
#include "layering/layering.h"
#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// A profile that went through every check. `profile` is set when the model stage built it
/// (schema-valid, no model errors); lint findings are in the sink.
struct CheckedProfile {
  LayeredProfile layered;
  std::optional<Profile> profile;
  /// The bundle the closure check planned (set with `profile`): what the cluster check and the
  /// set checks compare, so that no check beside the pipeline plans the profile again.
  std::optional<BundlePlan> plan;
};

/// Runs the checks in order and stops after the first stage that reported errors (layering and
/// YAML, then schema, then model); lint runs when the model was built. Returns nullopt only
/// when the layers could not be loaded. `sources` receives every file's lines for the formatter.
std::optional<CheckedProfile> CheckLayeredProfile(const LayerInputs& inputs, DiagnosticSink& sink,
                                                  SourceTexts* sources = nullptr);

/// Validate → model → lint → closure for a document already merged. Returns the profile when every stage
/// passed (lint warnings allowed); lint also runs after the model's cross-field errors.
/// `plan`, when given, receives the planned bundle.
std::optional<Profile> CheckLoadedProfile(const LoadedProfile& loaded, DiagnosticSink& sink,
                                          BundlePlan* plan = nullptr);

}  // namespace hkim
