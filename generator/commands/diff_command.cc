#include "commands/diff_command.h"

#include <filesystem>
#include <iostream>
#include <memory>

#include "diff/bundle_diff.h"
#include "diff/release_moves.h"
#include "commands/acceptance.h"
#include "commands/cli_support.h"
#include "commands/diff_fleet_command.h"
#include "commands/layer_options.h"
#include "commands/render_command.h"
#include "commands/render_fleet_command.h"
#include "support/diagnostics_format.h"
#include "fleet/fleet.h"
#include "fleet/write_fleet.h"
#include "pipeline/pipeline.h"

namespace hkim {
namespace {

const std::vector<std::string> kFormats = {"text", "json"};

constexpr char kFooter[] = R"(
Examples:
  hkimgen diff profiles/barcelona-h100-cx7.yaml -d out/barcelona-h100-cx7
  hkimgen diff profiles/oke-h100.yaml -d out/oke-h100 --set workload.replicas=4 -o json
  hkimgen diff profiles/oke-h100.yaml -d out/oke-h100 --detailed-exitcode || echo "changes"
  hkimgen diff 'profiles/oke-*.yaml' -d fleet   # a fleet: every fleet/<cluster>/ and fleet/_fleet/
  hkimgen diff 'profiles/oke-*.yaml' -d fleet --check   # CI: exit 2 when any folder is stale

Lists files to add (+), change (~, with a unified diff), move to another layer (>) and remove
(-), and what a sync of each does on the cluster (docs/sync-and-disruption.md): [disruptive:
drain and reboot | drain | driver roll | VF reset: ...], [job restart: ...], notes on what does
not happen (an object Argo CD leaves in place, a ConfigMap running pods do not reread), and
[refused: ...] for what cannot take effect (an OLM operator downgrade, an older chart release
on OKE: exit 1, diff.operator-downgrade). [by hand] marks a bootstrap/ file (OpenShift), which a
cluster admin applies, not Argo CD: its note names what its ClusterRole gains and says to re-apply
it before the sync. Files the bundle's .hkimgen-bundle does not list are yours: kept (=),
never removed. Writes nothing. Deprecated: `-o DIR` (now -d DIR) works for one release, with a warning.
Several profiles, a folder or a quoted pattern compare what the fleet render `render A B ... -d
DIR` would write (the same set and options: DIR/<cluster>/ per profile and DIR/_fleet/), folder
by folder; a bundle of a cluster no longer in the set is reported (fleet.removed-cluster) and
counts as a change until you delete it.
Exit status: 0 success (a DIR not written yet: every file is listed as added), 1 error (invalid
profile); with --detailed-exitcode or --check (as terraform plan): 0 no change, 2 changes (a DIR
not written yet included), 1 error.)";

}  // namespace

void ReportRefusals(const BundleDiff& diff, const BundlePlan& plan, const LoadedProfile& profile,
                    const std::string& dir, DiagnosticSink& sink) {
  for (const BundleChange& change : diff.changes) {
    if (change.refusal.empty()) continue;
    // At the profile value that made the object (its operator's version or channel), where
    // the fix goes; the bundle file when the plan does not say.
    Diagnostic d;
    d.severity = Severity::kError;
    d.location.file = (std::filesystem::path(dir) / change.file_name).string();
    for (const PlannedObject& o : plan.objects) {
      if (o.file_name != change.file_name || o.source_pointer.empty()) continue;
      d.data_path = o.source_pointer;
      for (const std::string& pointer : {o.source_pointer + "/channel", o.source_pointer + "/version"})
        if (profile.locations.values.count(pointer)) d.data_path = pointer;
      const SourceLocation where = profile.locations.Find(d.data_path);
      if (where.known()) d.location = where;
    }
    d.rule = "diff.operator-downgrade";
    d.message = change.refusal;
    d.fix = change.object_kind == "Application"
                ? "keep the version the cluster runs (the bundle's), or uninstall the chart's "
                  "release (its Application with its resources) before a sync installs the older one"
                : "keep the version the cluster runs (the bundle's), or uninstall the operator "
                  "(delete its Subscription and CSV) before a sync installs the older release";
    sink.Report(std::move(d));
  }
}

