#pragma once

// `hkimgen init --platform P --shape S [--name CLUSTER] [--output-file FILE] [--force]`: a commented
// starter profile for a platform and node shape that validates as written (schema, model and
// lint clean), for the user to fill in.

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace hkim {

struct InitOptions {
  std::string platform;  ///< openshift | oke (kubernetes is refused: no starter of its own)
  std::string shape;     ///< a known node shape (InitShapes())
  std::string name = "my-cluster";
  std::string output;  ///< --output-file FILE; empty: stdout
  std::string repo_url;  ///< --repo-url: gitops.repo_url; empty: a placeholder lint warns on
  bool force = false;  ///< overwrite FILE
  std::string format = "yaml";  ///< -o yaml: the profile; -o json: one JSON report holding it
};

/// The node shapes init knows (the topology presets), sorted.
std::vector<std::string> InitShapes();

/// The starter profile text, or nullopt for an unknown shape or platform (kubernetes
/// included).
std::optional<std::string> StarterProfile(const InitOptions& options);

/// Adds the `init` sub-command to `app`.
void SetupInitCommand(CLI::App& app);

/// Writes the starter profile to `out` or FILE (under -o json: one JSON report on `out`, its
/// result holding the profile's text, and nothing on `err`). FILE's folder is created when
/// missing. Exit status: 0 written, 1 unknown
/// shape, a bad --name or --repo-url, or FILE exists (without --force), 2 cannot write.
int RunInitCommand(const InitOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
