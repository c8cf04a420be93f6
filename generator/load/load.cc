#include "load/load.h"
#include "load/load_input.h"

#include "support/input_limits.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "support/input_file.h"
#include "support/utf8.h"
#include "load/yaml_scalar.h"
#include "load/yaml_syntax.h"

namespace hkim {

namespace {

std::string ParentPointer(const std::string& pointer) {
  auto slash = pointer.rfind('/');
  return slash == std::string::npos ? std::string() : pointer.substr(0, slash);
}

/// What a value costs once aliases are expanded: values, and bytes of text (8 per non-string).
struct Cost {
  std::size_t values = 0;
  std::size_t bytes = 0;
};

/// Thrown from the event handler to stop yaml-cpp at once when a limit is reached.
struct LimitReached {
  YAML::Mark mark;
  std::string rule, message, fix;
};

/// Builds JSON from yaml-cpp's parse events, recording where every key and value came from, and
/// reporting what yaml-cpp's node API would hide (duplicate keys) or that JSON cannot hold.
class JsonBuilder : public YAML::EventHandler {
 public:
  JsonBuilder(const std::string& path, DiagnosticSink& sink) : path_(path), sink_(sink) {}

  nlohmann::json& root() { return root_; }
  SourceMap& locations() { return locations_; }
  bool failed() const { return failed_; }

  /// Converts a yaml-cpp mark (0-based) to a 1-based location: the one place that does.
  SourceLocation Locate(const YAML::Mark& mark) const {
    if (mark.is_null()) return SourceLocation{path_, 0, 0};
    return SourceLocation{path_, mark.line + 1, mark.column + 1};
  }

  void Error(const YAML::Mark& mark, const std::string& pointer, const std::string& rule,
             const std::string& message, const std::string& fix) {
    failed_ = true;
    sink_.Report(Diagnostic{Severity::kError, Locate(mark), pointer, rule, message, fix});
    if (++errors_ == limits::kMaxFileErrors) {
      throw LimitReached{mark, "limit.errors",
                         "reading stopped after " + std::to_string(limits::kMaxFileErrors) +
                             " errors in this file: any later ones are not reported",
                         "fix the errors above first: most often one bracket, quote or "
                         "indentation left open causes the rest"};
    }
  }

