#pragma once

// `hkimgen lint PROFILE... [-f FILE]... [--set PATH=VALUE]... [--strict] [--output text|json]`
// and `hkimgen lint --list-rules`: the rule table and its findings.

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

/// The table of rules (id, severity, what it checks), as text or JSON.
void PrintLintRules(const std::string& format, std::ostream& out);

/// Lints every profile (every stage runs first: a profile must be schema-valid to be linted).
/// Returns the exit status as validate does.
int RunLintCommand(const LintOptions& options, std::ostream& out);

}  // namespace hkim
