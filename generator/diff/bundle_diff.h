#pragma once

// Diff stage, `hkimgen diff`: what rendering the profile would change in an existing bundle
// directory. Pure comparison; reading the directory is separate so tests run in memory.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "plan/disruption.h"
#include "render/render.h"

namespace hkim {

/// One file of the bundle that would be added, changed, moved or removed, and what a sync of it
/// does on the cluster (diff/sync_effects.h, from plan/disruption.h's table).
struct BundleChange {
  enum class Kind { kAdded, kChanged, kMoved, kRemoved };
  Kind kind = Kind::kChanged;
  std::string file_name;    ///< name inside the bundle directory
  std::string moved_from;   ///< kMoved: the file it was (same object, another layer)
  std::string object_kind;  ///< Kubernetes kind of the object ("MachineConfig"), "" if unknown
  std::string object_name;  ///< metadata.name, "" if unknown
  Disruption effect = Disruption::kNone;
  /// True when a sync of the change touches nodes: drains, reboots, resets VFs or rolls a driver.
  bool disruptive = false;
  std::string disruption;          ///< what the sync does; empty when effect is kNone
  std::vector<std::string> notes;  ///< what does not happen on the cluster, what to do by hand
  std::string refusal;             ///< non-empty: the change cannot take effect (OLM downgrade)
  /// A bootstrap/ file added or changed: a cluster admin applies it, Argo CD does not (its notes
  /// say the command, and what the sync needs of it).
  bool by_hand = false;
  std::string unified_diff;  ///< `diff -u` style text ("--- a/F", "+++ b/F", hunks); empty for
                             ///< added and removed files
};

/// Every change, sorted by file name. Empty means the directory is current.
struct BundleDiff {
  std::vector<BundleChange> changes;
  /// Files in the folder the marker does not list: the user's, which render keeps; never
  /// "removed".
  std::vector<std::string> user_files;

  bool HasChanges() const { return !changes.empty(); }
  bool HasDisruptiveChanges() const;
  bool HasRefusals() const;
};

/// Compares the bundle that would be written with the files already in the directory
/// (file name → content). Files are compared byte for byte. `ours` (the names the folder's
/// .hkimgen-bundle lists, when it has one) tells hkimgen's files from the user's: only ours can
/// be removed.
BundleDiff DiffBundle(const RenderedBundle& wanted,
                      const std::map<std::string, std::string>& existing,
                      const std::optional<std::set<std::string>>& ours = std::nullopt);

/// The names the marker (.hkimgen-bundle) of `dir` lists; nullopt when it has none.
std::optional<std::set<std::string>> ReadBundleMarkerFiles(const std::string& dir);

/// Reads every `*.yaml` / `*.yml` file directly in `dir` (not hidden, not in sub-folders), by
/// name. A directory that does not exist reads as empty (everything would be added). Reports
/// unreadable files (rule "io.read"); returns nullopt then.
std::optional<std::map<std::string, std::string>> ReadBundleDirectory(const std::string& dir,
                                                                      DiagnosticSink& sink);

/// Human-readable plan: one line per change ("+ added", "~ changed", "> moved", "- removed",
/// with "[disruptive: EFFECT: ...]", "[job restart: ...]", "[refused: ...]" or "[by hand]"), its
/// notes, the user's files that stay, each changed file's unified diff, then a summary line.
std::string FormatBundleDiff(const BundleDiff& diff, const std::string& dir);

/// The same as JSON: {"directory", "changes": [{"change", "file", "moved_from", "kind", "name",
/// "effect", "disruptive", "disruption", "notes", "refusal", "by_hand", "diff"}], "user_files",
/// "summary": {"added", "changed", "moved", "removed", "disruptive", "job_restarts",
/// "refused", "by_hand"}}.
nlohmann::json BundleDiffToJson(const BundleDiff& diff, const std::string& dir);

}  // namespace hkim
