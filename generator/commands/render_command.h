#pragma once

// `hkimgen render PROFILE [-d DIR [--check]] [-o yaml|json] [-q] [-f FILE]... [--set P=V]...
// [--allow RULE]... [--wrapper-digest sha256:HEX] [--verify]`.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace hkim {

/// Everything `render` takes from the command line.
struct RenderOptions {
  std::string profile;     ///< path of the profile YAML, as given (never made absolute); "-": stdin
  std::string output_dir;  ///< -d DIR; empty: the bundle on stdout
  bool check = false;      ///< --check: compare DIR with the render, write nothing
  bool quiet = false;      ///< -q: no "wrote N files" line
  std::string format = "yaml";           ///< -o yaml|json: the stream, or the one JSON report
  std::vector<std::string> extra_files;  ///< -f FILE: layers over the profile (layering.h)
  std::vector<std::string> set_values;   ///< --set PATH=VALUE, applied last
  std::vector<std::string> allow;        ///< --allow RULE: accepted warnings
  bool force = false;    ///< --force: adopt an output folder hkimgen did not write (write.h)
  bool no_wait = false;  ///< --no-wait: fail instead of waiting for another render into DIR
  std::string wrapper_digest;  ///< --wrapper-digest sha256:<64 hex>: wrapper.digest, over all
  bool verify = false;  ///< --verify: parse every rendered document again (RenderCheck::kReparse)
};

/// Adds the `render` sub-command to `app`; running it calls RunRenderCommand and ends the
/// process with its exit status (through CLI::RuntimeError).
void SetupRenderCommand(CLI::App& app);

/// Renders `options.profile`: the stream (YAML, or with -o json the JSON report) to `out`, or
/// the directory; diagnostics and the "wrote N files, M changed" line to `err`.
/// Returns the exit status: 0 ok, 1 invalid profile or stale DIR (--check), 2 I/O or internal.
int RunRenderCommand(const RenderOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
