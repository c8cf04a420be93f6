#pragma once

// `hkimgen validate PROFILE... [-f FILE]... [--set PATH=VALUE]... [--allow RULE]... [--strict]
// [--cluster FILE|-] [-o text|json]`: schema, model and every lint rule, and with --cluster the
// comparison with a live cluster's export (cluster_check.h); writes nothing.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "layering/layering.h"

namespace hkim {

/// Everything `validate` (and `lint`) take from the command line.
struct ValidateOptions {
  std::vector<std::string> profiles;
  LayerInputs layers;   ///< -f / --set, applied to every profile; profile_path unused
  bool strict = false;  ///< warnings fail too (exit 1); accepted warnings are notes, not warnings
  std::string format = "text";
  std::vector<std::string> allow;  ///< --allow RULE
  std::string command = "validate";  ///< the name reports carry ("lint" when lint runs it)
  std::vector<std::string> cluster;  ///< --cluster FILE|-: a cluster export to check against
  bool node_table = false;  ///< --node-table: print the per-node table even off a terminal
};

/// Adds the `validate` sub-command to `app`.
void SetupValidateCommand(CLI::App& app);

/// Adds --cluster and --node-table (validate and lint share them).
void AddClusterOptions(CLI::App* command, ValidateOptions& options);

/// Checks every profile; the report goes to `out`. Returns the exit status: 0 valid (warnings
/// allowed unless strict), 1 invalid, 2 I/O or internal failure.
int RunValidateCommand(const ValidateOptions& options, std::ostream& out);

}  // namespace hkim
