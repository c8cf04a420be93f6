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
  bool all_groups = false;   ///< one YAML document per GPU node group instead of the largest
  /// --namespace: the workload's namespaces. Never inferred: the namespaces that hold NADs are
  /// the SR-IOV operator's `default` and other teams'.
  std::vector<std::string> namespaces;
};

/// The drafted profile text, or "" when an error was reported to `sink` (warnings may be there
/// either way). `sources` receives the exports' lines for the diagnostics formatter.
std::string Discover(const std::vector<ExportInput>& inputs, const DiscoverSettings& settings,
                     DiagnosticSink& sink, SourceTexts* sources = nullptr);

}  // namespace hkim::discover
