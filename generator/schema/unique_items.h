#pragma once

// The schema's `uniqueItems` keyword, checked by sorting the items instead of by valijson's own
// constraint.
//
// Why: valijson compares every pair of items and reports every equal pair. A profile list of
// 20,000 equal items (inside the loader's limits) took 72 s and gigabytes of messages, 20,000
// different ones 5.5 s. Here each item is written once as a canonical text and looked up in an
// ordered map: n log n, and one error per list (its first repeat, in valijson's words);
// validate/repeated_items.h then names every repeated item.

#include <nlohmann/json.hpp>

#include "schema/keyword_rename.h"

namespace valijson {
class SchemaParser;
}

namespace hkim {

/// The keyword UseSortedUniqueItems() teaches a parser, which `uniqueItems` is renamed to.
inline constexpr const char* kSortedUniqueItemsKeyword = "x-hkimgen-unique-items";

/// While it lives, every `uniqueItems` keyword of `schema` is renamed to the one that
/// UseSortedUniqueItems() teaches a parser (as Pcre2PatternKeywords does `pattern`, in place);
/// destroying it renames them back.
class SortedUniqueItemsKeywords : public RenamedSchemaKeyword {
 public:
  explicit SortedUniqueItemsKeywords(nlohmann::json& schema);
};

/// How the constraint's message ends, as valijson's own does: the validate stage knows a repeated
/// item by it (validate/repeated_items.h).
inline constexpr const char* kRepeatedItemsMessageEnd = " violate uniqueness constraint.";

/// Makes `parser` read the renamed keyword into constraints that report a list's first repeated
/// item as valijson's own `uniqueItems` reports each pair ("Elements at indexes #0 and #2
/// violate uniqueness constraint.").
void UseSortedUniqueItems(valijson::SchemaParser& parser);

}  // namespace hkim
