#pragma once

// `hkimgen render PROFILE... [-d DIR [--check]] [-o yaml|json] [-q] [-f FILE]... [--set P=V]...
// [--allow RULE]... [--wrapper-digest sha256:HEX] [--image-digest IMAGE=sha256:HEX]... [--verify]
// [--tree]`.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "layering/layering.h"

namespace hkim {

/// Everything `render` takes from the command line.
struct RenderOptions {
  std::string profile;     ///< path of the profile YAML, as given (never made absolute); "-": stdin
  /// Every PROFILE argument; several, a folder or a pattern render a fleet into -d DIR
  /// (render_fleet_command.h). Empty or one file: the single-profile render of `profile`.
  std::vector<std::string> profiles;
  unsigned jobs = 0;               ///< -j N: fleet profiles rendered at once; 0: every core
  std::string fleet_path;          ///< --fleet-path: DIR's path in the git repository
  std::string fleet_name = "hkimgen-fleet";  ///< --fleet-name: ApplicationSet and its project
  std::string fleet_namespace = "argocd";    ///< --fleet-namespace: the central Argo CD's
  std::string output_dir;  ///< -d DIR; empty: the bundle on stdout
  bool check = false;      ///< --check: compare DIR with the render, write nothing
  bool quiet = false;      ///< -q: no "wrote N files" line, no progress line
  std::string format = "yaml";           ///< -o yaml|json: the stream, or the one JSON report
  std::vector<std::string> extra_files;  ///< -f FILE: layers over the profile (layering/layering.h)
  std::vector<std::string> set_values;   ///< --set PATH=VALUE, applied last
  std::vector<std::string> allow;        ///< --allow RULE: accepted warnings
  bool force = false;    ///< --force: adopt an output folder hkimgen did not write (write/write.h)
  bool no_wait = false;  ///< --no-wait: fail instead of waiting for another render into DIR
  std::string wrapper_digest;  ///< --wrapper-digest sha256:<64 hex>: wrapper.digest, over all
  bool wrapper_digest_given = false;  ///< --wrapper-digest was on the command line (maybe "")
  /// --image-digest IMAGE=sha256:<64 hex>, repeatable: images.digests (model/image_digest.h)
  std::vector<std::string> image_digests;
  /// --tree: print the bundle's Applications, waves and kinds (plan/bundle_graph.h) instead of
  /// the bundle; with -o json, the same graph as `result.tree`.
  bool tree = false;
  bool verify = false;  ///< --verify: parse every rendered document again (RenderCheck::kReparse)
  std::vector<std::string> cluster;  ///< --cluster FILE|- (with --check): compare with a cluster
};

/// Checks --wrapper-digest `digest` (reporting "cli.usage" naming the flag) and appends it to
/// `inputs` as the last --set (wrapper.digest); nothing when the flag was not `given`. An empty
/// digest that was given (what `$(skopeo inspect ...)` yields when skopeo fails) is an error:
/// the bundle would silently stay unpinned. Returns false after reporting. render and diff
/// share it, so that diff compares what render writes.
bool WrapperDigestLayer(const std::string& digest, bool given, LayerInputs& inputs,
                        DiagnosticSink& sink);

/// Checks each --image-digest IMAGE=sha256:<64 hex> of `pins` ("cli.usage" naming the flag when
/// one is not that) and appends it to `inputs` as a --set of images.digests.IMAGE, after
/// everything else; whether IMAGE is one the profile names is the model's check
/// ("model.image-digest"). Returns false after reporting. render, diff and their fleet forms
/// share it.
bool ImageDigestLayer(const std::vector<std::string>& pins, LayerInputs& inputs,
                      DiagnosticSink& sink);

/// Adds the repeatable --image-digest option (into `pins`) to `command`.
void AddImageDigestOption(CLI::App* command, std::vector<std::string>& pins);

/// Adds the `render` sub-command to `app`; running it calls RunRenderCommand and ends the
/// process with its exit status (through CLI::RuntimeError).
void SetupRenderCommand(CLI::App& app);

/// Renders `options.profile`: the stream (YAML, or with -o json the JSON report) to `out`, or
/// the directory; diagnostics and the "wrote N files, M changed" line to `err`.
/// Returns the exit status: 0 ok, 1 invalid profile or stale DIR (--check), 2 I/O or internal.
int RunRenderCommand(const RenderOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
