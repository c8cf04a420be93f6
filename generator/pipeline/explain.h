#pragma once

// `explain`: the final value at a path of a (layered) profile, each layer that set it, and the
// schema's description of the field.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "layering/layering.h"
#include "model/model.h"
#include "validate/validate.h"

namespace hkim {

/// Everything known about one path of a profile.
struct Explanation {
  std::string path;          ///< as the user wrote it
  std::string pointer;       ///< the JSON pointer it resolves to in the merged profile
  bool is_set = false;       ///< some layer sets it
  nlohmann::json value;      ///< the final value (merged), or the schema default when unset
  bool has_default = false;  ///< the schema states a default
  nlohmann::json default_value;
  /// Each layer that set the value, in order applied; the last one wins.
  std::vector<SourceLocation> set_by;
  /// Unset, no schema default, and the model derives it (AddDerivedValue): `value` is the
  /// derived value and `derived_from` says from what.
  bool derived = false;
  std::string derived_from;
  std::string type;
  std::string constraints;
  std::string description;
};

/// Explains `path` (dotted `rails[0].mtu_bytes`, `rails[name=eno5np0]`, or a JSON pointer) of
/// `layered`. Reports "explain.unknown-path" (with "did you mean") when the schema has no such
/// field, and "explain.bad-path" for malformed paths or missing list items; nullopt then.
std::optional<Explanation> Explain(const LayeredProfile& layered, const ProfileSchema& schema,
                                   const std::string& path, DiagnosticSink& sink);

/// When `explanation` is of a field the profile leaves unset and the model derives from other
/// fields (Argo CD's namespace, gitops projects, destination namespace, controller account, SCC
/// name, whether the periodic check runs), fills in the value `profile` holds and what it
/// comes from.
void AddDerivedValue(const Profile& profile, Explanation& explanation);

/// Text form:
///   network.rails[0].mtu_bytes = 4200
///     set by  profiles/base/openshift.yaml:31:17
///             profiles/barcelona.yaml:40:17   (final)
///     default 9000
///     type    integer; 576 ≤ value ≤ 9216
///     about   MTU of the pod interface.
/// A list or map value follows on the lines below the path, one entry a line (YAML).
std::string FormatExplanation(const Explanation& explanation);

/// JSON form: {"path", "pointer", "set", "value", "default", "set_by": [{"file", "line",
/// "column"}], "type", "constraints", "description"}.
nlohmann::json ExplanationToJson(const Explanation& explanation);

}  // namespace hkim
