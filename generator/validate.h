#pragma once

// Validate stage: a loaded profile against schemas/profile.schema.json (valijson, nlohmann
// adapter). Every fault is reported once, at the value (or, for unknown keys, at the key), with a
// rule id ("schema.minimum") and a fix taken from the schema's `x-fix` or `description`.

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "load.h"

namespace hkim {

/// A parsed, ready-to-use JSON schema plus its source document (for messages and fixes).
class ProfileSchema;

/// Checks `profile` against `schema`, reporting every fault to `sink`. Returns true when valid.
bool ValidateProfile(const LoadedProfile& profile, const ProfileSchema& schema,
                     DiagnosticSink& sink);

class ProfileSchema {
 public:
  ProfileSchema(ProfileSchema&&) noexcept;
  ProfileSchema& operator=(ProfileSchema&&) noexcept;
  ~ProfileSchema();

  /// Parses `text` (JSON) as a draft-7 schema. Errors (bad JSON, unsupported schema) are
  /// reported against `name` with rule "schema.invalid"; returns nullopt then.
  static std::optional<ProfileSchema> Parse(const std::string& name, const std::string& text,
                                            DiagnosticSink& sink);

  /// The schema embedded into the binary (schemas/profile.schema.json), parsed once per process.
  /// Reports "schema.missing" when the build embedded none.
  static const ProfileSchema* Embedded(DiagnosticSink& sink);

  const nlohmann::json& document() const;

  /// The sub-schema that describes the instance at `json_pointer` (following properties, items,
  /// additionalProperties, local $refs, and allOf/if-then-else branches), or nullptr.
  const nlohmann::json* SchemaFor(const std::string& json_pointer) const;

  /// The property names an object at `json_pointer` may have, sorted.
  std::vector<std::string> AllowedKeys(const std::string& json_pointer) const;

  struct Impl;

 private:
  friend bool ValidateProfile(const LoadedProfile& profile, const ProfileSchema& schema,
                              DiagnosticSink& sink);
  explicit ProfileSchema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Turns a valijson error context (["<root>", "[rails]", "[2]", "[mtu]"]) into a JSON pointer
/// ("/rails/2/mtu").
std::string ContextToPointer(const std::vector<std::string>& context);

/// The candidate closest to `word` by edit distance, when close enough to be a likely typo
/// (distance <= max(1, len/3)); empty otherwise.
std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace hkim
