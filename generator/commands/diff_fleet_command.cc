#include "commands/diff_fleet_command.h"

#include <filesystem>
#include <optional>

#include "commands/acceptance.h"
#include "commands/cli_support.h"
#include "commands/render_command.h"
#include "support/diagnostics_format.h"
#include "fleet/fleet.h"
#include "fleet/fleet_diff.h"
#include "fleet/write_fleet.h"

namespace hkim {

namespace {

/// The fleet render's inputs for `options`: the same as `render` builds from its own options,
/// so that the comparison sees exactly the bytes a render would write.
FleetInputs InputsFor(const DiffOptions& options, DiagnosticSink& sink) {
  FleetInputs inputs;
  inputs.profiles = ExpandProfileArgs(options.profiles, sink);
  inputs.extra_files = options.layers.extra_files;
  inputs.set_values = options.layers.set_values;
  LayerInputs digest;
  if (WrapperDigestLayer(options.wrapper_digest, options.wrapper_digest_given, digest, sink) &&
      ImageDigestLayer(options.image_digests, digest, sink)) {
    inputs.set_values.insert(inputs.set_values.end(), digest.set_values.begin(),
                             digest.set_values.end());
  }
  inputs.settings.name = options.fleet_name;
  inputs.settings.argocd_namespace = options.fleet_namespace;
  inputs.settings.repo_path = FleetRepoPath(options.output_dir, options.fleet_path, sink);
  inputs.jobs = options.jobs;
  // Each profile's accepted warnings are notes, as the fleet render prints them.
  inputs.accept = [](const DiagnosticSink& one, const LoadedProfile* merged) {
    return AcceptWarnings(one, merged, {});
  };
  return inputs;
}

}  // namespace

int RunDiffFleetCommand(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  SourceTexts sources;
  std::optional<FleetDiff> diff;
  std::error_code ec;
  if (!std::filesystem::exists(options.output_dir, ec)) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{options.output_dir, 0, 0}, "",
                           "diff.missing-dir", "the fleet folder does not exist",
                           "give the folder `hkimgen render A B ... -d DIR` wrote, or render "
                           "the fleet first"});
  } else {
    const FleetInputs inputs = InputsFor(options, sink);
    std::optional<RenderedFleet> fleet;
    if (!sink.HasErrors()) fleet = RenderFleet(inputs, sink, &sources);
    if (fleet) diff = DiffFleet(*fleet, options.output_dir, sink);
    if (diff) ReportRemovedClusters(diff->removed_clusters, Severity::kWarning, sink);
    // Members' folders come first, in member order (fleet/fleet_diff.h).
    for (size_t i = 0; diff && i < fleet->members.size() && i < diff->folders.size(); ++i) {
      const FleetMember& member = fleet->members[i];
      ReportRefusals(diff->folders[i].diff, member.render.plan, member.merged,
                     diff->folders[i].folder, sink);
    }
  }
  DiffOutcome outcome;
  if (diff) {
    outcome.changes = diff->HasChanges();
    outcome.json = [&] { return FleetDiffToJson(*diff, options.output_dir); };
    outcome.text = [&] { return FormatFleetDiff(*diff, options.output_dir); };
  }
  return ReportDiff(options, sink, sources, outcome, out, err);
}

}  // namespace hkim
