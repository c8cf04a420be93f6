#pragma once

// Plan stage of `hkimgen diff`: what rendering the profile would change in an existing bundle
// directory. Pure comparison; reading the directory is separate so tests run in memory.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "render/render.h"

namespace hkim {

/// One file of the bundle that would be added, changed or removed.
struct BundleChange {
  enum class Kind { kAdded, kChanged, kRemoved };
  Kind kind = Kind::kChanged;
  std::string file_name;    ///< name inside the bundle directory
  std::string object_kind;  ///< Kubernetes kind of the object ("MachineConfig"), "" if unknown
  std::string object_name;  ///< metadata.name, "" if unknown
  /// True when applying the change drains or reboots nodes (MachineConfig, SR-IOV node
  /// policies, the Network Operator's cluster policy).
  bool disruptive = false;
  std::string disruption;    ///< why, one sentence; empty unless disruptive
  std::string unified_diff;  ///< `diff -u` style text ("--- a/F", "+++ b/F", hunks); empty for
                             ///< added and removed files
};

/// Every change, sorted by file name. Empty means the directory is current.
struct BundleDiff {
  std::vector<BundleChange> changes;

  bool HasChanges() const { return !changes.empty(); }
  bool HasDisruptiveChanges() const;
};

/// Compares the bundle that would be written with the files already in the directory
/// (file name → content). Files are compared byte for byte.
BundleDiff DiffBundle(const RenderedBundle& wanted,
                      const std::map<std::string, std::string>& existing);

/// Reads every `*.yaml` / `*.yml` file directly in `dir` (not hidden, not in sub-folders), by
/// name. A directory that does not exist reads as empty (everything would be added). Reports
/// unreadable files (rule "io.read"); returns nullopt then.
std::optional<std::map<std::string, std::string>> ReadBundleDirectory(const std::string& dir,
                                                                      DiagnosticSink& sink);

/// `diff -u`-style text of two texts, three lines of context, or "" when equal.
std::string UnifiedDiff(const std::string& old_text, const std::string& new_text,
                        const std::string& old_label, const std::string& new_label);

/// Whether changing an object of `kind` drains or reboots nodes, and why ("" when not).
std::string DisruptionOf(const std::string& kind);

/// Human-readable plan: one line per change ("+ added", "~ changed", "- removed", with
/// "[disruptive: ...]"), each changed file's unified diff, then a summary line.
std::string FormatBundleDiff(const BundleDiff& diff, const std::string& dir);

/// The same as JSON: {"directory", "changes": [{"change", "file", "kind", "name",
/// "disruptive", "disruption", "diff"}], "summary": {"added", "changed", "removed",
/// "disruptive"}}.
nlohmann::json BundleDiffToJson(const BundleDiff& diff, const std::string& dir);

}  // namespace hkim
