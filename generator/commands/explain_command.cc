#include "commands/explain_command.h"

#include <iostream>
#include <memory>

#include "commands/layer_options.h"
#include "diagnostics_format.h"
#include "explain.h"
#include "pipeline.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen explain profiles/barcelona-h100-cx7.yaml nccl.cross_nic
  hkimgen explain profiles/my-cluster.yaml 'network.rails[name=eno5np0].mtu_bytes'
  hkimgen explain profiles/my-cluster.yaml workload.replicas --set workload.replicas=8

Prints the final value after every layer (extends: bases, -f files, --set), the file:line of
each layer that set it (or "default"), and the schema's description of the field.)";

}  // namespace

void SetupExplainCommand(CLI::App& app) {
  auto options = std::make_shared<ExplainOptions>();
  CLI::App* command = app.add_subcommand(
      "explain", "Show a profile value, every layer that set it, and what the field means");
  command->add_option("PROFILE", options->layers.profile_path, "Cluster profile (YAML)")
      ->required();
  command
      ->add_option("PATH", options->path,
                   "Field path: network.rails[0].mtu_bytes, network.rails[name=X], or a "
                   "JSON pointer")
      ->required();
  AddLayerOptions(command, options->layers);
  AddOutputFormatOption(command, options->format);
  command->footer(kFooter);
  command->callback([options] {
    int status = RunExplainCommand(*options, std::cout, std::cerr);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

int RunExplainCommand(const ExplainOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  SourceTexts sources;
  std::optional<Explanation> explanation;
  if (std::optional<LayeredProfile> layered = LoadLayeredProfile(options.layers, sink, &sources)) {
    if (const ProfileSchema* schema = ProfileSchema::Embedded(sink)) {
      explanation = Explain(*layered, *schema, options.path, sink);
    }
  }
  if (explanation) {
    if (options.format == "json") {
      out << ExplanationToJson(*explanation).dump(2) << '\n';
    } else {
      out << FormatExplanation(*explanation);
    }
  }
  if (!sink.diagnostics().empty()) {
    if (options.format == "json") {
      err << DiagnosticsToJson(sink).dump(2) << '\n';
    } else {
      err << FormatDiagnostics(sink, sources);
    }
  }
  return ExitCodeFor(sink);
}

}  // namespace hkim
