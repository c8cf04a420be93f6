#pragma once

// The model stage's reader, shared by the model parts (model_<family>.cc): JSON accessors that
// fall back to the schema's defaults, and located error reporting. model/model.cc composes the parts
// (ModelBuilder::Build); a new section of the profile adds a Read method here and its own file.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "model/model.h"
#include "model/checks.h"

namespace hkim {

/// Reads the document; knows where it is (JSON pointer) so errors can be located.
class ModelBuilder {
 public:
  using json = nlohmann::json;

  ModelBuilder(const LoadedProfile& loaded, DiagnosticSink& sink) : loaded_(loaded), sink_(sink) {}

  /// `keep_after_cross_field_errors`: return the profile when only CheckProfile failed.
  std::optional<Profile> Build(bool keep_after_cross_field_errors = false);

 private:
  void Error(const std::string& pointer, const std::string& rule, const std::string& message,
             const std::string& fix) {
    ReportModelError(loaded_, sink_, pointer, rule, message, fix);
    ++errors_;
  }

  static const json* Child(const json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  static std::string String(const json& object, const char* key, const std::string& fallback = "") {
    const json* value = Child(object, key);
    return value && value->is_string() ? value->get<std::string>() : fallback;
  }
  static int64_t Integer(const json& object, const char* key, int64_t fallback) {
    const json* value = Child(object, key);
    return value && value->is_number_integer() ? value->get<int64_t>() : fallback;
  }
  static bool Boolean(const json& object, const char* key, bool fallback) {
    const json* value = Child(object, key);
    return value && value->is_boolean() ? value->get<bool>() : fallback;
  }
  static std::vector<std::string> Strings(const json& object, const char* key,
                                          std::vector<std::string> fallback = {}) {
    const json* value = Child(object, key);
    if (!value || !value->is_array()) return fallback;
    std::vector<std::string> out;
    for (const json& item : *value)
      if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
  }
  // Scalars of a map become strings: extra_env allows integers and booleans for convenience.
  static std::string ScalarText(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
    return value.dump();
  }
  static std::map<std::string, std::string> StringMap(const json& object, const char* key) {
    std::map<std::string, std::string> out;
    const json* value = Child(object, key);
    if (!value || !value->is_object()) return out;
    for (auto it = value->begin(); it != value->end(); ++it) out[it.key()] = ScalarText(it.value());
    return out;
  }

  void ReadCluster(const json& root, Profile& profile);
  void ReadNodeShape(const json& shape, Profile& profile);
  void ReadTopology(const json& topology, const std::string& pointer, Profile& profile);
  void ReadNetwork(const json& network, Profile& profile);
  void ReadNccl(const json& nccl, NcclSettings& out);
  void ReadSecurity(const json& security, Security& out);
  void ReadWorkload(const json& workload, Workload& out);
  void ReadHealthCheck(const json& check, HealthCheck& out);
  void ReadGitOps(const json& gitops, Platform platform, GitOps& out);
  void ReadSelfSync(const json& gitops, GitOps& out);

  const LoadedProfile& loaded_;
  DiagnosticSink& sink_;
  int errors_ = 0;
};

}  // namespace hkim
