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
  std::string output_dir;           ///< -d DIR: each draft as DIR/<cluster.name>.yaml
  bool force = false;               ///< overwrite existing files
  bool all_groups = false;          ///< one profile (and file) per GPU node group
  std::vector<std::string> namespaces;  ///< --namespace: the workload's namespaces
  std::string format = "yaml";  ///< -o yaml: the draft; -o json: one JSON report holding it
};

/// Adds the `discover` sub-command to `app`.
void SetupDiscoverCommand(CLI::App& app);

/// Drafts the profile(s) to `out`, FILE or DIR (each file whole or not at all, never through a
/// symlink); each draft is checked as `validate` would first. With --all-groups, one profile per
/// GPU node group, each named `<name>-<group>` and written to DIR/<cluster.name>.yaml (-d DIR is
/// needed, or -o json). Without --force no existing file is replaced: if any target exists,
/// nothing is written. Diagnostics go to `err` (under -o json: one JSON report on `out`, its
/// result holding the drafts, and nothing on `err`). Exit status: 0 written, 1 invalid export
/// (file:line:col), no GPU node, a draft that does not validate (written with its findings), a
/// --name that is not a DNS label, a usage error, or a file that exists without --force; 2 I/O.
int RunDiscoverCommand(const DiscoverOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim
