#include "commands/validate_command.h"

#include <iostream>
#include <memory>

#include "commands/layer_options.h"
#include "diagnostics_format.h"
#include "pipeline.h"
#include "profile_check.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen validate profiles/*.yaml
  hkimgen validate profiles/oke-h100.yaml --set workload.replicas=64 --strict
  hkimgen validate profiles/barcelona-h100-cx7.yaml -f staging.yaml --output json

Checks the schema, the model's cross-field rules and every lint rule (`hkimgen lint
--list-rules`); each fault is reported once at file:line:col of the layer that holds it, with
the rule id and a fix. Writes nothing.
Exit status: 0 valid (warnings alone pass unless --strict), 1 invalid, 2 I/O or internal failure.)";

}  // namespace

void SetupValidateCommand(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate", "Check profiles (schema, model and lint rules); write nothing");
  command->add_option("PROFILE", options->profiles, "Cluster profiles (YAML)")->required();
  AddLayerOptions(command, options->layers);
  command->add_flag("--strict", options->strict, "Warnings fail too (exit 1)");
  AddOutputFormatOption(command, options->format);
  command->footer(kFooter);
  command->callback([options] {
    int status = RunValidateCommand(*options, std::cout);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

int RunValidateCommand(const ValidateOptions& options, std::ostream& out) {
  DiagnosticSink sink;
  SourceTexts sources;
  std::vector<std::pair<std::string, bool>> results;  // profile, clean of errors
  for (const std::string& profile : options.profiles) {
    LayerInputs inputs = options.layers;
    inputs.profile_path = profile;
    const int errors_before = sink.ErrorCount();
    CheckLayeredProfile(inputs, sink, &sources);
    results.emplace_back(profile, sink.ErrorCount() == errors_before);
  }
  int status = ExitCodeFor(sink);
  if (status == 0 && options.strict && sink.WarningCount() > 0) status = 1;
  if (options.format == "json") {
    nlohmann::json report = {{"profiles", nlohmann::json::array()},
                             {"diagnostics", DiagnosticsToJson(sink)},
                             {"errors", sink.ErrorCount()},
                             {"warnings", sink.WarningCount()},
                             {"strict", options.strict},
                             {"ok", status == 0}};
    for (const auto& [profile, clean] : results) {
      report["profiles"].push_back({{"profile", profile}, {"valid", clean}});
    }
    out << report.dump(2) << '\n';
    return status;
  }
  out << FormatDiagnostics(sink, sources);
  for (const auto& [profile, clean] : results) {
    if (clean) out << profile << ": valid\n";
  }
  return status;
}

}  // namespace hkim
