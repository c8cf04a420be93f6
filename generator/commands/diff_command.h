#pragma once

// `hkimgen diff PROFILE -d DIR [-f FILE]... [--set PATH=VALUE]... [-o text|json]
// [--detailed-exitcode]`: what rendering would add, change (unified diff) and remove in DIR,
// with node-disruptive changes flagged. Exit status as Terraform's plan: 0 success, 1 error;
// with --detailed-exitcode (or --check) 2 when there are changes. Several profiles, a folder or
// a quoted pattern compare a fleet render (diff_fleet_command.h).

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "support/diagnostics_format.h"
#include "layering/layering.h"
#include "fleet/plan_fleet.h"
#include "load/load.h"
#include "plan/plan.h"
#include "diff/bundle_diff.h"

namespace hkim {

struct DiffOptions {
  LayerInputs layers;  ///< profile_path is PROFILE (the single-profile diff)
  /// Every PROFILE argument; several, a folder or a pattern compare a fleet (IsProfileSet).
  std::vector<std::string> profiles;
  unsigned jobs = 0;                              ///< -j N: fleet profiles rendered at once
  std::string fleet_path;                         ///< --fleet-path, as render's
  std::string fleet_name = FleetSettings{}.name;  ///< --fleet-name, as render's
  std::string fleet_namespace = FleetSettings{}.argocd_namespace;  ///< --fleet-namespace
  std::string output_dir;  ///< -d DIR: the bundle to compare with (it must exist)
  std::string wrapper_digest;  ///< --wrapper-digest, as render's
  bool wrapper_digest_given = false;  ///< as render's
  std::vector<std::string> image_digests;  ///< --image-digest IMAGE=DIGEST..., as render's
  std::string format = "text";
  bool detailed_exitcode = false;  ///< exit 2 when there are changes
};

/// What a diff found, for ReportDiff; `text` and `json` are empty when no comparison was made
/// (an error was reported).
struct DiffOutcome {
  bool changes = false;
  std::function<std::string()> text;     ///< the plan as text
  std::function<nlohmann::json()> json;  ///< the plan as the JSON report's result
};

/// The end of every diff, single or fleet, so that they share the exit status and output: the
/// plan on `out` (with -o json the one JSON report, diagnostics included), diagnostics on
/// `err`; the plan is printed whenever a comparison was made, also when it found a change that
/// cannot take effect. Returns 1 after any error, else 2 for changes with --detailed-exitcode,
/// else 0.
int ReportDiff(const DiffOptions& options, const DiagnosticSink& sink, const SourceTexts& sources,
               const DiffOutcome& outcome, std::ostream& out, std::ostream& err);

/// Reports each change of `diff` that cannot take effect (an OLM operator downgrade) as an error
/// (diff.operator-downgrade) at the profile value that made the object (`plan`'s source
/// pointer, located in `profile`), else at the bundle file in `dir`.
void ReportRefusals(const BundleDiff& diff, const BundlePlan& plan, const LoadedProfile& profile,
                    const std::string& dir, DiagnosticSink& sink);

/// Adds the `diff` sub-command to `app`.
void SetupDiffCommand(CLI::App& app);

/// The plan on `out` (with -o json: the one JSON report, diagnostics included), diagnostics on
/// `err`. Returns 0 (no change, or changes without --detailed-exitcode), 2 changes with
/// --detailed-exitcode, 1 any error (invalid profile, DIR missing or unreadable).
int RunDiffCommand(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
