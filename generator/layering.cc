#include "layering.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

namespace hkim {
namespace {

using nlohmann::json;

constexpr char kExtendsKey[] = "extends";
constexpr char kRemoveKey[] = "$remove";

std::string EscapeToken(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> SplitPointer(const std::string& pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  size_t start = 1;
  while (true) {
    size_t slash = pointer.find('/', start);
    std::string raw = pointer.substr(start, slash == std::string::npos ? std::string::npos
                                                                       : slash - start);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size()) {
        token += raw[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        token += raw[i];
      }
    }
    tokens.push_back(token);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return tokens;
}

// The merge works on a tree that carries each value's location and origins with it, so that
// items moving inside a merged list (or removed from it) keep their provenance; JSON pointers
// are computed only once, when the tree is flattened.
struct Node {
  json scalar;  // valid when neither is_object nor is_array
  bool is_object = false;
  bool is_array = false;
  std::map<std::string, Node> members;
  std::vector<Node> items;
  SourceLocation value_location;
  SourceLocation key_location;
  std::vector<ValueOrigin> origins;

  bool IsNull() const { return !is_object && !is_array && scalar.is_null(); }
};

Node FromJson(const json& value, const std::string& pointer, int layer, const SourceMap& map) {
  Node node;
  auto value_it = map.values.find(pointer);
  if (value_it != map.values.end()) node.value_location = value_it->second;
  auto key_it = map.keys.find(pointer);
  if (key_it != map.keys.end()) node.key_location = key_it->second;
  node.origins.push_back({layer, node.value_location.known() ? node.value_location
                                                              : map.Find(pointer)});
  if (value.is_object()) {
    node.is_object = true;
    for (const auto& [key, child] : value.items()) {
      node.members[key] = FromJson(child, pointer + "/" + EscapeToken(key), layer, map);
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
    for (auto& [key, child] : n.members) restore(child, p + "/" + EscapeToken(key));
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
      Flatten(child, pointer + "/" + EscapeToken(key), out[key], map, origins);
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

bool IsNamedList(const Node& node) {
  if (!node.is_array || node.items.empty()) return false;
  return std::all_of(node.items.begin(), node.items.end(),
                     [](const Node& item) { return ItemName(item) != nullptr; });
}

bool IsRemoveMarker(const Node& item) {
  if (!item.is_object) return false;
  auto it = item.members.find(kRemoveKey);
  return it != item.members.end() && it->second.scalar.is_boolean() &&
         it->second.scalar.get<bool>();
}

void AppendOrigins(Node& target, const std::vector<ValueOrigin>& more) {
  target.origins.insert(target.origins.end(), more.begin(), more.end());
}

class Merger {
 public:
  explicit Merger(DiagnosticSink* sink) : sink_(sink) {}

  void Merge(Node& below, const Node& over) {
    if (below.is_object && over.is_object) {
      for (const auto& [key, child] : over.members) {
        auto it = below.members.find(key);
        if (child.IsNull() && it != below.members.end()) {
          below.members.erase(it);  // `key: null` removes the inherited value
        } else if (it != below.members.end()) {
          Merge(it->second, child);
        } else {
          below.members[key] = Strip(child);
        }
      }
      TakeLocation(below, over);
      AppendOrigins(below, over.origins);
      return;
    }
    if (below.is_array && over.is_array && IsNamedList(below) &&
        std::all_of(over.items.begin(), over.items.end(),
                    [](const Node& item) { return ItemName(item) != nullptr; })) {
      for (const Node& item : over.items) {
        const std::string& name = *ItemName(item);
        auto it = std::find_if(below.items.begin(), below.items.end(), [&](const Node& b) {
          return *ItemName(b) == name;
        });
        if (IsRemoveMarker(item)) {
          if (it != below.items.end()) {
            below.items.erase(it);
          } else {
            ReportRemoveMissing(item, name);
          }
        } else if (it != below.items.end()) {
          Merge(*it, item);
        } else {
          below.items.push_back(Strip(item));
        }
      }
      TakeLocation(below, over);
      AppendOrigins(below, over.origins);
      return;
    }
    // Replacement: the value below is gone, but explain still lists every layer that set it.
    std::vector<ValueOrigin> history = below.origins;
    below = Strip(over);
    history.insert(history.end(), below.origins.begin(), below.origins.end());
    below.origins = std::move(history);
  }

  // A value that lands where nothing was below: `$remove` markers inside it have nothing to
  // remove (an error, so a typo in a name is not silently ignored); nulls stay for the schema.
  Node Strip(const Node& node) {
    Node out = node;
    StripInPlace(out);
    return out;
  }

 private:
  void StripInPlace(Node& node) {
    if (node.is_array) {
      std::vector<Node> kept;
      for (Node& item : node.items) {
        if (IsRemoveMarker(item) && ItemName(item) != nullptr) {
          ReportRemoveMissing(item, *ItemName(item));
          continue;
        }
        StripInPlace(item);
        kept.push_back(std::move(item));
      }
      node.items = std::move(kept);
    }
    for (auto& [key, child] : node.members) StripInPlace(child);
  }

  void TakeLocation(Node& below, const Node& over) {
    if (over.value_location.known()) below.value_location = over.value_location;
  }

  void ReportRemoveMissing(const Node& item, const std::string& name) {
    if (sink_ == nullptr) return;
    Diagnostic d;
    d.severity = Severity::kError;
    auto it = item.members.find(kRemoveKey);
    d.location = it != item.members.end() && it->second.key_location.known()
                     ? it->second.key_location
                     : item.value_location;
    d.rule = "layering.remove-missing";
    d.message = "`$remove` names item '" + name + "', but no layer below defines an item of that name";
    d.fix = "check the name against the base profile (`hkimgen explain` shows the merged list), "
            "or delete this item";
    sink_->Report(std::move(d));
  }

  DiagnosticSink* sink_;
};

// Takes the `extends:` key out of a layer's document and location maps.
std::optional<json> TakeExtends(LoadedProfile& layer) {
  if (!layer.document.is_object() || !layer.document.contains(kExtendsKey)) return std::nullopt;
  json value = layer.document[kExtendsKey];
  layer.document.erase(kExtendsKey);
  return value;
}

void EraseLocationsUnder(SourceMap& map, const std::string& pointer) {
  for (auto* m : {&map.values, &map.keys}) {
    for (auto it = m->lower_bound(pointer); it != m->end();) {
      if (it->first == pointer || it->first.rfind(pointer + "/", 0) == 0) {
        it = m->erase(it);
      } else if (it->first.rfind(pointer, 0) == 0) {
        ++it;
      } else {
        break;
      }
    }
  }
}

std::string Normalize(const std::string& path) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(path, ec);
  return ec ? std::filesystem::path(path).lexically_normal().string() : canonical.string();
}

class ChainLoader {
 public:
  explicit ChainLoader(DiagnosticSink& sink) : sink_(sink) {}

  // Appends `path` and (first) its bases to `out`. `via` locates the `extends:` that named it.
  bool Load(const std::string& path, const SourceLocation* via,
            std::vector<LoadedProfile>& out) {
    const std::string key = Normalize(path);
    if (std::find(stack_.begin(), stack_.end(), key) != stack_.end()) {
      Report(via, "layering.extends-cycle",
             "`extends: " + path + "` makes a cycle: this file is already one of its own bases",
             "remove the `extends:` that points back at a file extending this one");
      return false;
    }
    if (via != nullptr) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(path, ec)) {
        Report(via, "layering.extends-missing", "base profile '" + path + "' does not exist",
               "give a path relative to this file, e.g. `extends: base/openshift.yaml`");
        return false;
      }
    }
    // Read here rather than in LoadProfile so that the lines of a file that fails to parse are
    // known (its errors still show their line); LoadProfile reports an unreadable file.
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const bool readable = in && !std::filesystem::is_directory(path);  // a directory "opens"
    std::optional<LoadedProfile> loaded =
        readable ? LoadProfileFromText(path, text.str(), sink_) : LoadProfile(path, sink_);
    if (!loaded) {
      if (readable) failed_texts_[path] = LoadProfileFromTextLines(text.str());
      return false;
    }
    std::optional<json> extends = TakeExtends(*loaded);
    bool ok = true;
    if (extends) {
      SourceLocation at = loaded->locations.Find("/extends");
      std::vector<std::pair<std::string, SourceLocation>> bases;
      if (extends->is_string()) {
        bases.push_back({extends->get<std::string>(), at});
      } else if (extends->is_array() &&
                 std::all_of(extends->begin(), extends->end(),
                             [](const json& v) { return v.is_string(); })) {
        for (size_t i = 0; i < extends->size(); ++i) {
          bases.push_back({(*extends)[i].get<std::string>(),
                           loaded->locations.Find("/extends/" + std::to_string(i))});
        }
      } else {
        Report(&at, "layering.extends-type",
               "`extends:` must be a path or a list of paths of base profiles",
               "write `extends: base/openshift.yaml` (relative to this file)");
        ok = false;
      }
      EraseLocationsUnder(loaded->locations, "/extends");
      stack_.push_back(key);
      auto dir = std::filesystem::path(path).parent_path();
      for (const auto& [base, base_at] : bases) {
        std::string base_path = (dir / base).lexically_normal().string();
        ok = Load(base_path, &base_at, out) && ok;
      }
      stack_.pop_back();
    }
    out.push_back(std::move(*loaded));
    return ok;
  }

  /// Lines of the files that failed to load, by path.
  const SourceTexts& failed_texts() const { return failed_texts_; }

 private:
  void Report(const SourceLocation* at, std::string rule, std::string message, std::string fix) {
    Diagnostic d;
    if (at != nullptr) d.location = *at;
    d.data_path = "/extends";
    d.rule = std::move(rule);
    d.message = std::move(message);
    d.fix = std::move(fix);
    sink_.Report(std::move(d));
  }

  DiagnosticSink& sink_;
  std::vector<std::string> stack_;
  SourceTexts failed_texts_;
};

// --- --set ------------------------------------------------------------------------------

struct PathStep {
  enum Kind { kKey, kIndex, kName } kind = kKey;
  std::string text;  // key or name
  size_t index = 0;
};

std::optional<std::vector<PathStep>> ParseUserPath(const std::string& path, std::string* error) {
  std::vector<PathStep> steps;
  if (!path.empty() && path[0] == '/') {
    for (const std::string& token : SplitPointer(path)) {
      PathStep step;
      if (!token.empty() && std::all_of(token.begin(), token.end(), ::isdigit)) {
        step.kind = PathStep::kIndex;
        step.index = std::stoul(token);
        step.text = token;
      } else {
        step.text = token;
      }
      steps.push_back(step);
    }
    return steps;
  }
  size_t i = 0;
  auto fail = [&](const std::string& why) {
    *error = why + " at character " + std::to_string(i + 1) + " of '" + path + "'";
    return std::nullopt;
  };
  if (path.empty()) {
    *error = "the path is empty";
    return std::nullopt;
  }
  bool expect_key = true;
  while (i < path.size()) {
    if (expect_key) {
      std::string key;
      while (i < path.size() && path[i] != '.' && path[i] != '[') {
        if (path[i] == '\\' && i + 1 < path.size()) ++i;
        if (path[i] == ']') return fail("unexpected ']'");
        key += path[i++];
      }
      if (key.empty()) return fail("a key is missing");
      steps.push_back({PathStep::kKey, key, 0});
      expect_key = false;
    } else if (path[i] == '.') {
      ++i;
      expect_key = true;
      if (i == path.size()) return fail("a key is missing");
    } else if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string::npos) return fail("'[' is not closed");
      std::string inside = path.substr(i + 1, close - i - 1);
      if (inside.empty()) return fail("'[]' needs an index or a name");
      PathStep step;
      if (std::all_of(inside.begin(), inside.end(), ::isdigit)) {
        step.kind = PathStep::kIndex;
        step.index = std::stoul(inside);
        step.text = inside;
      } else {
        step.kind = PathStep::kName;
        step.text = inside.rfind("name=", 0) == 0 ? inside.substr(5) : inside;
      }
      steps.push_back(step);
      i = close + 1;
    } else {
      return fail("expected '.' or '['");
    }
  }
  return steps;
}

json TypedScalar(const std::string& text) {
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+");
  if (text == "null" || text == "~" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (std::regex_match(text, kInt)) {
    try {
      return std::stoll(text);
    } catch (const std::out_of_range&) {
      return text;
    }
  }
  if (std::regex_match(text, kFloat)) return std::stod(text);
  if (text.size() >= 2 && ((text.front() == '"' && text.back() == '"') ||
                           (text.front() == '\'' && text.back() == '\''))) {
    return text.substr(1, text.size() - 2);  // quoted: always a string
  }
  return text;
}

json TypedValue(const std::string& text) {
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
    json list = json::array();
    std::string inner = text.substr(1, text.size() - 2);
    if (inner.empty()) return list;
    size_t start = 0;
    while (true) {
      size_t comma = inner.find(',', start);
      list.push_back(TypedScalar(inner.substr(start, comma == std::string::npos
                                                          ? std::string::npos
                                                          : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return list;
  }
  return TypedScalar(text);
}

Node LeafNode(const json& value, const SourceLocation& at, int layer) {
  Node node = FromJson(value, "", layer, SourceMap{});
  std::function<void(Node&)> locate = [&](Node& n) {
    n.value_location = at;
    n.origins = {{layer, at}};
    for (auto& item : n.items) locate(item);
  };
  locate(node);
  return node;
}

}  // namespace

SourceTexts LayeredProfile::Sources() const {
  SourceTexts texts;
  texts[merged.path] = merged.source_lines;
  for (const LoadedProfile& layer : layers) texts[layer.path] = layer.source_lines;
  return texts;
}

namespace {

std::optional<LayeredProfile> MergeReporting(std::vector<LoadedProfile> layers,
                                             DiagnosticSink& sink) {
  LayeredProfile out;
  int errors_before = sink.ErrorCount();
  Merger merger(&sink);
  Node root;
  root.is_object = true;
  for (size_t i = 0; i < layers.size(); ++i) {
    merger.Merge(root, FromJson(layers[i].document, "", static_cast<int>(i),
                                layers[i].locations));
  }
  Flatten(root, "", out.merged.document, out.merged.locations, out.origins);
  out.layers = std::move(layers);
  if (sink.ErrorCount() > errors_before) return std::nullopt;
  return out;
}

}  // namespace

std::optional<LayeredProfile> MergeLayers(std::vector<LoadedProfile> layers,
                                          DiagnosticSink& sink) {
  for (LoadedProfile& layer : layers) {
    TakeExtends(layer);
    EraseLocationsUnder(layer.locations, "/extends");
  }
  std::string path = layers.empty() ? "" : layers.back().path;
  std::vector<std::string> lines = layers.empty() ? std::vector<std::string>{}
                                                  : layers.back().source_lines;
  std::optional<LayeredProfile> out = MergeReporting(std::move(layers), sink);
  if (!out) return std::nullopt;
  out->merged.path = path;
  out->merged.source_lines = lines;
  return out;
}

std::optional<LayeredProfile> LoadLayeredProfile(const LayerInputs& inputs, DiagnosticSink& sink,
                                                 SourceTexts* sources) {
  std::vector<LoadedProfile> layers;
  ChainLoader loader(sink);
  bool ok = loader.Load(inputs.profile_path, nullptr, layers);
  size_t profile_index = layers.empty() ? 0 : layers.size() - 1;
  for (const std::string& extra : inputs.extra_files) {
    ok = loader.Load(extra, nullptr, layers) && ok;
  }
  if (sources != nullptr) {
    for (const auto& [path, lines] : loader.failed_texts()) (*sources)[path] = lines;
    for (const LoadedProfile& layer : layers) (*sources)[layer.path] = layer.source_lines;
    if (!inputs.set_values.empty()) (*sources)[kSetLayerFile] = inputs.set_values;
  }
  if (!ok) return std::nullopt;
  std::optional<LayeredProfile> layered = MergeReporting(std::move(layers), sink);
  if (!layered) return std::nullopt;
  layered->merged.path = layered->layers[profile_index].path;
  layered->merged.source_lines = layered->layers[profile_index].source_lines;
  if (!inputs.set_values.empty() && !ApplySetAssignments(inputs.set_values, *layered, sink)) {
    return std::nullopt;
  }
  return layered;
}

bool ApplySetAssignments(const std::vector<std::string>& assignments, LayeredProfile& layered,
                         DiagnosticSink& sink) {
  LoadedProfile set_layer;
  set_layer.path = kSetLayerFile;
  set_layer.document = json::object();
  set_layer.source_lines = assignments;
  const int layer = static_cast<int>(layered.layers.size());

  Node root = FromMerged(layered.merged.document, "", layered);
  bool ok = true;
  for (size_t n = 0; n < assignments.size(); ++n) {
    const std::string& text = assignments[n];
    const int line = static_cast<int>(n) + 1;
    auto report = [&](int column, const std::string& message, const std::string& fix) {
      Diagnostic d;
      d.location = {kSetLayerFile, line, column};
      d.rule = "layering.set-syntax";
      d.message = message;
      d.fix = fix;
      sink.Report(std::move(d));
      ok = false;
    };
    size_t eq = text.find('=');
    // `rails[name=x].mtu=1` has '=' inside brackets: the assignment's '=' is the first one
    // outside them.
    int depth = 0;
    eq = std::string::npos;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '[') ++depth;
      if (text[i] == ']') --depth;
      if (text[i] == '=' && depth == 0) {
        eq = i;
        break;
      }
    }
    if (eq == std::string::npos) {
      report(1, "`--set " + text + "` has no '='",
             "write --set path=value, e.g. --set workload.replicas=4");
      continue;
    }
    std::string error;
    auto steps = ParseUserPath(text.substr(0, eq), &error);
    if (!steps || steps->empty()) {
      report(1, "bad --set path: " + (error.empty() ? "the path is empty" : error),
             "use dots for keys, [N] for list items and [name=X] for named items, "
             "e.g. rails[name=eno5np0].mtu=9000");
      continue;
    }
    SourceLocation at{kSetLayerFile, line, static_cast<int>(eq) + 2};
    SourceLocation key_at{kSetLayerFile, line, 1};
    json value = TypedValue(text.substr(eq + 1));

    Node* node = &root;
    bool step_ok = true;
    for (size_t s = 0; s < steps->size() && step_ok; ++s) {
      const PathStep& step = (*steps)[s];
      const bool last = s + 1 == steps->size();
      if (step.kind == PathStep::kKey) {
        if (!node->is_object) {
          *node = Node{};
          node->is_object = true;
          node->value_location = key_at;
        }
        if (last && value.is_null()) {
          node->members.erase(step.text);
          node = nullptr;
          break;
        }
        Node& child = node->members[step.text];
        if (!child.key_location.known()) child.key_location = key_at;
        node = &child;
      } else {
        if (!node->is_array) {
          if (!node->IsNull() || node->is_object) {
            report(1, "`" + text.substr(0, eq) + "` indexes a value that is not a list",
                   "check the path with `hkimgen explain PROFILE PATH`");
            step_ok = false;
            break;
          }
          node->is_array = true;
          node->value_location = key_at;
        }
        Node* item = nullptr;
        size_t index = 0;
        if (step.kind == PathStep::kIndex) {
          index = step.index;
          if (index > node->items.size()) {
            report(1,
                   "`" + text.substr(0, eq) + "`: index " + std::to_string(index) +
                       " is past the end of a list of " + std::to_string(node->items.size()),
                   "use an index below " + std::to_string(node->items.size() + 1) +
                       " (the length appends), or [name=X] for a named item");
            step_ok = false;
            break;
          }
          if (index == node->items.size()) {
            node->items.push_back(Node{});
            node->items.back().value_location = key_at;
          }
          item = &node->items[index];
        } else {
          for (size_t k = 0; k < node->items.size(); ++k) {
            const std::string* name = ItemName(node->items[k]);
            if (name != nullptr && *name == step.text) {
              item = &node->items[k];
              index = k;
            }
          }
          if (item == nullptr) {
            Node fresh;
            fresh.is_object = true;
            fresh.value_location = key_at;
            fresh.members["name"] = LeafNode(step.text, at, layer);
            node->items.push_back(std::move(fresh));
            index = node->items.size() - 1;
            item = &node->items.back();
          }
        }
        if (last && value.is_null()) {
          node->items.erase(node->items.begin() + static_cast<long>(index));
          node = nullptr;
          break;
        }
        node = item;
      }
    }
    if (!step_ok || node == nullptr) continue;
    std::vector<ValueOrigin> history = node->origins;
    SourceLocation keep_key = node->key_location;
    *node = LeafNode(value, at, layer);
    node->key_location = keep_key;
    history.push_back({layer, at});
    node->origins = std::move(history);
  }
  if (!ok) return false;
  layered.merged.document = json();
  layered.merged.locations = SourceMap{};
  layered.origins.clear();
  Flatten(root, "", layered.merged.document, layered.merged.locations, layered.origins);
  layered.layers.push_back(std::move(set_layer));
  return true;
}

std::string PointerToDotted(const std::string& json_pointer) {
  std::string out;
  for (const std::string& token : SplitPointer(json_pointer)) {
    if (!token.empty() && std::all_of(token.begin(), token.end(), ::isdigit)) {
      out += "[" + token + "]";
    } else {
      if (!out.empty()) out += ".";
      for (char c : token) {
        if (c == '.' || c == '[' || c == ']') out += '\\';
        out += c;
      }
    }
  }
  return out;
}

std::optional<std::string> UserPathToPointer(const std::string& path, const json& document,
                                             std::string* error) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  if (path.empty() || path == "/" || path == ".") return std::string();
  auto steps = ParseUserPath(path, error);
  if (!steps) return std::nullopt;
  std::string pointer;
  const json* node = &document;
  for (const PathStep& step : *steps) {
    if (step.kind == PathStep::kName) {
      if (node == nullptr || !node->is_array()) {
        *error = "'" + step.text + "' names a list item, but '" + PointerToDotted(pointer) +
                 "' is not a list";
        return std::nullopt;
      }
      size_t found = node->size();
      for (size_t k = 0; k < node->size(); ++k) {
        const json& item = (*node)[k];
        if (item.is_object() && item.contains("name") && item["name"] == step.text) found = k;
      }
      if (found == node->size()) {
        *error = "no item named '" + step.text + "' in '" + PointerToDotted(pointer) + "'";
        return std::nullopt;
      }
      pointer += "/" + std::to_string(found);
      node = &(*node)[found];
    } else if (step.kind == PathStep::kIndex && node != nullptr && node->is_array()) {
      pointer += "/" + std::to_string(step.index);
      node = step.index < node->size() ? &(*node)[step.index] : nullptr;
    } else {
      pointer += "/" + EscapeToken(step.text);
      node = node != nullptr && node->is_object() && node->contains(step.text)
                 ? &(*node)[step.text]
                 : nullptr;
    }
  }
  return pointer;
}

}  // namespace hkim
