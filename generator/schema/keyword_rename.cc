#include "schema/keyword_rename.h"

#include <string>

namespace hkim {
namespace {

// Keywords whose values are data, not schemas: a keyword's name inside them is left alone.
bool HoldsData(const std::string& keyword) {
  return keyword == "enum" || keyword == "const" || keyword == "default" ||
         keyword == "examples";
}

}  // namespace

void RenameSchemaKeyword(nlohmann::json& schema, const char* from, const char* to,
                         nlohmann::json::value_t value_type) {
  if (schema.is_array()) {
    for (nlohmann::json& item : schema) RenameSchemaKeyword(item, from, to, value_type);
    return;
  }
  if (!schema.is_object()) return;
  auto& members = schema.get_ref<nlohmann::json::object_t&>();
  for (auto& [key, value] : members) {
    if (!HoldsData(key)) RenameSchemaKeyword(value, from, to, value_type);
  }
  auto keyword = members.find(from);
  if (keyword != members.end() && keyword->second.type() == value_type &&
      members.count(to) == 0) {
    auto moved = members.extract(keyword);  // the value stays where it is; only the key changes
    moved.key() = to;
    members.insert(std::move(moved));
  }
}

RenamedSchemaKeyword::RenamedSchemaKeyword(nlohmann::json& schema, const char* from,
                                           const char* to, nlohmann::json::value_t value_type)
    : schema_(schema), from_(from), to_(to), value_type_(value_type) {
  RenameSchemaKeyword(schema_, from_, to_, value_type_);
}

RenamedSchemaKeyword::~RenamedSchemaKeyword() {
  RenameSchemaKeyword(schema_, to_, from_, value_type_);
}

}  // namespace hkim
