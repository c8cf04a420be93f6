#pragma once

// Every limit hkimgen puts on its input, in one place (docs/profiles.md, "Limits", lists them). They keep any
// input, hostile or careless, answered with a diagnostic within bounded time and memory: a real
// profile is a few kilobytes with a few hundred values nested a few levels deep.

#include <cstddef>

namespace hkim::limits {

/// Largest profile or layer file read (bytes). Larger files are refused before parsing.
inline constexpr std::size_t kMaxProfileBytes = 1024 * 1024;

/// Most values (scalars, mappings and lists, counted after alias expansion) one YAML document may
/// hold. Bounds "billion laughs" alias bombs and huge flat documents alike.
inline constexpr std::size_t kMaxValues = 20000;

/// Most text (bytes of scalars, 8 per number, list or mapping) one document may expand to through
/// aliases: an 8 KiB value repeated by a thousand aliases is refused, not copied.
inline constexpr std::size_t kMaxExpandedBytes = 4 * 1024 * 1024;

/// Deepest nesting of mappings and lists in one document.
inline constexpr std::size_t kMaxDepth = 64;

/// Most errors the loader, and then validation, report for one file before they stop
/// (limit.errors), like a compiler's error limit: past a hundred, one bracket or quote left open
/// or one wrong shape causes the rest, and a 16 KiB flow mapping of commas or list of nulls
/// would otherwise be thousands of findings (megabytes of -o json).
inline constexpr std::size_t kMaxFileErrors = 100;

/// Longest single value (bytes). No profile value needs more, and it bounds what every later
/// stage (schema patterns, lint, templates, diagnostics that quote the value) does with one.
inline constexpr std::size_t kMaxScalarBytes = 8 * 1024;

/// Longest `--set` assignment (bytes).
inline constexpr std::size_t kMaxSetBytes = 8 * 1024;

/// Largest cluster export read (bytes): a 2,000-node export is tens of megabytes. JSON exports
/// are parsed without a per-value source map, so they are not bound by kMaxValues; YAML exports
/// go through the profile loader and its limits.
inline constexpr std::size_t kMaxExportBytes = 512 * 1024 * 1024;

/// Deepest nesting kept from a JSON export; deeper values are dropped (no Kubernetes field that
/// hkimgen reads is nested deeper than a dozen levels).
inline constexpr std::size_t kMaxExportDepth = 64;

/// Source lines longer than this are shown cut around the column (each side gets half).
inline constexpr std::size_t kMaxShownLineBytes = 120;

}  // namespace hkim::limits
