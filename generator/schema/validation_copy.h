#pragma once

// The profile schema as the validator needs it: the same schema without its annotations
// (description, title, x-fix, examples, $comment), which valijson does not read but every run
// parsed (two thirds of the schema's bytes, half of its parse). Built into the binary next to the
// whole schema (generator/schema/tools/schema_for_validation.cc); messages and `explain` still read the
// whole one, parsed only when they need it (schema/profile_schema.h).

#include <nlohmann/json.hpp>

namespace hkim {

/// `schema` without annotation keywords in any of its (sub-)schemas, and with its `pattern` and
/// `uniqueItems` keywords already renamed as Pcre2PatternKeywords and SortedUniqueItemsKeywords
/// rename them (schema/pattern.h, schema/unique_items.h: done by the build, not by every run). Property names (the keys under properties, patternProperties,
/// definitions) and data (enum, const, default) are kept whatever they are called, so a field
/// named `description` keeps its schema.
nlohmann::json SchemaForValidation(const nlohmann::json& schema);

}  // namespace hkim