  /// The diagnostic that ends the parse at a limit (counted by no limit itself).
  void Stop(const LimitReached& limit) {
    failed_ = true;
    sink_.Report(Diagnostic{Severity::kError, Locate(limit.mark), "", limit.rule, limit.message,
                            limit.fix});
  }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    // An empty value (`cluster:` and nothing) is marked where the next token starts, often the
    // next line; point at its key instead, which is where the user would type the value.
    if (!stack_.empty() && stack_.back().value.is_object() && !stack_.back().expecting_key) {
      AddValue(stack_.back().key_mark, anchor, nullptr);
      return;
    }
    AddValue(mark, anchor, nullptr);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      Error(mark, CurrentPointer(), "yaml.alias", "alias of an unknown anchor",
            "define the anchor (&name) before the alias (*name)");
      AddValue(mark, 0, nullptr);
      return;
    }
    Count(mark, it->second.second);  // an alias costs what it expands to
    AddValue(mark, 0, it->second.first, /*counted=*/true);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& decoded) override {
    // yaml-cpp decodes the double-quoted escapes \N (U+0085) and \_ (U+00A0) to the single
    // bytes 0x85 and 0xA0 instead of UTF-8; every later stage may rely on UTF-8 (the input
    // itself was checked, load/load_input.cc), so those bytes are re-encoded here.
    std::string repaired;
    const std::string& value =
        IsValidUtf8(decoded) ? decoded : (repaired = Latin1BytesAsUtf8(decoded));
    if (value.size() > limits::kMaxScalarBytes) {
      throw LimitReached{mark, "limit.value-size",
                         "a value is longer than " + std::to_string(limits::kMaxScalarBytes) +
                             " bytes",
                         "profile values are names, numbers and short lists: shorten it"};
    }
    // yaml-cpp tags plain scalars "?" and quoted/block scalars "!"; only plain ones are typed.
    if (tag == "?") {
      nlohmann::json resolved;
      try {
        resolved = ResolvePlainScalar(value);
      } catch (const NumberOutOfRange&) {
        Error(mark, CurrentPointer(), "yaml.number-range",
              "the number " + ShortText(value) + " is out of range: numbers must lie within " +
                  "±1.7976931348623157e308",
              OutOfRangeFix(CurrentPointer()));
        resolved = nullptr;
      }
      AddValue(mark, anchor, std::move(resolved));
    } else if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      AddValue(mark, anchor, value);
    } else {
      Error(mark, CurrentPointer(), "yaml.unsupported-tag",
            "the tag '" + tag + "' is not supported",
            "remove the tag; quote the value if it must stay a string");
      AddValue(mark, anchor, value);
    }
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    CheckCollectionTag(mark, tag);
    Open(mark, anchor, nlohmann::json::array());
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    CheckCollectionTag(mark, tag);
    Open(mark, anchor, nlohmann::json::object());
  }
  void OnMapEnd() override {
    ResolveMergeKey(stack_.back());
    Close();
  }

 private:
  struct Frame {
    nlohmann::json value;
    std::string pointer;
    YAML::anchor_t anchor = 0;
    bool expecting_key = true;  // mappings only
    std::string key;
    YAML::Mark key_mark;
    bool key_valid = true;
    std::set<std::string> seen_keys;
    std::map<std::string, YAML::Mark> key_marks;
    Cost cost;  // of the values inside, aliases expanded
  };

  void CheckCollectionTag(const YAML::Mark& mark, const std::string& tag) {
    if (tag != "?" && tag != "!" && tag != "tag:yaml.org,2002:map" &&
        tag != "tag:yaml.org,2002:seq" && !tag.empty()) {
      Error(mark, CurrentPointer(), "yaml.unsupported-tag",
            "the tag '" + tag + "' is not supported", "remove the tag");
    }
  }

  /// The pointer of the value about to be added.
  std::string CurrentPointer() const {
    if (stack_.empty()) return "";
    const Frame& top = stack_.back();
    if (top.value.is_array()) return top.pointer + "/" + std::to_string(top.value.size());
    return top.pointer + "/" + EscapeJsonPointerToken(top.key);
  }

  /// Handles a scalar in key position; returns true when it was consumed as a key.
  bool TakeKey(const YAML::Mark& mark, const nlohmann::json& value) {
    if (stack_.empty() || !stack_.back().value.is_object() || !stack_.back().expecting_key) {
      return false;
    }
    Frame& top = stack_.back();
    top.expecting_key = false;
    top.key_mark = mark;
    top.key_valid = true;
    if (value.is_string()) {
      top.key = value.get<std::string>();
    } else if (value.is_null()) {
      top.key = "";
      top.key_valid = false;
      Error(mark, top.pointer, "yaml.key-type", "a mapping key is empty (null)",
            "write a name before the ':'");
      return true;
    } else {
      top.key = value.dump();  // 9000: or true: as a key: JSON keys are strings
    }
    const std::string pointer = top.pointer + "/" + EscapeJsonPointerToken(top.key);
    if (!top.seen_keys.insert(top.key).second) {
      const YAML::Mark& first = top.key_marks[top.key];
      top.key_valid = false;
      Error(mark, pointer, "yaml.duplicate-key",
            "duplicate key '" + top.key + "' (first defined at line " +
                std::to_string(first.line + 1) + ", column " + std::to_string(first.column + 1) +
                ")",
            "remove one of the two '" + top.key + "' entries; YAML keeps only one of them");
      return true;
    }
    top.key_marks[top.key] = mark;
    locations_.keys[pointer] = Locate(mark);
    return true;
  }

  void AddValue(const YAML::Mark& mark, YAML::anchor_t anchor, nlohmann::json value,
                bool counted = false) {
    const Cost cost{1, value.is_string() ? value.get_ref<const std::string&>().size() : 8};
    if (!counted) Count(mark, cost);
    if (TakeKey(mark, value)) return;
    const std::string pointer = CurrentPointer();
    if (!locations_.values.count(pointer)) locations_.values[pointer] = Locate(mark);
    if (anchor) anchors_[anchor] = {value, cost};
    Attach(std::move(value));
  }

  /// Adds `values` to the document's size (after alias expansion); stops the parse past
  /// limits::kMaxValues, so an alias bomb is refused before it costs time or memory.
  void Count(const YAML::Mark& mark, Cost cost) {
    total_.values += cost.values;
    total_.bytes += cost.bytes;
    if (!stack_.empty()) {
      stack_.back().cost.values += cost.values;
      stack_.back().cost.bytes += cost.bytes;
    }
    if (total_.bytes > limits::kMaxExpandedBytes) {
      throw LimitReached{mark, "limit.values",
                         "the document's text adds up to more than " +
                             std::to_string(limits::kMaxExpandedBytes / (1024 * 1024)) +
                             " MiB (aliases count as many times as they repeat)",
                         "a profile is a few kilobytes: remove the repetition (aliases of "
                         "aliases multiply)"};
    }
    if (total_.values > limits::kMaxValues) {
      throw LimitReached{mark, "limit.values",
                         "the document holds more than " + std::to_string(limits::kMaxValues) +
                             " values (aliases count as many as they repeat)",
                         "a profile needs a few hundred values: remove the repetition (aliases "
                         "of aliases multiply) or split the data out"};
    }
  }

  void Attach(nlohmann::json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      have_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    if (top.value.is_array()) {
      top.value.push_back(std::move(value));
    } else {
      if (top.key_valid) top.value[top.key] = std::move(value);
      top.expecting_key = true;
    }
  }

  void Open(const YAML::Mark& mark, YAML::anchor_t anchor, nlohmann::json empty) {
    if (!stack_.empty() && stack_.back().value.is_object() && stack_.back().expecting_key) {
      Error(mark, stack_.back().pointer, "yaml.key-type",
            "a mapping key is itself a mapping or a list", "use a plain name as the key");
      stack_.back().expecting_key = false;
      stack_.back().key_valid = false;
      stack_.back().key = "";
    }
    if (stack_.size() >= limits::kMaxDepth) {
      throw LimitReached{mark, "limit.depth",
                         "mappings and lists nest deeper than " +
                             std::to_string(limits::kMaxDepth) + " levels",
                         "a profile nests a few levels deep: close the brackets or indentation "
                         "that run on"};
    }
    Count(mark, Cost{1, 8});
    const std::string pointer = CurrentPointer();
    if (!locations_.values.count(pointer)) locations_.values[pointer] = Locate(mark);
    Frame frame;
    frame.value = std::move(empty);
    frame.pointer = pointer;
    frame.anchor = anchor;
    stack_.push_back(std::move(frame));
  }

  // YAML's merge key (`<<: *base` or `<<: [*a, *b]`, yaml.org/type/merge.html): the mapping
  // gets every key of the merged mappings that it does not set itself; earlier mappings of a
  // list win over later ones. Anything else after `<<` is reported.
  void ResolveMergeKey(Frame& frame) {
    if (!frame.value.is_object() || !frame.value.contains("<<")) return;
    nlohmann::json merged = std::move(frame.value["<<"]);
    frame.value.erase("<<");
    const std::string pointer = frame.pointer + "/<<";
    std::vector<const nlohmann::json*> sources;
    if (merged.is_object()) {
      sources.push_back(&merged);
    } else if (merged.is_array() &&
               std::all_of(merged.begin(), merged.end(),
                           [](const nlohmann::json& m) { return m.is_object(); })) {
      for (const nlohmann::json& m : merged) sources.push_back(&m);
    } else {
      const SourceLocation at = locations_.keys.count(pointer) ? locations_.keys[pointer]
                                                                 : locations_.Find(frame.pointer);
      sink_.Report(Diagnostic{Severity::kError, at, pointer, "yaml.merge-key",
                              "the merge key '<<' needs a mapping (an alias such as *base) or a "
                              "list of them",
                              "write `<<: *base` after `base: &base {...}`, or move the shared "
                              "values into a base profile and use `extends: base.yaml`"});
      failed_ = true;
      return;
    }
    for (const nlohmann::json* source : sources) {
      for (auto it = source->begin(); it != source->end(); ++it) {
        if (!frame.value.contains(it.key())) frame.value[it.key()] = it.value();
      }
    }
  }

  void Close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (frame.anchor) {
      anchors_[frame.anchor] = {frame.value, Cost{frame.cost.values + 1, frame.cost.bytes + 8}};
    }
    if (!stack_.empty()) {
      stack_.back().cost.values += frame.cost.values;
      stack_.back().cost.bytes += frame.cost.bytes;
    }
    Attach(std::move(frame.value));
  }

  std::string path_;
  DiagnosticSink& sink_;
  nlohmann::json root_;
  bool have_root_ = false;
  bool failed_ = false;
  std::size_t errors_ = 0;
  SourceMap locations_;
  std::vector<Frame> stack_;
  /// Each anchor's value and how many values it expands to.
  std::map<YAML::anchor_t, std::pair<nlohmann::json, Cost>> anchors_;
  Cost total_;
};

}  // namespace

