#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/json_pointer.h"
#include "support/source_location.h"

namespace hkim {

/// Where each part of a parsed YAML document came from, keyed by JSON pointer ("" is the root,
/// "/rails/0/mtu" a nested value). `values` holds the location of the value itself, `keys` the
/// location of the mapping key that introduced it (for "unknown key" errors).
struct SourceMap {
  std::map<std::string, SourceLocation> values;
  std::map<std::string, SourceLocation> keys;

  /// The best location for a JSON pointer: the value's, else the nearest ancestor's.
  SourceLocation Find(const std::string& json_pointer) const;
  /// The location of the key naming `json_pointer`, else Find(json_pointer).
  SourceLocation FindKey(const std::string& json_pointer) const;
};

/// A YAML profile turned into JSON (for schema validation and the model), with its source map and
/// its text (for printing the offending line under an error).
struct LoadedProfile {
  std::string path;  ///< as given on the command line
  nlohmann::json document;
  SourceMap locations;
  std::vector<std::string> source_lines;
  /// A merged profile's other layers' lines (extends: bases, -f files, "--set"), by file: the
  /// text a value was written as, where its location points outside `path`.
  std::map<std::string, std::vector<std::string>> layer_lines;
  /// A merged profile's `extends:` bases, by file: the `extends:` entry that names each (in the
  /// file that extends it), for the "included from" lines of a diagnostic in a base.
  std::map<std::string, SourceLocation> extended_from;
};

/// Reads and parses one YAML file. Syntax errors, duplicate keys, anchors/tags it does not
/// support and non-mapping roots are reported to `sink` with file:line:col; returns nullopt then.
std::optional<LoadedProfile> LoadProfile(const std::string& path, DiagnosticSink& sink);

/// Same, from text already in memory (tests, stdin).
std::optional<LoadedProfile> LoadProfileFromText(const std::string& path, const std::string& text,
                                                 DiagnosticSink& sink);

/// The lines of `text` as LoadedProfile::source_lines holds them (no line ends, "\r" dropped).
std::vector<std::string> LoadProfileFromTextLines(const std::string& text);

}  // namespace hkim
