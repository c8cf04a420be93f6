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
  std::string format = "yaml";  ///< -o yaml: the draft; -o json: one JSON report holding it
};

/// Adds the `discover` sub-command to `app`.
void SetupDiscoverCommand(CLI::App& app);

/// Drafts the profile to `out` or FILE (whole or not at all, never through a symlink); the draft
/// is checked as `validate` would first. Diagnostics go to `err` (under -o json: one JSON report
/// on `out`, its result holding the draft, and nothing on `err`). Exit status: 0 written,
/// 1 invalid export (file:line:col), no GPU node, a draft that would not validate, a --name
/// that is not a DNS label, or FILE exists without --force; 2 I/O.
int RunDiscoverCommand(const DiscoverOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
