#include "layering/layering.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "support/input_file.h"
#include "layering/set.h"
#include "layering/tree.h"

namespace hkim {
namespace {

using layering_internal::Flatten;
using layering_internal::FromJson;
using layering_internal::ItemName;
using layering_internal::Node;
using nlohmann::json;

constexpr char kExtendsKey[] = "extends";
constexpr char kRemoveKey[] = "$remove";

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
        auto it = std::find_if(below.items.begin(), below.items.end(),
                               [&](const Node& b) { return *ItemName(b) == name; });
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
    d.message =
        "`$remove` names item '" + name + "', but no layer below defines an item of that name";
    d.fix =
        "check the name against the base profile (`hkimgen explain` shows the merged list), "
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

// The `extends:` entries from the one naming `file` back to the profile (which no entry names).
// A file is named once in `extended_from` (the first `extends:` that read it), and a cycle is
// refused while loading; the bound only keeps a hand-made map from looping.
std::vector<SourceLocation> IncludedFrom(const std::map<std::string, SourceLocation>& extended_from,
                                         std::string file) {
  std::vector<SourceLocation> way;
  for (auto it = extended_from.find(file);
       it != extended_from.end() && way.size() <= extended_from.size();
       it = extended_from.find(file)) {
    way.push_back(it->second);
    file = it->second.file;
  }
  return way;
}

class ChainLoader {
 public:
  explicit ChainLoader(DiagnosticSink& sink) : sink_(sink) {}

  // What the next top-level file is, for messages: "profile" or "values file".
  void set_role(std::string role) { role_ = std::move(role); }

  // Appends `path` and (first) its bases to `out`. `via` locates the `extends:` that named it.
  bool Load(const std::string& path, const SourceLocation* via, std::vector<LoadedProfile>& out) {
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
    // known (its errors still show their line).
    std::string reason;
    std::optional<std::string> text = ReadInputText(path, &reason);
    if (!text) {
      sink_.Report(Diagnostic{Severity::kError, SourceLocation{InputLabel(path), 0, 0}, "",
                              "io.read", "cannot read the " + role_ + ": " + reason,
                              via != nullptr ? "check the path and its permissions"
                                             : "check the path and its permissions (- reads "
                                               "stdin)"});
      return false;
    }
    const std::string label = InputLabel(path);
    if (via != nullptr) extended_from_.emplace(label, *via);
    DiagnosticSink found;  // a base's own errors (YAML) get the way to it
    std::optional<LoadedProfile> loaded = LoadProfileFromText(label, *text, found);
    for (Diagnostic d : found.diagnostics()) {
      d.included_from = IncludedFrom(extended_from_, d.location.file);
      sink_.Report(std::move(d));
    }
    if (!loaded) {
      failed_texts_[label] = LoadProfileFromTextLines(*text);
      return false;
    }
    std::optional<json> extends = TakeExtends(*loaded);
    bool ok = true;
    if (extends) {
      SourceLocation at = loaded->locations.Find("/extends");
      std::vector<std::pair<std::string, SourceLocation>> bases;
      if (extends->is_string()) {
        bases.push_back({extends->get<std::string>(), at});
      } else if (extends->is_array() && std::all_of(extends->begin(), extends->end(),
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
  /// Each base read, by path: the `extends:` entry that named it.
  const std::map<std::string, SourceLocation>& extended_from() const { return extended_from_; }

 private:
  std::string role_ = "profile";
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
  std::map<std::string, SourceLocation> extended_from_;
};

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
    merger.Merge(root, FromJson(layers[i].document, "", static_cast<int>(i), layers[i].locations));
  }
  Flatten(root, "", out.merged.document, out.merged.locations, out.origins);
  out.layers = std::move(layers);
  if (sink.ErrorCount() > errors_before) return std::nullopt;
  return out;
}

/// Whether a `$remove` marker (a named list item with `$remove: true`) is anywhere in `value`.
bool HasRemoveMarker(const json& value) {
  if (value.is_array()) {
    for (const json& item : value) {
      if (item.is_object()) {
        auto remove = item.find(kRemoveKey);
        auto name = item.find("name");
        if (remove != item.end() && remove->is_boolean() && remove->get<bool>() &&
            name != item.end() && name->is_string()) {
          return true;
        }
      }
      if (HasRemoveMarker(item)) return true;
    }
  } else if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      if (HasRemoveMarker(child)) return true;
    }
  }
  return false;
}

/// What the merge records for `value` at `pointer` of the only layer (source map `map`), and
/// for everything inside it: its known locations and its one origin.
void RecordOnlyLayer(const json& value, const std::string& pointer, const SourceMap& map,
                     LayeredProfile& out) {
  SourceLocation value_location;
  if (auto it = map.values.find(pointer); it != map.values.end()) value_location = it->second;
  if (value_location.known()) out.merged.locations.values.emplace(pointer, value_location);
  if (!pointer.empty()) {  // the merge's root is a new mapping, without a key
    auto it = map.keys.find(pointer);
    if (it != map.keys.end() && it->second.known()) {
      out.merged.locations.keys.emplace(pointer, it->second);
    }
  }
  out.origins.emplace(pointer, std::vector<ValueOrigin>{
                                   {0, value_location.known() ? value_location : map.Find(pointer)}});
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      RecordOnlyLayer(child, pointer + "/" + EscapeJsonPointerToken(key), map, out);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      RecordOnlyLayer(value[i], pointer + "/" + std::to_string(i), map, out);
    }
  }
}

