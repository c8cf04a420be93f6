#pragma once

// Renaming a keyword in every sub-schema of a schema, in place: how the profile schema hands
// `pattern` and `uniqueItems` to constraints of ours (schema/pattern.h, schema/unique_items.h)
// under names valijson does not read unless taught.

#include <nlohmann/json.hpp>

namespace hkim {

/// Renames each `from` keyword whose value is of type `value_type` to `to`, in `schema` and all
/// of its sub-schemas. Data (enum, const, default, examples) is left as it is, and so is a
/// property of that name: its value is a schema (an object), not the keyword's type.
void RenameSchemaKeyword(nlohmann::json& schema, const char* from, const char* to,
                         nlohmann::json::value_t value_type);

/// The same while it lives: destroying it renames the keywords back. In place: a copy of the
/// 70 KB schema cost a third of a millisecond.
class RenamedSchemaKeyword {
 public:
  RenamedSchemaKeyword(nlohmann::json& schema, const char* from, const char* to,
                       nlohmann::json::value_t value_type);
  ~RenamedSchemaKeyword();
  RenamedSchemaKeyword(const RenamedSchemaKeyword&) = delete;
  RenamedSchemaKeyword& operator=(const RenamedSchemaKeyword&) = delete;

 private:
  nlohmann::json& schema_;
  const char* from_;
  const char* to_;
  nlohmann::json::value_t value_type_;
};

}  // namespace hkim
