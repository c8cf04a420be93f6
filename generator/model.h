#pragma once

// The typed profile. Owned by the model stage (model.cc); see schemas/profile.schema.json for
// the meaning and defaults of every field.

#include <optional>

#include "diagnostics.h"
#include "load.h"

namespace hkim {

struct Profile;  // defined below by the model stage

/// Builds the typed profile from a schema-valid document, applying the schema's defaults, and runs
/// the cross-field checks the schema cannot express. Reports to `sink` with source locations.
std::optional<Profile> BuildProfile(const LoadedProfile& loaded, DiagnosticSink& sink);

}  // namespace hkim