/// One layer (a profile without `extends:`, values files or `--set`, the usual render) merges
/// into itself: its document, with the locations and origins MergeReporting would record
/// (layering_test holds the two to the same result), without building and flattening the
/// merge's tree (a twentieth of a small render). Nothing (`layers` untouched) when the layer is
/// not a mapping or holds `$remove` markers, whose errors the merge reports.
std::optional<LayeredProfile> MergeOnlyLayer(std::vector<LoadedProfile>& layers) {
  if (layers.size() != 1 || !layers[0].document.is_object() ||
      HasRemoveMarker(layers[0].document)) {
    return std::nullopt;
  }
  LayeredProfile out;
  out.merged.document = layers[0].document;
  RecordOnlyLayer(out.merged.document, "", layers[0].locations, out);
  out.layers = std::move(layers);
  return out;
}

}  // namespace

std::optional<LayeredProfile> MergeLayers(std::vector<LoadedProfile> layers, DiagnosticSink& sink) {
  for (LoadedProfile& layer : layers) {
    TakeExtends(layer);
    EraseLocationsUnder(layer.locations, "/extends");
  }
  std::string path = layers.empty() ? "" : layers.back().path;
  std::vector<std::string> lines =
      layers.empty() ? std::vector<std::string>{} : layers.back().source_lines;
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
  loader.set_role("values file");
  for (const std::string& extra : inputs.extra_files) {
    ok = loader.Load(extra, nullptr, layers) && ok;
  }
  if (sources != nullptr) {
    for (const auto& [path, lines] : loader.failed_texts()) (*sources)[path] = lines;
    for (const LoadedProfile& layer : layers) (*sources)[layer.path] = layer.source_lines;
    if (!inputs.set_values.empty()) {
      std::vector<std::string>& lines = (*sources)[kSetLayerFile];
      for (const SetPiece& piece : SplitSetArguments(inputs.set_values)) lines.push_back(piece.text);
    }
  }
  if (!ok) return std::nullopt;
  std::optional<LayeredProfile> layered = MergeOnlyLayer(layers);
  if (!layered) layered = MergeReporting(std::move(layers), sink);
  if (!layered) return std::nullopt;
  layered->merged.path = layered->layers[profile_index].path;
  layered->merged.source_lines = layered->layers[profile_index].source_lines;
  if (!inputs.set_values.empty() && !ApplySetAssignments(inputs.set_values, *layered, sink)) {
    return std::nullopt;
  }
  for (const LoadedProfile& layer : layered->layers)
    if (layer.path != layered->merged.path)
      layered->merged.layer_lines[layer.path] = layer.source_lines;
  layered->merged.extended_from = loader.extended_from();
  return layered;
}

void AddIncludedFrom(const LoadedProfile& merged, Diagnostic& diagnostic) {
  if (!diagnostic.included_from.empty()) return;
  diagnostic.included_from = IncludedFrom(merged.extended_from, diagnostic.location.file);
}

}  // namespace hkim
