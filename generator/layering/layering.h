#pragma once

// Layering: `extends:` base profiles, `-f extra.yaml` files and `--set path=value` overrides,
// merged into one document before schema validation, with the provenance of every value.
//
// Merge rules (docs/profile-reference.md, "Layering"):
// - layers apply in order: the deepest `extends:` base first, then each base that extends it,
//   then the profile, then every `-f` file (each may have its own `extends:`), then `--set`;
// - maps merge key by key, recursively; any other value replaces what the layer below had;
// - a list whose items are all maps with a string `name` (rails, namespaces...) merges by name:
//   items keep the base's order, an item with a known name merges into it, a new name is
//   appended; any other list replaces the list below as a whole;
// - `key: null` removes `key` (and everything under it) inherited from below; in a named list,
//   `{name: x, $remove: true}` removes the item named x;
// - the `extends:` key itself never reaches the merged document.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/diagnostics_format.h"
#include "load/load.h"

namespace hkim {

/// What goes into a layered load: the profile, `-f` files and `--set` assignments, all as the
/// user wrote them on the command line.
struct LayerInputs {
  std::string profile_path;
  std::vector<std::string> extra_files;  ///< `-f`, applied in order after the profile
  std::vector<std::string> set_values;   ///< `--set path=value`, applied in order, last
};

/// One layer that set a value, for `explain` and error locations.
struct ValueOrigin {
  int layer = 0;            ///< index into LayeredProfile::layers
  SourceLocation location;  ///< where that layer wrote the value
};

/// The merged profile and where each of its parts came from.
struct LayeredProfile {
  /// The merged document. `merged.locations` maps every JSON pointer of the merged document to
  /// the place in the layer that last set it (so schema and model errors point at that file).
  /// `merged.path` is the profile's path; `merged.source_lines` are the profile's lines.
  LoadedProfile merged;
  /// Every layer, in the order applied (bases first). The `--set` layer, when present, is last,
  /// with path "--set" and one source line per assignment.
  std::vector<LoadedProfile> layers;
  /// JSON pointer of the merged document → each layer that set it, in order applied (the last
  /// one wins). Only leaf values and lists that replaced a list are recorded.
  std::map<std::string, std::vector<ValueOrigin>> origins;

  /// The source lines of every layer's file (and of the `--set` assignments), by path, for the
  /// diagnostics formatter to print the line under an error in any layer.
  SourceTexts Sources() const;
};

/// The name `--set` assignments carry as their file in locations (line = the assignment's
/// 1-based position among the `--set` options, column = position in that assignment).
inline constexpr char kSetLayerFile[] = "--set";

/// Loads the profile, its `extends:` chain and the extra layers, and merges them. Reports every
/// error to `sink` at the file:line:col of the layer that holds it (missing or cyclic bases,
/// malformed `--set` assignments, YAML errors in any layer); returns nullopt when any was found.
/// `sources` (when given) receives the lines of every file read, even when loading fails.
std::optional<LayeredProfile> LoadLayeredProfile(const LayerInputs& inputs, DiagnosticSink& sink,
                                                 SourceTexts* sources = nullptr);

/// The same, for already-loaded layers (tests, editors): merges `layers` in order, the last one
/// being the profile. `extends:` keys in them are dropped here (resolving them is
/// LoadLayeredProfile's job). Returns nullopt after reporting `$remove` of a missing item.
std::optional<LayeredProfile> MergeLayers(std::vector<LoadedProfile> layers, DiagnosticSink& sink);

/// Applies `--set` assignments to an already merged profile, as a last layer (path
/// kSetLayerFile). Paths use dots for map keys (`\\.` for a literal dot), `[N]` for list
/// indices (N = length appends) and `[name=X]` (or `[X]`) for the item named X (created when
/// missing); values are typed like YAML scalars (null/~, true/false, integers, floats, else a
/// string) and `{a,b}` is a list; `null` removes the value. As in Helm, one argument may hold
/// several assignments separated by commas, `\,` keeping a comma in a value (layering/set.h).
/// Returns false after reporting malformed assignments to `sink`.
bool ApplySetAssignments(const std::vector<std::string>& assignments, LayeredProfile& layered,
                         DiagnosticSink& sink);

/// Fills `diagnostic.included_from` when its location is in an `extends:` base of `merged`
/// (LoadedProfile::extended_from): each `extends:` entry on the way, from the one naming that
/// base back to the profile. Leaves any other diagnostic as it is.
void AddIncludedFrom(const LoadedProfile& merged, Diagnostic& diagnostic);

/// Converts a JSON pointer ("/rails/0/mtu") to the dotted form users write ("rails[0].mtu").
std::string PointerToDotted(const std::string& json_pointer);

/// Converts a user path (dotted, `[N]`, `[name=X]`, or a JSON pointer starting with "/") to a
/// JSON pointer against `document`; named items are looked up by their `name`. Returns nullopt
/// and sets `error` when the path is malformed or names a missing list item.
std::optional<std::string> UserPathToPointer(const std::string& path,
                                             const nlohmann::json& document, std::string* error);

}  // namespace hkim
