#pragma once

// discover, stage 1a: one JSON export text -> its document and where each listed object starts,
// in one pass of nlohmann's SAX parser. The positions come from the parser as it reads (its input
// is counted), so locating every object of any shape of export (a List of Lists pasted together,
// 100,000 items that are not objects) costs nothing more than the parse.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hkim::discover {

/// The document kept from a JSON export may cost at most this many bytes of memory per byte of
/// export text (as ExportBuilder estimates it; the estimate runs about 1.2x high), plus
/// kExportKeptBytesFloor. A real export, whose images, managedFields and conditions are dropped,
/// keeps about 1x (2,000 nodes: 58 MB of text); a compact export of small objects only
/// (SR-IOV node states piped through `jq -c`) up to about 7x; a dense one of millions of
/// one-letter labels would need 12x and is refused (limit.export-values) where it passes the
/// budget, so peak memory stays under about 7.5x the export plus 64 MiB (bench/export/run.sh).
inline constexpr std::size_t kExportKeptBytesPerByte = 8;
inline constexpr std::size_t kExportKeptBytesFloor = 64u << 20;

/// One `items` array of a List the export holds: the root's, or that of a List inside it.
struct ListItems {
  std::string pointer;                ///< JSON pointer of the array ("/items", "/items/3/items")
  std::vector<std::size_t> offsets;   ///< byte offset where each element starts
};

/// A parsed JSON export.
struct ParsedExport {
  /// The document without the fields no check reads (managedFields, node images, conditions,
  /// ...) and with containers nested deeper than limits::kMaxExportDepth as null (an array keeps
  /// its length, so indexes still match the text).
  nlohmann::json document;
  std::vector<ListItems> lists;  ///< every List's items, in the order their arrays open
  std::size_t root_offset = 0;   ///< where the root value starts
};

/// Why a JSON export did not parse: where (a byte offset into the text), the rule and what.
struct ExportParseError {
  std::size_t offset = 0;
  std::string rule;  ///< yaml.syntax, yaml.number-range, yaml.duplicate-key, limit.export-values
  std::string message;  ///< says "the export"; quotes at most a short part of the text
};

/// Parses `text`; on failure returns nullopt and fills `error`. Time is linear in the text and
/// memory a bounded multiple of what is kept; duplicate keys are an error (which of two values
/// a reader keeps is not something a check should depend on).
/// `kept_floor` is the budget's floor (kExportKeptBytesFloor; tests pass 0 to see the ratio).
std::optional<ParsedExport> ParseJsonExport(const std::string& text, ExportParseError* error,
                                            std::size_t kept_floor = kExportKeptBytesFloor);

}  // namespace hkim::discover
