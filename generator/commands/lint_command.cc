#include "commands/lint_command.h"

#include <iomanip>
#include <iostream>
#include <memory>

#include "commands/layer_options.h"
#include "diagnostics_format.h"
#include "lint.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen lint --list-rules
  hkimgen lint profiles/barcelona-h100-cx7.yaml
  hkimgen lint profiles/oke-h100.yaml --set 'workload.env.NCCL_IB_HCA=^mlx5_' --output json

Each finding names the rule id, its severity, file:line:col of the value it concerns (in the
layer that set it) and the fix. Schema and model errors are reported first: a profile must be
valid before the cross-object rules can run.
Exit status: 0 no errors (warnings alone pass unless --strict), 1 errors, 2 I/O or internal.)";

}  // namespace

void PrintLintRules(const std::string& format, std::ostream& out) {
  if (format == "json") {
    nlohmann::json rules = nlohmann::json::array();
    for (const LintRule& rule : LintRules()) {
      rules.push_back(
          {{"id", rule.id}, {"severity", SeverityName(rule.severity)}, {"summary", rule.summary}});
    }
    out << rules.dump(2) << '\n';
    return;
  }
  size_t width = 4;
  for (const LintRule& rule : LintRules()) width = std::max(width, std::string(rule.id).size());
  out << std::left << std::setw(static_cast<int>(width) + 2) << "RULE" << std::setw(10)
      << "SEVERITY"
      << "CHECKS\n";
  for (const LintRule& rule : LintRules()) {
    out << std::left << std::setw(static_cast<int>(width) + 2) << rule.id << std::setw(10)
        << SeverityName(rule.severity) << rule.summary << '\n';
  }
}

void SetupLintCommand(CLI::App& app) {
  auto options = std::make_shared<LintOptions>();
  CLI::App* command = app.add_subcommand(
      "lint", "Run the cross-object rules (rails, NADs, NCCL, IOMMU, memlock...) over profiles");
  command->add_option("PROFILE", options->check.profiles, "Cluster profiles (YAML)");
  AddLayerOptions(command, options->check.layers);
  command->add_flag("--strict", options->check.strict, "Warnings fail too (exit 1)");
  command->add_flag("--list-rules", options->list_rules,
                    "Print the table of rules (id, severity, what it checks) and exit");
  AddOutputFormatOption(command, options->check.format);
  command->footer(kFooter);
  command->callback([options] {
    int status = RunLintCommand(*options, std::cout);
    if (status != 0) throw CLI::RuntimeError(status);
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
  return RunValidateCommand(options.check, out);
}

}  // namespace hkim
