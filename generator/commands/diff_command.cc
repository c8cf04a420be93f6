#include "commands/diff_command.h"

#include <iostream>
#include <memory>

#include "bundle_diff.h"
#include "commands/layer_options.h"
#include "diagnostics_format.h"
#include "pipeline.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen diff profiles/barcelona-h100-cx7.yaml -o out/barcelona-h100-cx7
  hkimgen diff profiles/oke-h100.yaml -o out/oke-h100 --set workload.replicas=4 --output json

Lists files to add (+), change (~, with a unified diff) and remove (-). Changes that drain or
reboot nodes (MachineConfig, SR-IOV node policies, NicClusterPolicy) are marked [disruptive].
Writes nothing.
Exit status: 0 no change, 2 changes, 1 error.)";

}  // namespace

void SetupDiffCommand(CLI::App& app) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* command = app.add_subcommand(
      "diff", "Plan: what rendering the profile would change in an existing bundle directory");
  command->add_option("PROFILE", options->layers.profile_path, "Cluster profile (YAML)")
      ->required();
  command
      ->add_option("-o,--output-dir", options->output_dir,
                   "The bundle directory to compare with (as written by render -o)")
      ->required();
  AddLayerOptions(command, options->layers);
  AddOutputFormatOption(command, options->format);
  command->footer(kFooter);
  command->callback([options] {
    int status = RunDiffCommand(*options, std::cout, std::cerr);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

int RunDiffCommand(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  SourceTexts sources;
  std::optional<BundleDiff> diff;
  if (std::optional<LayeredProfile> layered = LoadLayeredProfile(options.layers, sink, &sources)) {
    if (std::optional<RenderedBundle> bundle = RenderLoadedProfile(layered->merged, sink)) {
      if (auto existing = ReadBundleDirectory(options.output_dir, sink)) {
        diff = DiffBundle(*bundle, *existing);
      }
    }
  }
  if (!sink.diagnostics().empty()) {
    if (options.format == "json") {
      err << DiagnosticsToJson(sink).dump(2) << '\n';
    } else {
      err << FormatDiagnostics(sink, sources);
    }
  }
  if (!diff || sink.HasErrors()) return 1;
  if (options.format == "json") {
    out << BundleDiffToJson(*diff, options.output_dir).dump(2) << '\n';
  } else {
    out << FormatBundleDiff(*diff, options.output_dir);
  }
  return diff->HasChanges() ? 2 : 0;
}

}  // namespace hkim
