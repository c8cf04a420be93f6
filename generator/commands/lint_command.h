#pragma once

// `hkimgen lint PROFILE... [-f FILE]... [--set PATH=VALUE]... [--allow RULE]... [-o text|json]`
// and `hkimgen lint --list-rules`. What lint adds over validate: it is strict (an unaccepted
// warning fails, as a linter's finding does), and it prints the table of every rule id.

#include <CLI/CLI.hpp>
#include <ostream>

#include "commands/validate_command.h"

namespace hkim {

/// `lint` takes what `validate` takes, plus --list-rules.
struct LintOptions {
  ValidateOptions check;
  bool list_rules = false;
};

/// Adds the `lint` sub-command to `app`.
void SetupLintCommand(CLI::App& app);

/// The table of every rule id a diagnostic can carry (commands/rule_ids.h: the stages' and the lint
/// rules: id, severity, what it reports), as text or the JSON report.
void PrintLintRules(const std::string& format, std::ostream& out);

/// Lints every profile (every stage runs first: a profile must be schema-valid to be linted).
/// Returns the exit status as `validate --strict` does.
int RunLintCommand(const LintOptions& options, std::ostream& out);

}  // namespace hkim
