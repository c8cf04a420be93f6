#pragma once

// The profile's JSON schema (schemas/profile.schema.json, embedded at build time), parsed for
// valijson and walkable by JSON pointer, for validation messages, `explain` and "did you mean".

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"

namespace valijson {
class Schema;
}

namespace hkim {

/// A parsed, ready-to-use JSON schema plus its source document (for messages and fixes).
class ProfileSchema {
 public:
  ProfileSchema(ProfileSchema&&) noexcept;
  ProfileSchema& operator=(ProfileSchema&&) noexcept;
  ~ProfileSchema();

  /// Parses `text` (JSON) as a draft-7 schema. Errors (bad JSON, unsupported schema) are
  /// reported against `name` with rule "schema.invalid"; returns nullopt then.
  static std::optional<ProfileSchema> Parse(const std::string& name, std::string_view text,
                                            DiagnosticSink& sink);

  /// The schema embedded into the binary (schemas/profile.schema.json), parsed once per process.
  /// Reports "schema.missing" when the build embedded none.
  static const ProfileSchema* Embedded(DiagnosticSink& sink);

  /// The whole schema (annotations included), parsed on first use.
  const nlohmann::json& document() const;

  /// The schema as valijson compiled it.
  const valijson::Schema& compiled() const;

  /// The sub-schema that describes the instance at `json_pointer` (following properties, items,
  /// additionalProperties, local $refs, and allOf/if-then-else branches), or nullptr.
  const nlohmann::json* SchemaFor(const std::string& json_pointer) const;

  /// The property names an object at `json_pointer` may have, sorted.
  std::vector<std::string> AllowedKeys(const std::string& json_pointer) const;

  struct Impl;

 private:
  explicit ProfileSchema(std::unique_ptr<Impl> impl);
  /// Compiles `validation_text` (the schema, or the build's copy of it without annotations and
  /// with its patterns' keyword renamed: schema/validation_copy.h); document() parses
  /// `whole_text` when it is another text, which must then outlive the schema.
  static std::optional<ProfileSchema> Compile(const std::string& name,
                                              std::string_view validation_text,
                                              std::string_view whole_text, DiagnosticSink& sink);
  std::unique_ptr<Impl> impl_;
};

/// Follows local "$ref"s ("#/definitions/rail") from `node` inside `root`; nullptr when one
/// points nowhere.
const nlohmann::json* ResolveSchemaRef(const nlohmann::json& root, const nlohmann::json* node);

/// The schema's advice for a value: its `x-fix`, else its `description`, else "".
std::string SchemaFix(const nlohmann::json* schema);

/// `schema[key]`, or nullptr when `schema` is not an object or has no such key.
const nlohmann::json* SchemaKeyword(const nlohmann::json* schema, const char* key);

/// The candidate closest to `word` by edit distance, when close enough to be a likely typo
/// (distance <= max(1, len/3)); empty otherwise.
std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace hkim
