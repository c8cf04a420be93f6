#pragma once

// discover, stage 1: read kubectl exports (JSON or YAML; a `v1 List`, any `...List`, or single
// objects; several files; stdin) into one flat, ordered list of Kubernetes objects, each with
// the file:line:col it came from. Reuses the profile loader (load/load.h) so that a syntax error or a
// truncated export is reported exactly like a broken profile.

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "support/object_id.h"

namespace hkim::discover {

/// The read-only `kubectl` command whose output discover reads (also printed in its errors).
extern const char kExportCommand[];
/// The Helm releases' export (their Secrets by name and labels, without their contents), a
/// typed SecretList so that "no release" reads as such: given as a second --cluster file.
extern const char kHelmReleaseExportCommand[];

/// One input: a path as the user gave it, and its text ("-" is stdin, read by the caller).
struct ExportInput {
  std::string path;  ///< shown in diagnostics; "<stdin>" for `-`
  std::string text;
};

/// One Kubernetes object of an export.
struct ExportObject {
  std::string group;  ///< API group of its apiVersion ("" for the core group)
  std::string kind;
  std::string name;
  std::string namespace_name;            ///< empty for cluster-scoped objects
  const nlohmann::json* json = nullptr;  ///< the object, owned by ExportSet::files
  std::string pointer;                   ///< JSON pointer of the object in its file
  int file = 0;                          ///< index into ExportSet::files
  /// JSON files: where the object starts (byte offset, recorded by the parser, and line:column,
  /// counted for every object in one pass); a field inside it is searched from there
  /// (json_locate.h).
  std::size_t offset = 0;
  SourceLocation start;

  /// Its identity in the cluster (support/object_id.h).
  ObjectId id() const { return ObjectId{group, kind, namespace_name, name}; }
};

/// Every file's parsed document (kept for the objects' JSON and the diagnostics' source lines)
/// and the objects in input order. A JSON file has no source map (its locations are found in
/// `texts` on demand, json_locate.h); a YAML file has one and an empty text.
struct ExportSet {
  std::vector<LoadedProfile> files;
  std::vector<std::string> texts;  ///< per file: the JSON text, "" for YAML
  std::vector<ExportObject> objects;
  /// The kinds a typed list of the API declares ("SecretList" -> "Secret"), even with no items:
  /// an export of `kubectl get --raw /api/v1/secrets?...` that lists none still says that the
  /// cluster has none, where kubectl's untyped {"kind": "List"} cannot say what it was asked for.
  std::set<std::string> listed_kinds;
  /// Where `pointer` (relative to `object`) is, for a diagnostic.
  SourceLocation Locate(const ExportObject& object, const std::string& pointer) const;
};

/// Parses every input (a JSON export up to limits::kMaxExportBytes through export_parse.h,
/// dropping fields no check reads, such as managedFields and node images; YAML through the
/// profile loader). Syntax errors, out-of-range numbers, duplicate keys (file:line:col), and
/// roots that are not a Kubernetes object or List are reported to `sink`; items without kind or
/// metadata.name are skipped with one warning per file that counts them. Time is linear in the
/// text whatever the export's shape. The returned set holds every file that parsed.
ExportSet LoadExports(std::vector<ExportInput> inputs, DiagnosticSink& sink);

/// A JSON file's source lines are split only when a diagnostic in `sink` cites the file (a 60 MB
/// export's lines would cost more than its parse): call once every finding about the export is
/// in `sink`, before formatting.
void FillCitedSourceLines(ExportSet& set, const DiagnosticSink& sink);

}  // namespace hkim::discover
