#include "commands/render_command.h"

#include <iostream>
#include <memory>

#include "diagnostics_format.h"
#include "pipeline.h"

namespace hkim {

namespace {

constexpr char kFooter[] = R"(
Examples:
  # Print the bundle as one YAML stream (each document headed "# Source: templates/...")
  hkimgen render profiles/barcelona-h100-cx7.yaml

  # Write one file per object, plus kustomization.yaml and the Argo CD Application
  hkimgen render profiles/barcelona-h100-cx7.yaml -o out/barcelona-h100-cx7

  # In CI: fail (exit 1) and name the files when the committed bundle is stale
  hkimgen render profiles/barcelona-h100-cx7.yaml -o out/barcelona-h100-cx7 --check

  # Diagnostics as JSON for editors and scripts
  hkimgen render profiles/oke-h100.yaml --output json

Errors name file:line:col, the data path, the rule broken and a fix. A failed render leaves the
output directory exactly as it was; an unchanged file is never rewritten.
Exit status: 0 ok, 1 invalid profile (or stale DIR with --check), 2 I/O or internal failure.)";

}  // namespace

void SetupRenderCommand(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* render =
      app.add_subcommand("render", "Validate a cluster profile and render its GitOps bundle");
  render->add_option("PROFILE", options->profile, "Cluster profile (YAML), e.g. profiles/x.yaml")
      ->required();
  render->add_option("-o,--output-dir", options->output_dir,
                     "Write one file per object into DIR (replaced only when complete) instead "
                     "of the YAML stream on stdout");
  render
      ->add_option("-f,--values", options->extra_files,
                   "Extra profile layer merged over the profile (repeatable, in order)")
      ->allow_extra_args(false);
  render
      ->add_option("--set", options->set_values,
                   "Override one value, e.g. --set workload.replicas=8 (repeatable)")
      ->allow_extra_args(false);
  render->add_flag("--check", options->check,
                   "With -o: compare DIR with the render and exit 1 naming stale, missing and "
                   "extra files; writes nothing");
  render->add_option("--output", options->diagnostics_format, "Diagnostics format on stderr")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  render->footer(kFooter);
  render->callback([options] {
    int status = RunRenderCommand(*options, std::cout, std::cerr);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

int RunRenderCommand(const RenderOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  SourceTexts sources;
  if (options.check && options.output_dir.empty()) {
    sink.Report(Diagnostic{Severity::kError,
                           {},
                           "",
                           "cli.usage",
                           "--check needs -o DIR",
                           "add -o with the directory to compare"});
  } else if (std::optional<RenderedBundle> bundle = RenderProfileLayers(
                 LayerInputs{options.profile, options.extra_files, options.set_values}, sink,
                 &sources)) {
    WriteStage(*bundle, WriteTarget{options.output_dir, options.check}, out, sink);
  }
  if (options.diagnostics_format == "json") {
    err << DiagnosticsToJson(sink).dump(2) << '\n';
  } else {
    err << FormatDiagnostics(sink, sources);
  }
  return ExitCodeFor(sink);
}

}  // namespace hkim
