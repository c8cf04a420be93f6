#pragma once

// `hkimgen explain PROFILE PATH [-f FILE]... [--set PATH=VALUE]... [--output text|json]`.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "layering/layering.h"

namespace hkim {

struct ExplainOptions {
  LayerInputs layers;  ///< profile_path is PROFILE
  std::string path;    ///< PATH: network.rails[0].mtu_bytes, rails[name=x], or /json/pointer
  std::string format = "text";
};

/// Adds the `explain` sub-command to `app`.
void SetupExplainCommand(CLI::App& app);

/// Explains the path; report to `out`, diagnostics to `err`. Exit status: 0 explained, 1
/// invalid profile layers or unknown path, 2 I/O.
int RunExplainCommand(const ExplainOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
