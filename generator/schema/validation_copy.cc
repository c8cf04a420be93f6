#include "schema/validation_copy.h"

#include "schema/pattern.h"
#include "schema/unique_items.h"

#include <string_view>

namespace hkim {
namespace {

using nlohmann::json;

bool IsAnnotation(std::string_view keyword) {
  return keyword == "description" || keyword == "title" || keyword == "x-fix" ||
         keyword == "examples" || keyword == "$comment";
}

// Keywords whose value is a map of names to schemas.
bool HoldsNamedSchemas(std::string_view keyword) {
  return keyword == "properties" || keyword == "patternProperties" ||
         keyword == "definitions" || keyword == "$defs" || keyword == "dependencies";
}

// Keywords whose value is a schema, or a list of schemas.
bool HoldsSchemas(std::string_view keyword) {
  return keyword == "items" || keyword == "additionalItems" ||
         keyword == "additionalProperties" || keyword == "allOf" || keyword == "anyOf" ||
         keyword == "oneOf" || keyword == "not" || keyword == "if" || keyword == "then" ||
         keyword == "else" || keyword == "contains" || keyword == "propertyNames";
}

json Strip(const json& schema);

json StripEach(const json& value) {
  if (value.is_array()) {
    json out = json::array();
    for (const json& item : value) out.push_back(Strip(item));
    return out;
  }
  return Strip(value);
}

json Strip(const json& schema) {
  if (!schema.is_object()) return schema;  // true/false schemas, and data
  json out = json::object();
  for (const auto& [keyword, value] : schema.items()) {
    if (IsAnnotation(keyword)) continue;
    if (HoldsNamedSchemas(keyword) && value.is_object()) {
      json named = json::object();
      // `dependencies` may map a name to a list of names: data, kept as is.
      for (const auto& [name, sub] : value.items()) named[name] = sub.is_array() ? sub : Strip(sub);
      out[keyword] = std::move(named);
    } else if (HoldsSchemas(keyword)) {
      out[keyword] = StripEach(value);
    } else if (keyword == "pattern" && value.is_string()) {
      out[kPcre2PatternKeyword] = value;  // matched with PCRE2 (schema/pattern.h)
    } else if (keyword == "uniqueItems" && value.is_boolean()) {
      out[kSortedUniqueItemsKeyword] = value;  // checked by sorting (schema/unique_items.h)
    } else {
      out[keyword] = value;  // constraints and data (enum, const, default, required...)
    }
  }
  return out;
}

}  // namespace

json SchemaForValidation(const json& schema) { return Strip(schema); }

}  // namespace hkim
