#pragma once

// `hkimgen render PROFILE [-o DIR] [--check] [--output text|json]`.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace hkim {

/// Everything `render` takes from the command line.
struct RenderOptions {
  std::string profile;     ///< path of the profile YAML, as given (never made absolute)
  std::string output_dir;  ///< -o DIR; empty: the YAML stream on stdout
  bool check = false;      ///< --check: compare DIR with the render, write nothing
  std::string diagnostics_format = "text";  ///< --output text|json (diagnostics on stderr)
  std::vector<std::string> extra_files;     ///< -f FILE: layers over the profile (layering.h)
  std::vector<std::string> set_values;      ///< --set PATH=VALUE, applied last
};

/// Adds the `render` sub-command to `app`; running it calls RunRenderCommand and ends the
/// process with its exit status (through CLI::RuntimeError).
void SetupRenderCommand(CLI::App& app);

/// Renders `options.profile`: the stream to `out`, or the directory; diagnostics to `err`.
/// Returns the exit status: 0 ok, 1 invalid profile or stale DIR (--check), 2 I/O or internal.
int RunRenderCommand(const RenderOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
