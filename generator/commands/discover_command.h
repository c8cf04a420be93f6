#pragma once

// `hkimgen discover FILE... | -`: a draft profile from a read-only kubectl export (the stages
// live in generator/discover/).

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace hkim {

struct DiscoverOptions {
  std::vector<std::string> inputs;  ///< export files; "-" reads stdin
  std::string name;                 ///< --name: the cluster name (an export has none)
  std::string output;               ///< --output-file FILE; empty: stdout
  bool force = false;               ///< overwrite FILE
  bool all_groups = false;          ///< one document per GPU node group
  std::vector<std::string> namespaces;  ///< --namespace: the workload's namespaces
};

/// Adds the `discover` sub-command to `app`.
void SetupDiscoverCommand(CLI::App& app);

/// Drafts the profile to `out` or FILE; diagnostics go to `err`. Exit status: 0 written,
/// 1 invalid export (file:line:col), no GPU node, or FILE exists without --force; 2 I/O.
int RunDiscoverCommand(const DiscoverOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
