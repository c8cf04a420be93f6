#pragma once

// The options every profile-reading sub-command takes: `-f extra.yaml` and `--set path=value`
// as Helm users expect (layering/layering.h has the merge rules), and `--allow RULE`.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "layering/layering.h"

namespace hkim {

/// Adds `-f,--values FILE` (repeatable; `-` reads stdin) and `--set PATH=VALUE[,PATH=VALUE]`
/// (repeatable; `\,` keeps a comma in a value) to `command`, in command-line order.
void AddLayerOptions(CLI::App* command, std::vector<std::string>& extra_files,
                     std::vector<std::string>& set_values);

/// The same into `inputs.extra_files` and `inputs.set_values`.
void AddLayerOptions(CLI::App* command, LayerInputs& inputs);

/// Adds `--allow RULE` (repeatable): accept that rule's warnings for this run; they are still
/// shown, as notes saying they were accepted (commands/acceptance.h).
void AddAllowOption(CLI::App* command, std::vector<std::string>& allow);

}  // namespace hkim
