#include "commands/explain_command.h"

#include <iostream>
#include <memory>

#include "commands/cli_support.h"
#include "commands/layer_options.h"
#include "support/diagnostics_format.h"
#include "pipeline/explain.h"
#include "pipeline/pipeline.h"
#include "pipeline/profile_check.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen explain profiles/barcelona-h100-cx7.yaml nccl.cross_nic
  hkimgen explain profiles/my-cluster.yaml 'network.rails[name=eno5np0].mtu_bytes'
  hkimgen explain profiles/my-cluster.yaml workload.replicas --set workload.replicas=8
  hkimgen explain profiles/oke-h100.yaml gitops.argocd_namespace -o json

Prints the final value after every layer (extends: bases, -f files, --set), the file:line of
each layer that set it (or "default"), and the schema's description of the field. A path is
resolved as --set resolves it (an index past the end of a list is an error, not a default). When
the profile does not validate, explain still answers and warns [explain.invalid-profile].)";

}  // namespace

void SetupExplainCommand(CLI::App& app) {
  auto options = std::make_shared<ExplainOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* command = app.add_subcommand(
      "explain", "Show a profile value, every layer that set it, and what the field means");
  command->add_option("PROFILE", options->layers.profile_path, "Cluster profile (YAML); - reads stdin")
      ->required();
  command
      ->add_option("PATH", options->path,
                   "Field path: network.rails[0].mtu_bytes, network.rails[name=X], or a "
                   "JSON pointer")
      ->required();
  AddLayerOptions(command, options->layers);
  AddOutputOption(command, *output, {"text", "json"});
  command->footer(kFooter);
  command->callback([options, output] {
    if (!ResolveOutputChoice(*output, {"text", "json"}, "explain", "", "", std::cerr)) {
      FinishCommand(1);
    }
    options->format = output->format;
    FinishCommand(RunExplainCommand(*options, std::cout, std::cerr));
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
    DiagnosticSink check;
    CheckLoadedProfile(layered->merged, check);
    if (explanation && !check.HasErrors()) {
      DiagnosticSink scratch;  // the check above reported this profile's findings
      if (std::optional<Profile> profile = BuildProfile(layered->merged, scratch))
        AddDerivedValue(*profile, *explanation);
    }
    if (check.HasErrors()) {
      sink.Report(Diagnostic{Severity::kWarning, SourceLocation{options.layers.profile_path, 0, 0},
                             "", "explain.invalid-profile",
                             "the profile does not validate (" +
                                 FormatSummary(check.ErrorCount(), check.WarningCount()) +
                                 "): render would refuse it",
                             "run `hkimgen validate " + options.layers.profile_path +
                                 "` for the errors"});
    }
  }
  const int status = ExitCodeFor(sink);
  if (options.format == "json") {
    out << DumpJson(JsonReport("explain", status, sink,
                               explanation ? ExplanationToJson(*explanation) : nlohmann::json()))
        << '\n';
    return status;
  }
  if (explanation) out << FormatExplanation(*explanation);
  PrintDiagnostics(sink, sources, err);
  return status;
}

}  // namespace hkim
