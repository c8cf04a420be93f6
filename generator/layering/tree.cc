#include "layering/tree.h"

#include <functional>

namespace hkim::layering_internal {

using nlohmann::json;

// JSON pointers are computed only once, when the tree is flattened: merged list items move.
Node FromJson(const json& value, const std::string& pointer, int layer, const SourceMap& map) {
  Node node;
  auto value_it = map.values.find(pointer);
  if (value_it != map.values.end()) node.value_location = value_it->second;
  auto key_it = map.keys.find(pointer);
  if (key_it != map.keys.end()) node.key_location = key_it->second;
  node.origins.push_back(
      {layer, node.value_location.known() ? node.value_location : map.Find(pointer)});
  if (value.is_object()) {
    node.is_object = true;
    for (const auto& [key, child] : value.items()) {
      node.members[key] = FromJson(child, pointer + "/" + EscapeJsonPointerToken(key), layer, map);
    }
  } else if (value.is_array()) {
    node.is_array = true;
    for (size_t i = 0; i < value.size(); ++i) {
      node.items.push_back(FromJson(value[i], pointer + "/" + std::to_string(i), layer, map));
    }
  } else {
    node.scalar = value;
  }
  return node;
}

// Rebuilds a tree from an already merged profile (for --set), keeping recorded origins.
Node FromMerged(const json& value, const std::string& pointer, const LayeredProfile& layered) {
  Node node = FromJson(value, pointer, 0, layered.merged.locations);
  std::function<void(Node&, const std::string&)> restore = [&](Node& n, const std::string& p) {
    auto it = layered.origins.find(p);
    n.origins = it == layered.origins.end() ? std::vector<ValueOrigin>{} : it->second;
    for (auto& [key, child] : n.members) restore(child, p + "/" + EscapeJsonPointerToken(key));
    for (size_t i = 0; i < n.items.size(); ++i) restore(n.items[i], p + "/" + std::to_string(i));
  };
  restore(node, pointer);
  return node;
}

void Flatten(const Node& node, const std::string& pointer, json& out, SourceMap& map,
             std::map<std::string, std::vector<ValueOrigin>>& origins) {
  if (node.value_location.known()) map.values[pointer] = node.value_location;
  if (node.key_location.known()) map.keys[pointer] = node.key_location;
  if (!node.origins.empty()) origins[pointer] = node.origins;
  if (node.is_object) {
    out = json::object();
    for (const auto& [key, child] : node.members) {
      Flatten(child, pointer + "/" + EscapeJsonPointerToken(key), out[key], map, origins);
    }
  } else if (node.is_array) {
    out = json::array();
    for (size_t i = 0; i < node.items.size(); ++i) {
      out.push_back(json());
      Flatten(node.items[i], pointer + "/" + std::to_string(i), out.back(), map, origins);
    }
  } else {
    out = node.scalar;
  }
}

const std::string* ItemName(const Node& item) {
  if (!item.is_object) return nullptr;
  auto it = item.members.find("name");
  if (it == item.members.end() || !it->second.scalar.is_string()) return nullptr;
  return it->second.scalar.get_ptr<const std::string*>();
}

}  // namespace hkim::layering_internal
