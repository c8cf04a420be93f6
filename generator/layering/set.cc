// `--set` assignments and the user's paths (dotted, [N], [name=X], JSON pointer).

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

#include "support/input_limits.h"
#include "layering/layering.h"
#include "layering/set.h"
#include "layering/tree.h"
#include "load/load_input.h"
#include "load/yaml_scalar.h"
#include "schema/profile_schema.h"

namespace hkim {
namespace {

using layering_internal::Flatten;
using layering_internal::FromJson;
using layering_internal::FromMerged;
using layering_internal::ItemName;
using layering_internal::Node;
using nlohmann::json;

struct PathStep {
  enum Kind { kKey, kIndex, kName } kind = kKey;
  std::string text;  // key or name
  size_t index = 0;
};

std::optional<std::vector<PathStep>> ParseUserPath(const std::string& path, std::string* error) {
  std::vector<PathStep> steps;
  if (!path.empty() && path[0] == '/') {
    for (const std::string& token : SplitJsonPointer(path)) {
      PathStep step;
      if (!token.empty() && std::all_of(token.begin(), token.end(), ::isdigit)) {
        step.kind = PathStep::kIndex;
        if (token.size() > 9) {
          *error = "the index " + token + " is out of range (at most 999999999)";
          return std::nullopt;
        }
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
        if (inside.size() > 9) return fail("the index " + inside + " is out of range (at most 999999999)");
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

/// Throws NumberOutOfRange for a number no double holds.
json TypedScalar(const std::string& text) {
  if (text == "null" || text == "~" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text.size() > kMaxNumberChars) {  // as the profile loader: no real number needs more
    if (LooksNumeric(text)) throw NumberOutOfRange{text};
    return text;
  }
  // A decimal number reads as the same number in a profile (0o/0x forms stay text here).
  if (IsDecimalNumber(text)) return ResolvePlainScalar(text);
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
      list.push_back(TypedScalar(
          inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
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

std::vector<SetPiece> SplitSetArguments(const std::vector<std::string>& arguments) {
  std::vector<SetPiece> pieces;
  for (const std::string& argument : arguments) {
    std::string current;
    int brackets = 0, braces = 0;
    bool after_comma = false;
    for (size_t i = 0; i < argument.size(); ++i) {
      const char c = argument[i];
      if (c == '\\' && i + 1 < argument.size() && argument[i + 1] == ',') {
        current += ',';  // Helm's escape: a comma that belongs to the value
        ++i;
        continue;
      }
      if (c == '[') ++brackets;
      if (c == ']') --brackets;
      if (c == '{') ++braces;
      if (c == '}') --braces;
      if (c == ',' && brackets <= 0 && braces <= 0) {
        pieces.push_back({current, argument, after_comma});
        current.clear();
        after_comma = true;
        continue;
      }
      current += c;
    }
    pieces.push_back({current, argument, after_comma});
  }
  return pieces;
}

bool ApplySetAssignments(const std::vector<std::string>& arguments, LayeredProfile& layered,
                         DiagnosticSink& sink) {
  const std::vector<SetPiece> pieces = SplitSetArguments(arguments);
  std::vector<std::string> assignments;
  for (const SetPiece& piece : pieces) assignments.push_back(piece.text);
  LoadedProfile set_layer;
  set_layer.path = kSetLayerFile;
  set_layer.document = json::object();
  set_layer.source_lines = assignments;
  const int layer = static_cast<int>(layered.layers.size());

  // The merged profile as a tree, built when the first assignment gets as far as its path (an
  // argument list that fails to parse leaves the profile as it was without it).
  std::optional<Node> root;
  bool ok = true;
  const int errors_before = sink.ErrorCount();
  for (size_t n = 0; n < assignments.size(); ++n) {
    const std::string& text = assignments[n];
    const int line = static_cast<int>(n) + 1;
    if (sink.ErrorCount() - errors_before >= static_cast<int>(limits::kMaxFileErrors)) {
      // As a file's loader does: `--set a,,,,` would otherwise be an error per comma.
      sink.Report(Diagnostic{Severity::kError, {kSetLayerFile, line, 1}, "", "limit.errors",
                             "reading --set stopped after " +
                                 std::to_string(limits::kMaxFileErrors) +
                                 " errors: any later ones are not reported",
                             "fix the errors above first: most often commas that belong to a "
                             "value (write \\, for those)"});
      return false;
    }
    auto report = [&](int column, const std::string& message, const std::string& fix) {
      Diagnostic d;
      d.location = {kSetLayerFile, line, column};
      d.rule = "layering.set-syntax";
      d.message = message;
      d.fix = fix;
      sink.Report(std::move(d));
      ok = false;
    };
    if (text.size() > limits::kMaxSetBytes) {
      report(1,
             "the --set assignment is longer than " + std::to_string(limits::kMaxSetBytes) +
                 " bytes",
             "set long values in a -f layer file instead");
      continue;
    }
    if (std::optional<EncodingError> bad = FindEncodingError(text)) {
      report(bad->column, "the --set assignment is not UTF-8 text: " + bad->what,
             "remove the character at this position");
      continue;
    }
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
      if (pieces[n].after_comma) {
        report(1,
               "`" + text + "` (after a comma in `--set " + PrintableText(pieces[n].argument) +
                   "`) has no '=': a comma starts the next PATH=VALUE, as in Helm",
               "write \\, to keep the comma in the value, e.g. --set 'env.X=a\\,b'");
      } else {
        report(1, "`--set " + text + "` has no '='",
               "write --set path=value, e.g. --set workload.replicas=4");
      }
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
    if (steps->size() > limits::kMaxDepth) {
      report(1, "the --set path nests deeper than " + std::to_string(limits::kMaxDepth) + " levels",
             "name an existing field: `hkimgen explain PROFILE` lists them");
      continue;
    }
    json value;
    try {
      value = TypedValue(text.substr(eq + 1));
    } catch (const NumberOutOfRange& number) {
      Diagnostic d;
      d.location = at;
      d.rule = "layering.number-range";
      d.message = "the number " + ShortText(number.text) +
                  " is out of range: numbers must lie within ±1.7976931348623157e308";
      d.fix = "write an ordinary number (or quote the text if it is not a number)";
      sink.Report(std::move(d));
      ok = false;
      continue;
    }

    if (!root) root = FromMerged(layered.merged.document, "", layered);
    Node* node = &*root;
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
            // A name no item has is a typo more often than a new item (rails[name=eno9]): the
            // index form adds one on purpose. An empty list has nothing to misspell.
            std::vector<std::string> names;
            for (const Node& candidate : node->items)
              if (const std::string* name = ItemName(candidate)) names.push_back(*name);
            if (!node->items.empty()) {
              const std::string list = text.substr(0, text.find('['));
              std::string listed;
              for (const std::string& name : names) listed += (listed.empty() ? "" : ", ") + name;
              const std::string closest = ClosestMatch(step.text, names);
              report(1,
                     "`" + text.substr(0, eq) + "`: no item of " + list + " is named '" +
                         step.text + "'" + (listed.empty() ? "" : " (" + listed + ")"),
                     (closest.empty() ? std::string() : "did you mean " + closest + "? ") +
                         "To add an item, give its index: " + list + "[" +
                         std::to_string(node->items.size()) + "].name=" + step.text);
              step_ok = false;
              break;
            }
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
  if (!root) root = FromMerged(layered.merged.document, "", layered);
  layered.merged.document = json();
  layered.merged.locations = SourceMap{};
  layered.origins.clear();
  Flatten(*root, "", layered.merged.document, layered.merged.locations, layered.origins);
  layered.layers.push_back(std::move(set_layer));
  return true;
}

std::string PointerToDotted(const std::string& json_pointer) {
  std::string out;
  for (const std::string& token : SplitJsonPointer(json_pointer)) {
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
      // As --set refuses an index past the end, so does reading one: no silent default.
      if (step.index >= node->size()) {
        *error = "index " + std::to_string(step.index) + " is past the end of '" +
                 PointerToDotted(pointer) + "', a list of " + std::to_string(node->size());
        return std::nullopt;
      }
      pointer += "/" + std::to_string(step.index);
      node = step.index < node->size() ? &(*node)[step.index] : nullptr;
    } else {
      pointer += "/" + EscapeJsonPointerToken(step.text);
      node = node != nullptr && node->is_object() && node->contains(step.text) ? &(*node)[step.text]
                                                                               : nullptr;
    }
  }
  return pointer;
}

}  // namespace hkim
