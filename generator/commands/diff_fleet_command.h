#pragma once

// `hkimgen diff A.yaml B.yaml ... -d DIR` (or a folder, or a quoted pattern): what the fleet
// render `render A B ... -d DIR` (render_fleet_command.h) would change in DIR, folder by folder
// (fleet/fleet_diff.h), with the same exit status as the single-profile diff.

#include <ostream>

#include "commands/diff_command.h"

namespace hkim {

/// Renders the fleet of `options.profiles` in memory (fleet/fleet.h, with -f/--set over every profile
/// and the --fleet-* options as render takes them) and compares it with `options.output_dir`,
/// which must exist. The plan on `out` (with -o json: the one JSON report), diagnostics on
/// `err` (a bundle of a removed cluster is a warning, fleet.removed-cluster). Returns 0 (no
/// change, or changes without --detailed-exitcode), 2 changes with --detailed-exitcode, 1 any
/// error (an invalid profile, the set's cross-profile rules, DIR missing or unreadable).
int RunDiffFleetCommand(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