std::vector<std::string> LoadProfileFromTextLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

SourceLocation SourceMap::Find(const std::string& json_pointer) const {
  std::string pointer = json_pointer;
  while (true) {
    auto it = values.find(pointer);
    if (it != values.end()) return it->second;
    if (pointer.empty()) return SourceLocation{};
    pointer = ParentPointer(pointer);
  }
}

SourceLocation SourceMap::FindKey(const std::string& json_pointer) const {
  auto it = keys.find(json_pointer);
  if (it != keys.end()) return it->second;
  return Find(json_pointer);
}

std::string InputLabel(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::optional<LoadedProfile> LoadProfile(const std::string& path, DiagnosticSink& sink) {
  std::string reason;
  std::optional<std::string> text = ReadInputText(path, &reason);
  if (!text) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{InputLabel(path), 0, 0}, "",
                           "io.read", "cannot read the profile: " + reason,
                           "check the path and its permissions (give a profile file, e.g. "
                           "profiles/<cluster>.yaml, or - for stdin)"});
    return std::nullopt;
  }
  return LoadProfileFromText(InputLabel(path), *text, sink);
}

std::optional<LoadedProfile> LoadProfileFromText(const std::string& path, const std::string& text,
                                                 DiagnosticSink& sink) {
  if (text.size() > limits::kMaxProfileBytes) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{path, 0, 0}, "", "limit.file-size",
                           "is larger than " + std::to_string(limits::kMaxProfileBytes / 1024) +
                               " KiB, the most a profile may be",
                           "a profile is a few kilobytes: check that this is the file you meant"});
    return std::nullopt;
  }
  // yaml-cpp would read invalid bytes as something else (or stop at a NUL): refuse them first.
  if (std::optional<EncodingError> bad = FindEncodingError(text)) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{path, bad->line, bad->column}, "",
                           "yaml.encoding", "the profile is not UTF-8 text: " + bad->what,
                           "save the file as UTF-8 and remove the character at this position"});
    return std::nullopt;
  }
  LoadedProfile loaded;
  loaded.path = path;
  loaded.source_lines = LoadProfileFromTextLines(text);
  std::istringstream in(text);
  JsonBuilder builder(path, sink);
  try {
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(builder)) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{path, 1, 1}, "", "yaml.empty",
                             "the profile is empty",
                             "start from an example in profiles/ (or `hkimgen init`)"});
      return std::nullopt;
    }
    class Counter : public YAML::EventHandler {
     public:
      void OnDocumentStart(const YAML::Mark& m) override { mark = m; }
      void OnDocumentEnd() override {}
      void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
      void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
      void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    const std::string&) override {}
      void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                           YAML::EmitterStyle::value) override {}
      void OnSequenceEnd() override {}
      void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                      YAML::EmitterStyle::value) override {}
      void OnMapEnd() override {}
      YAML::Mark mark;
    } second;
    if (parser.HandleNextDocument(second)) {
      builder.Error(second.mark, "", "yaml.multiple-documents",
                    "the profile holds more than one YAML document",
                    "keep one document per profile file (remove the second '---')");
    }
  } catch (const LimitReached& limit) {
    builder.Stop(limit);
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    const YamlSyntaxCause cause =
        e.mark.is_null() ? YamlSyntaxCause{0, 0, e.msg, "fix the YAML syntax"}
                         : ExplainYamlSyntaxError(loaded.source_lines, e.mark.line + 1,
                                                  e.mark.column + 1, e.msg);
    sink.Report(Diagnostic{Severity::kError, SourceLocation{path, cause.line, cause.column}, "",
                           "yaml.syntax", cause.message, cause.fix});
    return std::nullopt;
  }
  if (builder.failed()) return std::nullopt;
  if (!builder.root().is_object()) {
    sink.Report(Diagnostic{Severity::kError, builder.locations().Find(""), "", "yaml.root",
                           "the profile must be a mapping of keys to values",
                           "start from an example in profiles/"});
    return std::nullopt;
  }
  loaded.document = std::move(builder.root());
  loaded.locations = std::move(builder.locations());
  return loaded;
}

}  // namespace hkim
