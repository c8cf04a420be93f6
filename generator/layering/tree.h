#pragma once

// Internals shared by layering/layering.cc (merging layers) and layering/set.cc (--set and user paths):
// the annotated tree the merge works on. Not part of the layering interface (layering/layering.h).

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layering/layering.h"

namespace hkim::layering_internal {

/// A value with its location and origins; merging moves them with the value, so items moving
/// inside a merged list (or removed from it) keep their provenance.
struct Node {
  nlohmann::json scalar;  // valid when neither is_object nor is_array
  bool is_object = false;
  bool is_array = false;
  std::map<std::string, Node> members;
  std::vector<Node> items;
  SourceLocation value_location;
  SourceLocation key_location;
  std::vector<ValueOrigin> origins;

  bool IsNull() const { return !is_object && !is_array && scalar.is_null(); }
};

/// The tree of `value` (at `pointer` of a layer), locations from `map`, origin `layer`.
Node FromJson(const nlohmann::json& value, const std::string& pointer, int layer,
              const SourceMap& map);
/// The tree of an already merged profile, with its recorded origins.
Node FromMerged(const nlohmann::json& value, const std::string& pointer,
                const LayeredProfile& layered);
/// Writes the tree back as JSON, a source map and origins by pointer.
void Flatten(const Node& node, const std::string& pointer, nlohmann::json& out, SourceMap& map,
             std::map<std::string, std::vector<ValueOrigin>>& origins);
/// The `name` of a list item, or null when it has none.
const std::string* ItemName(const Node& item);

}  // namespace hkim::layering_internal
