#pragma once
// Reading JSON that another program wrote (the API server, hkim-nccl-check, a peer of the
// localization): a field of another type than expected, or a value that is not an object at
// all, reads as absent. nlohmann's value() throws on both, which would end hkim-health.

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim::health {

/// `object[key]`, or null when `object` is not an object or lacks `key`.
inline const nlohmann::json& Field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kAbsent;
  if (!object.is_object()) return kAbsent;
  const auto found = object.find(key);
  return found == object.end() ? kAbsent : *found;
}

/// The string at `key`, else `fallback`.
inline std::string StringField(const nlohmann::json& object, const char* key,
                               const std::string& fallback = "") {
  const nlohmann::json& value = Field(object, key);
  return value.is_string() ? value.get<std::string>() : fallback;
}

/// The finite number at `key`, else `fallback`.
inline double NumberField(const nlohmann::json& object, const char* key, double fallback = 0) {
  const nlohmann::json& value = Field(object, key);
  return value.is_number() && std::isfinite(value.get<double>()) ? value.get<double>() : fallback;
}

/// The whole number at `key` that an int holds, else `fallback`.
inline int IntField(const nlohmann::json& object, const char* key, int fallback) {
  const nlohmann::json& value = Field(object, key);
  if (!value.is_number_integer()) return fallback;
  const std::int64_t number = value.get<std::int64_t>();
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > INT32_MAX) return fallback;
  return number >= std::numeric_limits<int>::min() && number <= std::numeric_limits<int>::max()
             ? static_cast<int>(number)
             : fallback;
}

/// The whole number >= 0 at `key`, else `fallback`.
inline std::uint64_t CountField(const nlohmann::json& object, const char* key,
                                std::uint64_t fallback = 0) {
  const nlohmann::json& value = Field(object, key);
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) return value.get<std::uint64_t>();
  return fallback;
}

/// The boolean at `key`, else `fallback`.
inline bool BoolField(const nlohmann::json& object, const char* key, bool fallback = false) {
  const nlohmann::json& value = Field(object, key);
  return value.is_boolean() ? value.get<bool>() : fallback;
}

/// The strings of the array at `key` (other items left out).
inline std::vector<std::string> StringsField(const nlohmann::json& object, const char* key) {
  std::vector<std::string> strings;
  const nlohmann::json& value = Field(object, key);
  if (!value.is_array()) return strings;
  for (const nlohmann::json& item : value)
    if (item.is_string()) strings.push_back(item.get<std::string>());
  return strings;
}

}  // namespace hkim::health
