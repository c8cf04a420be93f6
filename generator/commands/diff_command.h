#pragma once

// `hkimgen diff PROFILE -o DIR [-f FILE]... [--set PATH=VALUE]... [--output text|json]`: what
// rendering would add, change (unified diff) and remove in DIR, with node-disruptive changes
// flagged. Terraform's -detailed-exitcode: 0 no change, 2 changes, 1 error.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "layering.h"

namespace hkim {

struct DiffOptions {
  LayerInputs layers;      ///< profile_path is PROFILE
  std::string output_dir;  ///< -o DIR: the bundle to compare with
  std::string format = "text";
};

/// Adds the `diff` sub-command to `app`.
void SetupDiffCommand(CLI::App& app);

/// The plan on `out`, diagnostics on `err`. Returns 0 no change, 2 changes, 1 any error
/// (invalid profile, unreadable DIR).
int RunDiffCommand(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
