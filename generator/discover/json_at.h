#pragma once

// Reading an untrusted export: a path of keys into a JSON value, null where any step is missing
// or not an object (discover and cluster_check read the same objects this way).

#include <initializer_list>
#include <nlohmann/json.hpp>

namespace hkim::discover {

/// The value at `path` under `value`, or a null value.
inline const nlohmann::json& At(const nlohmann::json& value,
                                std::initializer_list<const char*> path) {
  static const nlohmann::json kNull;
  const nlohmann::json* current = &value;
  for (const char* key : path) {
    if (!current->is_object() || !current->contains(key)) return kNull;
    current = &(*current)[key];
  }
  return *current;
}

}  // namespace hkim::discover
