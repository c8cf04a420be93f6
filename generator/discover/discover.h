#pragma once

// `hkimgen discover`'s pipeline in one place: exports → objects → cluster facts → inferred
// profile(s) → commented YAML. Reads nothing from disk itself (the command does), so tests run
// it on text in memory.

#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/diagnostics_format.h"
#include "discover/export_load.h"

namespace hkim::discover {

struct DiscoverSettings {
  std::string cluster_name;  ///< empty: a TODO placeholder
  /// One profile per GPU node group instead of the largest, each named `<name>-<group>`.
  bool all_groups = false;
  /// --namespace: the workload's namespaces. Never inferred: the namespaces that hold NADs are
  /// the SR-IOV operator's `default` and other teams'.
  std::vector<std::string> namespaces;
};

/// One drafted profile.
struct Draft {
  std::string cluster_name;  ///< its cluster.name (what names its file with -d)
  std::string text;
};

/// The drafted profiles: one, or with `all_groups` one per GPU node group, largest first, with
/// distinct cluster names (`<name>-<group>`: the group's instance type, else its GPU product, as
/// a DNS label; both when two groups share one). None when an error was reported to `sink`
/// (warnings may be there either way). `sources` receives the exports' lines for the
/// diagnostics formatter. The inputs are taken (moved into the loaded set), so an export's text
/// is held once.
std::vector<Draft> DiscoverDrafts(std::vector<ExportInput> inputs, const DiscoverSettings& settings,
                                  DiagnosticSink& sink, SourceTexts* sources = nullptr);

/// The first draft's text, or "" when an error was reported (DiscoverDrafts).
std::string Discover(std::vector<ExportInput> inputs, const DiscoverSettings& settings,
                     DiagnosticSink& sink, SourceTexts* sources = nullptr);

}  // namespace hkim::discover
