#pragma once

// Plan stage of `hkimgen diff` over a fleet (`diff A B ... -d DIR`): what a fleet render
// (fleet/fleet.h, fleet/write_fleet.h) would change in DIR, folder by folder, through the single-bundle
// comparison (diff/bundle_diff.h), plus the bundles of clusters no longer in the fleet, which a
// render leaves in place and reports.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diff/bundle_diff.h"
#include "support/diagnostics.h"
#include "fleet/fleet.h"

namespace hkim {

/// One folder of the fleet: "<dir>/<cluster>" or "<dir>/_fleet".
struct FleetFolderDiff {
  std::string folder;
  std::string profile_path;  ///< the member's profile; "" for `_fleet`
  bool exists = false;       ///< false: a render would create the folder
  BundleDiff diff;
};

/// Every folder of the fleet (members in cluster order, then `_fleet`) and the bundle folders
/// of clusters no longer in it (RemovedClusterFolders).
struct FleetDiff {
  std::vector<FleetFolderDiff> folders;
  std::vector<std::string> removed_clusters;

  /// True when a render would change a folder, or a removed cluster's bundle is still in DIR
  /// (stale, as `render --check` counts it, until the user deletes it).
  bool HasChanges() const;
};

/// Compares each folder the fleet render would write in `dir` with what is there
/// (ReadBundleDirectory, DiffBundle; a missing folder reads as empty). Reports unreadable
/// folders ("io.read") and returns nullopt then. Writes nothing.
std::optional<FleetDiff> DiffFleet(const RenderedFleet& fleet, const std::string& dir,
                                   DiagnosticSink& sink);

/// Human-readable plan: per folder a heading ("== DIR/<cluster> (PROFILE)", "new folder" when
/// it does not exist yet) and FormatBundleDiff's text; then one line per removed cluster's
/// bundle and a summary line for the fleet.
std::string FormatFleetDiff(const FleetDiff& diff, const std::string& dir);

/// The same as JSON: {"directory", "folders": [{"profile", "exists", ...BundleDiffToJson}],
/// "removed_clusters": [...], "summary": {"folders", "new", "changed", "unchanged",
/// "removed_clusters"}}.
nlohmann::json FleetDiffToJson(const FleetDiff& diff, const std::string& dir);

}  // namespace hkim
