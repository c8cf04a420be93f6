#pragma once

// Accepting warnings, per run (`--allow RULE`) or per profile (`accept_warnings:` with a
// reason). An accepted warning is not hidden: it stays in the report as a note that names the
// reason, and it no longer counts as a warning (so --strict and lint pass).

#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "layering/layering.h"

namespace hkim {

/// The diagnostics of `sink` with every warning whose rule is accepted turned into a note
/// "accepted (REASON): MESSAGE". Rules come from `allow` (reason "--allow") and from the
/// profile's `accept_warnings`, read from `merged` (the profile's merged layers as the command
/// loaded them; nullptr when they did not load). Reports an unknown rule id, or a rule that
/// reports errors (which cannot be accepted), as an error. A diagnostic located in an
/// `extends:` base of `merged` also gets the way to it from the profile (AddIncludedFrom).
DiagnosticSink AcceptWarnings(const DiagnosticSink& sink, const LoadedProfile* merged,
                              const std::vector<std::string>& allow);

}  // namespace hkim
