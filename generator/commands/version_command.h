#pragma once

// `hkimgen version [-o text|json]` (also `hkimgen --version`): the version, the commit it was
// built from and the hash of the embedded profile schema.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

namespace hkim {

/// Adds the `version` sub-command to `app`.
void SetupVersionCommand(CLI::App& app);

/// Prints the build information as text (VersionText) or as the JSON report. Returns 0.
int RunVersionCommand(const std::string& format, std::ostream& out);

}  // namespace hkim