void SetupDiffCommand(CLI::App& app) {
  auto options = std::make_shared<DiffOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* command = app.add_subcommand(
      "diff", "Plan: what rendering the profile would change in an existing bundle directory");
  command
      ->add_option("PROFILE", options->profiles,
                   "Cluster profile (YAML); - reads stdin. Several, a folder or a quoted "
                   "pattern compare a fleet render into -d DIR")
      ->required();
  command->add_option("-d,--output-dir", options->output_dir,
                      "The bundle directory to compare with (as written by render -d)");
  AddLayerOptions(command, options->layers);
  AddOutputOption(command, *output, kFormats);
  CLI::Option* wrapper_digest = command->add_option(
      "--wrapper-digest", options->wrapper_digest,
      "As render's: the wrapper image digest the bundle was rendered with (sha256:<64 hex>), "
      "so that it is compared as written");
  AddImageDigestOption(command, options->image_digests);
  command->add_flag("--detailed-exitcode,--check", options->detailed_exitcode,
                    "Exit 2 when there are changes (0 none, 1 error), as terraform plan");
  AddFleetOptions(command, options->jobs, options->fleet_path, options->fleet_name,
                  options->fleet_namespace);
  command->footer(kFooter);
  command->callback([options, output, wrapper_digest] {
    options->wrapper_digest_given = wrapper_digest->count() > 0;
    if (!ResolveOutputChoice(*output, kFormats, "diff", "-d", "folder", std::cerr)) {
      FinishCommand(1);
    }
    if (!output->legacy_path.empty()) options->output_dir = output->legacy_path;
    options->format = output->format;
    if (options->output_dir.empty()) {
      FinishCommand(ReportUsage("diff", options->format, "-d DIR is required",
                                "name the bundle folder to compare with, e.g. -d out/my-cluster",
                                std::cout, std::cerr));
    }
    if (IsProfileSet(options->profiles)) {
      FinishCommand(RunDiffFleetCommand(*options, std::cout, std::cerr));
      return;
    }
    options->layers.profile_path = options->profiles.front();
    FinishCommand(RunDiffCommand(*options, std::cout, std::cerr));
  });
}

int RunDiffCommand(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  SourceTexts sources;
  std::optional<BundleDiff> diff;
  std::vector<ReleaseMove> moves;
  std::error_code ec;
  LayerInputs layers = options.layers;
  std::optional<LayeredProfile> layered;  // kept for the profile's accept_warnings
  if (!WrapperDigestLayer(options.wrapper_digest, options.wrapper_digest_given, layers, sink) ||
      !ImageDigestLayer(options.image_digests, layers, sink)) {
    // reported: nothing is compared
  } else if (RefuseFleetMember(options.output_dir, "diff", sink)) {
    // reported: a fleet render owns DIR
  } else if ((layered = LoadLayeredProfile(layers, sink, &sources))) {
    RenderSettings settings;  // the Argo CD path as render -d DIR gives it
    settings.adjust_profile = GitOpsPathFromDir(options.output_dir, layered->merged, sink);
    // A folder never written is a plan with every file new (terraform plan with no state), so
    // that a first render can be reviewed before it is written.
    const bool fresh = !std::filesystem::exists(options.output_dir, ec);
    if (std::optional<ProfileRender> render =
            RenderLoadedProfileWithPlan(layered->merged, sink, settings)) {
      if (fresh) {
        sink.Report(Diagnostic{Severity::kNote, SourceLocation{options.output_dir, 0, 0}, "",
                               "diff.new-dir",
                               "the folder does not exist yet: every file of the bundle is new",
                               "write it with: hkimgen render " + options.layers.profile_path +
                                   " -d " + options.output_dir});
        diff = DiffBundle(render->bundle, {}, {});
      } else if (auto existing = ReadBundleDirectory(options.output_dir, sink)) {
        diff = DiffBundle(render->bundle, *existing, ReadBundleMarkerFiles(options.output_dir));
        ReportRefusals(*diff, render->plan, layered->merged, options.output_dir, sink);
        moves = ReleaseMoves(render->bundle, *existing);  // diff/release_moves.h: what moves
        ReportSkippedMinors(moves, sink);
      }
    }
  }
  DiffOutcome outcome;
  if (diff) {
    outcome.changes = diff->HasChanges();
    outcome.json = [&] {
      nlohmann::json result = BundleDiffToJson(*diff, options.output_dir);
      if (!moves.empty()) result["release_moves"] = ReleaseMovesToJson(moves);
      return result;
    };
    outcome.text = [&] {
      return FormatBundleDiff(*diff, options.output_dir) + FormatReleaseMoves(moves);
    };
  }
  // The profile's accepted warnings are notes here too, as render prints them.
  return ReportDiff(options, AcceptWarnings(sink, layered ? &layered->merged : nullptr, {}),
                    sources, outcome, out, err);
}

int ReportDiff(const DiffOptions& options, const DiagnosticSink& sink, const SourceTexts& sources,
               const DiffOutcome& outcome, std::ostream& out, std::ostream& err) {
  int status = (!outcome.text || sink.HasErrors()) ? 1 : 0;
  if (status == 0 && options.detailed_exitcode && outcome.changes) status = 2;
  if (options.format == "json") {
    nlohmann::json result;
    if (outcome.text) result = outcome.json();
    out << DumpJson(JsonReport("diff", status, sink, result)) << '\n';
    return status;
  }
  PrintDiagnostics(sink, sources, err);
  if (outcome.text) out << outcome.text();
  return status;
}

}  // namespace hkim
