#pragma once

// Validate stage: a loaded profile against schemas/profile.schema.json (valijson, nlohmann
// adapter). Every fault is reported once, at the value (or, for unknown keys, at the key), with a
// rule id ("schema.minimum") and a fix taken from the schema's `x-fix` or `description`.

#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "schema/profile_schema.h"

namespace hkim {

/// Checks `profile` against `schema`, reporting every fault to `sink`. Returns true when valid.
bool ValidateProfile(const LoadedProfile& profile, const ProfileSchema& schema,
                     DiagnosticSink& sink);

/// Turns a valijson error context (["<root>", "[rails]", "[2]", "[mtu]"]) into a JSON pointer
/// ("/rails/2/mtu").
std::string ContextToPointer(const std::vector<std::string>& context);

}  // namespace hkim
