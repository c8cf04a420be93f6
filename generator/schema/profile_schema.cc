#include "schema/profile_schema.h"

#include "support/json_pointer.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>

#include "support/embedded_files.h"
#include "schema/pattern.h"
#include "schema/unique_items.h"

namespace hkim {

struct ProfileSchema::Impl {
  /// The whole schema, parsed into `document` when first asked for.
  std::string_view whole_text;
  std::once_flag document_once;
  nlohmann::json document;
  valijson::Schema schema;
};

ProfileSchema::ProfileSchema(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProfileSchema::ProfileSchema(ProfileSchema&&) noexcept = default;
ProfileSchema& ProfileSchema::operator=(ProfileSchema&&) noexcept = default;
ProfileSchema::~ProfileSchema() = default;

const nlohmann::json& ProfileSchema::document() const {
  std::call_once(impl_->document_once, [this] {
    // The build parsed the same text (schema_for_validation), so it is JSON; an object stands in
    // if it ever is not, as it does for "no such keyword".
    impl_->document = nlohmann::json::parse(impl_->whole_text, nullptr, false);
    if (impl_->document.is_discarded()) impl_->document = nlohmann::json::object();
  });
  return impl_->document;
}

std::optional<ProfileSchema> ProfileSchema::Compile(const std::string& name,
                                                    std::string_view validation_text,
                                                    std::string_view whole_text,
                                                    DiagnosticSink& sink) {
  auto impl = std::make_unique<Impl>();
  try {
    nlohmann::json validation = nlohmann::json::parse(validation_text);
    const bool one_text = validation_text.data() == whole_text.data() &&
                          validation_text.size() == whole_text.size();
    {
      // valijson reads `pattern` under a keyword of ours, matched with PCRE2 (schema/pattern.h);
      // the build's validation copy has it so already (schema/validation_copy.h).
      std::optional<Pcre2PatternKeywords> renamed;
      std::optional<SortedUniqueItemsKeywords> renamed_unique_items;  // schema/unique_items.h
      if (one_text) {
        renamed.emplace(validation);
        renamed_unique_items.emplace(validation);
      }
      valijson::SchemaParser parser;
      UsePcre2Patterns(parser);
      UseSortedUniqueItems(parser);
      valijson::adapters::NlohmannJsonAdapter adapter(validation);
      parser.populateSchema(adapter, impl->schema);
    }
    if (one_text) {
      // One text: the parse just made is the document, and the text is not kept.
      std::call_once(impl->document_once, [&] { impl->document = std::move(validation); });
    } else {
      impl->whole_text = whole_text;
    }
  } catch (const std::exception& e) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{name, 0, 0}, "", "schema.invalid",
                           std::string("the schema cannot be used: ") + e.what(),
                           "fix the schema file and rebuild"});
    return std::nullopt;
  }
  return ProfileSchema(std::move(impl));
}

std::optional<ProfileSchema> ProfileSchema::Parse(const std::string& name, std::string_view text,
                                                  DiagnosticSink& sink) {
  return Compile(name, text, text, sink);
}

const ProfileSchema* ProfileSchema::Embedded(DiagnosticSink& sink) {
  static constexpr const char* kName = "schemas/profile.schema.json";
  static constexpr const char* kValidationName = "schemas/profile.validation.json";
  static std::once_flag once;
  static std::optional<ProfileSchema> schema;
  static DiagnosticSink parse_errors;
  std::call_once(once, [] {
    // The embedded texts themselves, not copies: they live as long as the program.
    if (const std::string_view* text = FindEmbeddedFile(kName)) {
      const std::string_view* validation = FindEmbeddedFile(kValidationName);
      schema = Compile(kName, validation ? *validation : *text, *text, parse_errors);
    } else {
      parse_errors.Report(Diagnostic{Severity::kError, SourceLocation{kName, 0, 0}, "",
                                     "schema.missing", "no schema was embedded at build time",
                                     "add schemas/profile.schema.json and rebuild"});
    }
  });
  for (const Diagnostic& d : parse_errors.diagnostics()) sink.Report(d);
  return schema ? &*schema : nullptr;
}

const valijson::Schema& ProfileSchema::compiled() const { return impl_->schema; }

