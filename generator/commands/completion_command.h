#pragma once

// `hkimgen completion bash|zsh|fish`: a shell completion script generated from the command
// line itself (every sub-command and flag registered in CLI11) and from the data hkimgen knows:
// node shapes, platforms, output formats, rule ids, and profile field paths from the embedded
// schema (for `explain PROFILE PATH` and `--set PATH=`). CLI11 has no completion generator.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace hkim {

/// Adds the `completion` sub-command to `app` (which must outlive it: the script is generated
/// from `app` when the command runs).
void SetupCompletionCommand(CLI::App& app);

/// Every profile field path users write in `explain` and `--set` ("network.rails[0].mtu_bytes"),
/// from the embedded schema, sorted; maps with free keys are left out.
std::vector<std::string> SchemaFieldPaths();

/// The completion script for `shell` (bash, zsh or fish) of `app`; empty for another shell.
std::string CompletionScript(const CLI::App& app, const std::string& shell);

}  // namespace hkim
