#pragma once

// The profile field reference (docs/profile-reference.md), generated from the profile schema so
// that it cannot drift: `hkimgen schema --format markdown` prints it, and a test fails when the
// committed file differs.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim {

/// One documented field of the profile, in schema order of appearance (depth first, properties
/// sorted by name).
struct SchemaField {
  std::string path;          ///< dotted user path, lists as `[]`, maps as `<key>`: "rails[].mtu"
  std::string type;          ///< "integer", "string (enum)", "list of object", ...
  std::string default_text;  ///< the default as JSON text, or "" when none
  bool required = false;     ///< required by its parent object
  std::string constraints;   ///< "1 ≤ value ≤ 9216", "one of: a, b", "pattern: ^...$", ...
  std::string description;   ///< the schema's description (or title), one paragraph
};

/// The row of one sub-schema (as ProfileSchema::SchemaFor returns it) of `root`, for `path`:
/// type, default, constraints and description; `required` is left false.
SchemaField DescribeSchema(const nlohmann::json& root, const nlohmann::json& sub_schema,
                           const std::string& path);

/// Every field the schema describes, depth first. Local `$ref`s ("#/definitions/x",
/// "#/$defs/x") are followed (once per path, so recursive schemas terminate).
std::vector<SchemaField> CollectSchemaFields(const nlohmann::json& schema);

/// The whole reference document as Markdown: a header saying it is generated and how to
/// regenerate it, the layering rules (extends, -f, --set), then one table row per field.
/// Deterministic: a pure function of the schema.
std::string ProfileReferenceMarkdown(const nlohmann::json& schema);

}  // namespace hkim