/// Follows local "$ref"s ("#/definitions/rail").
const nlohmann::json* ResolveSchemaRef(const nlohmann::json& root, const nlohmann::json* node) {
  for (int depth = 0; node && depth < 32; ++depth) {
    if (!node->is_object()) return node;
    auto ref = node->find("$ref");
    if (ref == node->end() || !ref->is_string()) return node;
    const std::string target = ref->get<std::string>();
    if (target.rfind("#", 0) != 0) return node;
    try {
      node = &root.at(nlohmann::json::json_pointer(target.substr(1)));
    } catch (const std::exception&) {
      return nullptr;
    }
  }
  return node;
}

/// The schema's advice for a value: `x-fix`, else `description`.
std::string SchemaFix(const nlohmann::json* schema) {
  if (!schema || !schema->is_object()) return "";
  for (const char* key : {"x-fix", "description"}) {
    auto it = schema->find(key);
    if (it != schema->end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

const nlohmann::json* SchemaKeyword(const nlohmann::json* schema, const char* key) {
  if (!schema || !schema->is_object()) return nullptr;
  auto it = schema->find(key);
  return it == schema->end() ? nullptr : &*it;
}

namespace {

/// The node and every sub-schema that also applies to the same instance.
void CollectBranches(const nlohmann::json& root, const nlohmann::json* node,
                     std::vector<const nlohmann::json*>& out, int depth = 0) {
  node = ResolveSchemaRef(root, node);
  if (!node || !node->is_object() || depth > 16) return;
  out.push_back(node);
  for (const char* list : {"allOf", "anyOf", "oneOf"}) {
    auto it = node->find(list);
    if (it != node->end() && it->is_array()) {
      for (const auto& sub : *it) CollectBranches(root, &sub, out, depth + 1);
    }
  }
  for (const char* single : {"then", "else"}) {
    auto it = node->find(single);
    if (it != node->end()) CollectBranches(root, &*it, out, depth + 1);
  }
}

const nlohmann::json* Child(const nlohmann::json& root, const nlohmann::json* node,
                            const std::string& token, bool parent_is_array) {
  std::vector<const nlohmann::json*> branches;
  CollectBranches(root, node, branches);
  for (const nlohmann::json* b : branches) {
    if (parent_is_array) {
      auto items = b->find("items");
      if (items != b->end() && items->is_object()) return ResolveSchemaRef(root, &*items);
    } else {
      auto props = b->find("properties");
      if (props != b->end() && props->is_object()) {
        auto p = props->find(token);
        if (p != props->end()) return ResolveSchemaRef(root, &*p);
      }
    }
  }
  if (!parent_is_array) {
    for (const nlohmann::json* b : branches) {
      auto extra = b->find("additionalProperties");
      if (extra != b->end() && extra->is_object()) return ResolveSchemaRef(root, &*extra);
    }
  }
  return nullptr;
}
}  // namespace

const nlohmann::json* ProfileSchema::SchemaFor(const std::string& json_pointer) const {
  const nlohmann::json& root = document();
  const nlohmann::json* node = ResolveSchemaRef(root, &root);
  for (const std::string& token : SplitJsonPointer(json_pointer)) {
    if (!node) return nullptr;
    bool is_index = !token.empty() && std::all_of(token.begin(), token.end(), ::isdigit);
    // An object schema with that property wins; else an array schema's items.
    const nlohmann::json* child = Child(root, node, token, false);
    if (!child && is_index) child = Child(root, node, token, true);
    node = child;
  }
  return node;
}

std::vector<std::string> ProfileSchema::AllowedKeys(const std::string& json_pointer) const {
  std::set<std::string> keys;
  std::vector<const nlohmann::json*> branches;
  CollectBranches(document(), SchemaFor(json_pointer), branches);
  for (const nlohmann::json* b : branches) {
    auto props = b->find("properties");
    if (props != b->end() && props->is_object()) {
      for (const auto& [key, value] : props->items()) keys.insert(key);
    }
  }
  return {keys.begin(), keys.end()};
}

std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  std::vector<size_t> row;  // one row of the edit-distance table, reused for every candidate
  auto distance = [&row](const std::string& a, const std::string& b) {
    row.resize(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t above = row[j];
        size_t cost = std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1;
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
        diagonal = above;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {  // sorted: ties go to the first
    // The distance is at least the difference in length: a candidate that cannot be nearer is
    // not measured (a long unknown key against every allowed one).
    const size_t apart = word.size() > candidate.size() ? word.size() - candidate.size()
                                                        : candidate.size() - word.size();
    if (apart >= best_distance) continue;
    size_t d = distance(word, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace hkim
