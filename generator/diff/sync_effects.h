#pragma once

// Diff stage, `hkimgen diff`: what a sync of one file's change does on the cluster, read from
// plan/disruption.h's table: which field changed (a ClusterPolicy's driver section rolls the
// driver, its device plugin section does not), whether Argo CD will delete a removed object
// (Prune=false, Delete=false leave it in place), whether a changed ConfigMap reaches running pods,
// and whether a Subscription asks OLM for a downgrade.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/disruption.h"
#include "support/object_id.h"

namespace hkim {

/// One bundle file: its object's identity, the template it came from (its
/// "# Source: templates/..." line) and whether Argo CD keeps it when it leaves the bundle. The
/// identity is read from the file's top-level lines when they are in the plain form hkimgen
/// writes (otherwise from a YAML parse of the whole text); the whole document is parsed only
/// when a rule reads one of its fields (Document), so a file that is only added, removed or
/// moved is never parsed as YAML. A file whose header lines are plain but whose other lines are
/// not YAML keeps the identity its header states; its fields read as missing.
struct DiffObject {
  std::string group;  ///< API group of its apiVersion
  std::string kind;   ///< "" when the file is no single YAML object (README.md)
  std::string name;
  std::string namespace_name;
  std::string template_name;     ///< path under templates/, "" when the file has no Source line
  bool keep_on_removal = false;  ///< sync-options Prune=false or Delete=false

  /// Its identity in the cluster (support/object_id.h).
  ObjectId id() const { return ObjectId{group, kind, namespace_name, name}; }
  /// The whole document, parsed on first use; a null node when the text is not YAML. Reads the
  /// text ParseDiffObject was given, which must still live.
  const YAML::Node& Document() const;

 private:
  friend DiffObject ParseDiffObject(std::string_view text);
DiffObject ParseDiffObject(std::string&& text) = delete;  // the object would outlive its text
  std::string_view text_;
  mutable std::optional<YAML::Node> document_;
};

/// Parses a file's text as written (FileText) or as read from the bundle folder. The object
/// refers to `text` (for Document): keep the text alive as long as the object.
DiffObject ParseDiffObject(std::string_view text);
DiffObject ParseDiffObject(std::string&& text) = delete;  // the object would outlive its text

/// What a sync of a change does.
struct SyncEffect {
  Disruption effect = Disruption::kNone;
  std::string what;                ///< what the sync does, with nodes, pace and watch command
  std::vector<std::string> notes;  ///< what does not happen, or what to do by hand
  std::string refusal;             ///< non-empty: the change cannot take effect (why)
};

/// Adding `now`: what touches nodes when it is first applied (a new MachineConfig reboots).
SyncEffect EffectOfAdding(const DiffObject& now);

/// Changing `before` into `now`; `wanted` is the whole bundle to be (for the StatefulSets that
/// read a changed ConfigMap).
SyncEffect EffectOfChange(const DiffObject& before, const DiffObject& now,
                          const std::vector<DiffObject>& wanted);

/// Removing `before` from the bundle: left in place when Argo CD keeps it, else deleted by a sync
/// with prune, with what the deletion does.
SyncEffect EffectOfRemoval(const DiffObject& before);

/// Whether the object is one of bootstrap/ (templates/bootstrap/): applied by a cluster admin,
/// never synced by Argo CD.
bool AppliedByHand(const DiffObject& object);

/// What to do by hand for a bootstrap/ file added (`before` null) or changed: apply it, and
/// when its ClusterRole gains resources, before the sync that needs them (it names them), as
/// Argo CD is refused what the role does not grant. `file` is its name in the bundle folder.
/// Empty for a file Argo CD syncs.
std::vector<std::string> BootstrapNotes(const DiffObject* before, const DiffObject& now,
                                        const std::string& file);

/// The object moving from one layer's Application to another's (`from` and `to` are the files'
/// layer folders, "platform" and "nodes").
std::string MoveNote(const DiffObject& before, const std::string& from, const std::string& to);

}  // namespace hkim
