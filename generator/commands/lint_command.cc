#include "commands/lint_command.h"

#include <iomanip>
#include <iostream>
#include <memory>

#include "commands/cli_support.h"
#include "commands/layer_options.h"
#include "support/diagnostics_format.h"
#include "commands/rule_ids.h"
#include "commands/validate_command.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen lint --list-rules
  hkimgen lint profiles/barcelona-h100-cx7.yaml
  hkimgen lint profiles/*.yaml
  hkimgen lint profiles/
  hkimgen lint profiles/oke-h100.yaml --set 'workload.env.NCCL_IB_HCA=^mlx5_' -o json
  hkimgen lint profiles/oke-h100.yaml --allow lint.image-latest

lint runs the checks validate runs, and adds two things: it is strict (a warning fails unless
the profile accepts it with accept_warnings: or --allow RULE accepts it), and --list-rules
prints every rule id a message can carry. Given several profiles, those that sync into one
cluster (same Argo CD destination) are checked as a set: lint.shared-cluster-object (two
profiles emit one object or install one operator chart) and lint.shared-device-ids (the one
NicClusterPolicy misses another profile's NIC device IDs). Use validate to ask "will this render?", lint to
keep a profile free of findings (e.g. in CI).
Each finding names the rule id, its severity, file:line:col of the value it concerns (in the
layer that set it) and the fix. Schema and model errors are reported first: a profile must be
valid before the cross-object rules can run.
Exit status: 0 no errors and no unaccepted warnings, 1 otherwise, 2 I/O or internal.)";

}  // namespace

void PrintLintRules(const std::string& format, std::ostream& out) {
  if (format == "json") {
    nlohmann::json rules = nlohmann::json::array();
    for (const RuleInfo& rule : AllRules()) {
      rules.push_back(
          {{"id", rule.id}, {"severity", SeverityName(rule.severity)}, {"summary", rule.summary}});
    }
    out << DumpJson(JsonReport("lint", 0, DiagnosticSink{}, {{"rules", rules}})) << '\n';
    return;
  }
  size_t width = 4;
  for (const RuleInfo& rule : AllRules()) width = std::max(width, rule.id.size());
  out << std::left << std::setw(static_cast<int>(width) + 2) << "RULE" << std::setw(10)
      << "SEVERITY"
      << "CHECKS\n";
  for (const RuleInfo& rule : AllRules()) {
    out << std::left << std::setw(static_cast<int>(width) + 2) << rule.id << std::setw(10)
        << SeverityName(rule.severity) << rule.summary << '\n';
  }
}

void SetupLintCommand(CLI::App& app) {
  auto options = std::make_shared<LintOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* command = app.add_subcommand(
      "lint", "Like validate, but every unaccepted warning fails; --list-rules lists all rules");
  command->add_option("PROFILE", options->check.profiles,
                      "Cluster profiles (YAML), folders of them or quoted patterns; - reads stdin");
  AddLayerOptions(command, options->check.layers);
  AddAllowOption(command, options->check.allow);
  AddClusterOptions(command, options->check);
  command->add_flag("--strict", options->check.strict,
                    "Kept for scripts: lint is always strict (warnings fail unless accepted)");
  command->add_flag("--list-rules", options->list_rules,
                    "Print every rule id a message can carry (id, severity, what it reports)");
  AddOutputOption(command, *output, {"text", "json"});
  command->footer(kFooter);
  command->callback([options, output] {
    if (!ResolveOutputChoice(*output, {"text", "json"}, "lint", "", "", std::cerr)) {
      FinishCommand(1);
    }
    options->check.format = output->format;
    FinishCommand(RunLintCommand(*options, std::cout));
  });
}

int RunLintCommand(const LintOptions& options, std::ostream& out) {
  if (options.list_rules) {
    PrintLintRules(options.check.format, out);
    return 0;
  }
  if (options.check.profiles.empty()) {
    std::cerr << "hkimgen lint: give at least one PROFILE (or --list-rules)\n";
    return 1;
  }
  ValidateOptions strict = options.check;
  strict.strict = true;
  strict.command = "lint";
  return RunValidateCommand(strict, out);
}

}  // namespace hkim
