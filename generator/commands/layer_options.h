#pragma once

// The layering options every profile-reading sub-command takes: `-f extra.yaml` and
// `--set path=value`, as Helm users expect (layering.h has the merge rules).

#include <CLI/CLI.hpp>

#include "layering.h"

namespace hkim {

/// Adds `-f,--values FILE` (repeatable) and `--set PATH=VALUE` (repeatable) to `command`,
/// filling `inputs.extra_files` and `inputs.set_values` in command-line order.
void AddLayerOptions(CLI::App* command, LayerInputs& inputs);

/// Adds `--output text|json` (the diagnostics / report format) to `command`.
void AddOutputFormatOption(CLI::App* command, std::string& format);

}  // namespace hkim
