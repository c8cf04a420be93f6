#pragma once

// `hkimgen diff PROFILE -d DIR [-f FILE]... [--set PATH=VALUE]... [-o text|json]
// [--detailed-exitcode]`: what rendering would add, change (unified diff) and remove in DIR,
// with node-disruptive changes flagged. Exit status as Terraform's plan: 0 success, 1 error;
// with --detailed-exitcode 2 when there are changes.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "layering.h"

namespace hkim {

struct DiffOptions {
  LayerInputs layers;      ///< profile_path is PROFILE
  std::string output_dir;  ///< -d DIR: the bundle to compare with (it must exist)
  std::string format = "text";
  bool detailed_exitcode = false;  ///< exit 2 when there are changes
};

/// Adds the `diff` sub-command to `app`.
void SetupDiffCommand(CLI::App& app);

/// The plan on `out` (with -o json: the one JSON report, diagnostics included), diagnostics on
/// `err`. Returns 0 (no change, or changes without --detailed-exitcode), 2 changes with
/// --detailed-exitcode, 1 any error (invalid profile, DIR missing or unreadable).
int RunDiffCommand(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
