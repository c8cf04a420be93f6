#pragma once

// One Kubernetes object's identity, the way the API server keys it: {group, kind, namespace,
// name}. Every stage that asks "is this the same object" (two fleet members' bundles, a bundle
// against a cluster export, a bundle's files before and after) compares these, not strings
// spelled each its own way.

#include <compare>
#include <string>
#include <string_view>

namespace hkim {

/// The API group of an apiVersion ("apps/v1" -> "apps", "v1" -> ""), as RBAC and AppProjects
/// name it.
std::string_view ApiGroupOf(std::string_view api_version);

struct ObjectId {
  std::string group;           ///< API group, "" for the core group
  std::string kind;            ///< e.g. "Namespace"
  std::string namespace_name;  ///< "" for cluster-scoped objects
  std::string name;

  /// From an apiVersion ("security.openshift.io/v1") rather than its group.
  static ObjectId FromApiVersion(std::string_view api_version, std::string kind,
                                 std::string namespace_name, std::string name);

  friend auto operator<=>(const ObjectId&, const ObjectId&) = default;
  friend bool operator==(const ObjectId&, const ObjectId&) = default;
};

}  // namespace hkim
