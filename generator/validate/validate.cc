#include "validate/validate.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "support/input_limits.h"
#include "support/join.h"
#include "validate/repeated_items.h"
#include "validate/value_fix.h"

namespace hkim {

namespace {

std::string TypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "integer";
    case nlohmann::json::value_t::number_float:
      return "number";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::array:
      return "list";
    case nlohmann::json::value_t::object:
      return "mapping";
    default:
      return "value";
  }
}

std::string SchemaTypeName(const std::string& type) {
  if (type == "array") return "list";
  if (type == "object") return "mapping";
  return type;
}

/// The text between the last pair of single quotes in a valijson message.
std::string QuotedName(const std::string& description) {
  size_t end = description.rfind('\'');
  if (end == std::string::npos || end == 0) return "";
  size_t start = description.rfind('\'', end - 1);
  if (start == std::string::npos) return "";
  return description.substr(start + 1, end - start - 1);
}

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

/// Messages valijson adds for a parent whose child failed; the child's own error says it all.
bool IsWrapper(const std::string& d) {
  return StartsWith(d, "Failed to validate against schema associated with property name") ||
         StartsWith(d, "Failed to validate item #") ||
         StartsWith(d, "Failed to validate against child schema #") ||
         StartsWith(d, "Failed to validate against additional properties schema") ||
         StartsWith(d, "Failed to validate against dependent schema") ||
         StartsWith(d, "Failed to validate against schema associated with pattern") ||
         StartsWith(d, "Failed to validate against a conditional schema");
}

}  // namespace

std::string ContextToPointer(const std::vector<std::string>& context) {
  std::string pointer;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    std::string token = part;
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']') {
      token = token.substr(1, token.size() - 2);
    }
    pointer += "/" + EscapeJsonPointerToken(token);
  }
  return pointer;
}

namespace {

/// One valijson error, its context turned into a JSON pointer.
struct RawError {
  std::string pointer;
  std::string text;
};

/// Runs valijson; returns false (after reporting) when validation itself failed.
bool Collect(const valijson::Schema& schema, const nlohmann::json& value,
             const std::string& base_pointer, std::vector<RawError>& errors,
             const LoadedProfile& profile, DiagnosticSink& sink) {
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(value);
  try {
    validator.validate(schema, target, &results);
  } catch (const std::exception& e) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{profile.path, 0, 0}, "",
                           "schema.internal", std::string("schema validation failed: ") + e.what(),
                           "report this as a bug in hkimgen"});
    return false;
  }
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    if (IsWrapper(error.description)) continue;
    errors.push_back({base_pointer + ContextToPointer(error.context), error.description});
  }
  return true;
}

bool IsCombinator(const std::string& text) {
  return StartsWith(text, "Failed to validate against any schemas allowed by anyOf") ||
         text.find("oneOf") != std::string::npos ||
         StartsWith(text, "Failed to validate against exactly one child schema");
}

bool IsAtOrBelow(const std::string& pointer, const std::string& base) {
  return pointer == base || pointer.rfind(base + "/", 0) == 0;
}

/// For rules with a numeric or textual bound, what to change the value to ("" for other rules).
std::string BoundAction(const std::string& rule, const nlohmann::json* rule_schema) {
  auto bound = [&](const char* keyword) {
    const nlohmann::json* limit = SchemaKeyword(rule_schema, keyword);
    return limit ? (limit->is_string() ? limit->get<std::string>() : limit->dump()) : "";
  };
  if (rule == "schema.minimum") return "use a value of at least " + bound("minimum");
  if (rule == "schema.maximum") return "use a value of at most " + bound("maximum");
  if (rule == "schema.exclusiveMinimum") return "use a value above " + bound("exclusiveMinimum");
  if (rule == "schema.exclusiveMaximum") return "use a value below " + bound("exclusiveMaximum");
  if (rule == "schema.pattern") return "write a value matching " + bound("pattern");
  if (rule == "schema.minLength") return "use at least " + bound("minLength") + " characters";
  if (rule == "schema.maxLength") return "use at most " + bound("maxLength") + " characters";
  return "";
}

/// Turns one valijson message into a diagnostic. `pointer` is the instance's place in the
/// profile; `schema_pointer` the same place relative to `schema` (they differ when `schema` is
/// one branch of a oneOf/anyOf, checked on its own).
// The allowed value a wrong one most likely meant: a near spelling ("INOF"), else the one allowed
// value that contains it ("peermem" for "nvidia-peermem") or that it extends or shortens
// ("WARNING" for "WARN", "TRAC" for "TRACE"), letter case aside; empty when none or several.
std::string ClosestEnumValue(const std::string& given, const std::vector<std::string>& options) {
  if (std::string near = ClosestMatch(given, options); !near.empty()) return near;
  if (given.size() < 3) return "";
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string word = lower(given);
  std::vector<std::string> related;
  for (const std::string& option : options) {
    const std::string allowed = lower(option);
    if (allowed.size() < 3) continue;
    if (allowed.find(word) != std::string::npos || word.starts_with(allowed)) {
      related.push_back(option);
    }
  }
  return related.size() == 1 ? related.front() : "";
}

bool IsUnknownKey(const std::string& text) {
  return StartsWith(text, "Object contains a property that could not be validated");
}

/// Where a valijson error is reported: at the value, or for an unknown key at the key.
SourceLocation FindingLocation(const std::string& text, const std::string& pointer,
                               const LoadedProfile& profile) {
  if (IsUnknownKey(text)) {
    return profile.locations.FindKey(pointer + "/" + EscapeJsonPointerToken(QuotedName(text)));
  }
  return profile.locations.Find(pointer);
}

/// Each value's text for messages, dumped once: many errors can share one pointer (every unknown
/// key of a mapping), and a dump is as long as the value.
using Descriptions = std::map<std::string, std::string>;

Diagnostic ToDiagnostic(const std::string& text, const std::string& pointer,
                        const std::string& schema_pointer, const ProfileSchema& schema,
                        const LoadedProfile& profile, const std::string& fallback_fix,
                        Descriptions& described) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.data_path = pointer;
  const nlohmann::json* value = nullptr;
  try {
    value = &profile.document.at(nlohmann::json::json_pointer(d.data_path));
  } catch (const std::exception&) {
  }
  const nlohmann::json* rule_schema = schema.SchemaFor(schema_pointer);
  d.location = FindingLocation(text, pointer, profile);
  d.fix = SchemaFix(rule_schema);
  auto [entry, added] = described.try_emplace(d.data_path);
  if (added) entry->second = value ? DescribeValue(*value) : "the value";
  const std::string& shown = entry->second;

  if (IsUnknownKey(text)) {
    const std::string key = QuotedName(text);
    const std::string parent = d.data_path;
    const std::string schema_parent = schema_pointer;
    d.data_path = parent + "/" + EscapeJsonPointerToken(key);
    d.rule = "schema.unknown-key";
    d.message = "unknown key '" + key + "'";
    std::vector<std::string> allowed = schema.AllowedKeys(schema_parent);
    std::string suggestion = ClosestMatch(key, allowed);
    if (!suggestion.empty()) {
      d.message += "; did you mean '" + suggestion + "'?";
      d.fix = "rename '" + key + "' to '" + suggestion + "'";
    } else if (!allowed.empty()) {
      d.fix = "remove '" + key + "'; the keys allowed here are: " + Join(allowed, ", ");
    } else {
      d.fix = "remove '" + key + "'";
    }
  } else if (StartsWith(text, "Missing required property")) {
    const std::string key = QuotedName(text);
    d.data_path = d.data_path + "/" + EscapeJsonPointerToken(key);
    const std::string schema_child = schema_pointer + "/" + EscapeJsonPointerToken(key);
    d.rule = "schema.required";
    d.message = "missing required key '" + key + "'";
    std::string advice = SchemaFix(schema.SchemaFor(schema_child));
    d.fix = "add '" + key + "'" + (advice.empty() ? "" : ": " + advice);
  } else if (StartsWith(text, "Value type not permitted")) {
    d.rule = "schema.type";
    std::vector<std::string> expected;
    if (const nlohmann::json* type = SchemaKeyword(rule_schema, "type")) {
      if (type->is_string()) expected.push_back(SchemaTypeName(type->get<std::string>()));
      if (type->is_array()) {
        for (const auto& t : *type) expected.push_back(SchemaTypeName(t.get<std::string>()));
      }
    }
    d.message = "expected " +
                (expected.empty() ? std::string("another type") : Join(expected, " or ")) +
                ", got " +
                (!value             ? std::string("a different type")
                 : value->is_null() ? std::string("nothing (null)")
                                    : TypeName(*value) + " " + shown);
    if (std::string fix = TypeFix(expected, value, rule_schema, profile, d); !fix.empty()) {
      d.fix = fix;
    }
  } else if (StartsWith(text, "Expected number greater than or equal to")) {
    d.rule = "schema.minimum";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "minimum");
    d.message = shown + " is less than the minimum of " +
                (limit ? limit->dump() : text.substr(text.rfind(' ') + 1));
  } else if (StartsWith(text, "Expected number greater than")) {
    d.rule = "schema.exclusiveMinimum";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "exclusiveMinimum");
    d.message = shown + " must be greater than " +
                (limit ? limit->dump() : text.substr(text.rfind(' ') + 1));
  } else if (StartsWith(text, "Expected number less than or equal to")) {
    d.rule = "schema.maximum";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "maximum");
    d.message = shown + " is greater than the maximum of " +
                (limit ? limit->dump() : text.substr(text.rfind(' ') + 1));
  } else if (StartsWith(text, "Expected number less than")) {
    d.rule = "schema.exclusiveMaximum";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "exclusiveMaximum");
    d.message =
        shown + " must be less than " + (limit ? limit->dump() : text.substr(text.rfind(' ') + 1));
  } else if (StartsWith(text, "Failed to match against any enum values")) {
    d.rule = "schema.enum";
    std::vector<std::string> options;
    if (const nlohmann::json* e = SchemaKeyword(rule_schema, "enum"); e && e->is_array()) {
      for (const auto& option : *e) {
        options.push_back(option.is_string() ? option.get<std::string>() : option.dump());
      }
    }
    d.message = shown + " is not one of: " + Join(options, ", ");
    if (value && value->is_string()) {
      const std::string suggestion = ClosestEnumValue(value->get<std::string>(), options);
      if (!suggestion.empty()) d.fix = "did you mean '" + suggestion + "'?";
    }
  } else if (StartsWith(text, "Failed to match regex")) {
    d.rule = "schema.pattern";
    const nlohmann::json* pattern = SchemaKeyword(rule_schema, "pattern");
    d.message = shown + " does not match the pattern " +
                (pattern && pattern->is_string() ? pattern->get<std::string>() : "required");
    if (value && value->is_string()) ExplainAddress(schema, pattern, value->get<std::string>(), d);
  } else if (StartsWith(text, "String should be no fewer than")) {
    d.rule = "schema.minLength";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "minLength");
    d.message = shown + " is shorter than " + (limit ? limit->dump() : "allowed") + " characters";
  } else if (StartsWith(text, "String should be no more than")) {
    d.rule = "schema.maxLength";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "maxLength");
    d.message = shown + " is longer than " + (limit ? limit->dump() : "allowed") + " characters";
  } else if (StartsWith(text, "Array should contain no fewer than")) {
    d.rule = "schema.minItems";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "minItems");
    d.message = "the list has " + std::to_string(value ? value->size() : 0) + " items; at least " +
                (limit ? limit->dump() : "more") + " are needed";
  } else if (StartsWith(text, "Array should contain no more than")) {
    d.rule = "schema.maxItems";
    const nlohmann::json* limit = SchemaKeyword(rule_schema, "maxItems");
    d.message = "the list has " + std::to_string(value ? value->size() : 0) + " items; at most " +
                (limit ? limit->dump() : "fewer") + " are allowed";
  } else if (StartsWith(text, "Failed to match expected value set by 'const'")) {
    d.rule = "schema.const";
    const nlohmann::json* expected = SchemaKeyword(rule_schema, "const");
    d.message = shown + " must be " + (expected ? expected->dump() : "a fixed value");
  } else if (StartsWith(text, "Failed to validate against any schemas allowed by anyOf")) {
    d.rule = "schema.anyOf";
    d.message = shown + " matches none of the allowed forms";
  } else if (text.find("oneOf") != std::string::npos ||
             StartsWith(text, "Failed to validate against exactly one child schema")) {
    d.rule = "schema.oneOf";
    d.message = shown + " must match exactly one of the allowed forms";
  } else if (text.find("'not' constraint") != std::string::npos) {
    d.rule = "schema.not";
    d.message = shown + " is a value this field does not allow";
  } else if (StartsWith(text, "String should be a valid")) {
    d.rule = "schema.format";
    d.message = shown + ": " + text;
  } else if (text.find("multiple of") != std::string::npos) {
    d.rule = "schema.multipleOf";
    d.message = shown + ": " + text;
  } else {
    d.rule = "schema.other";
    d.message = text;
  }
  if (!SchemaKeyword(rule_schema, "x-fix")) {
    // A description says what a field is, not what to do: lead with the bound that was broken.
    if (std::string action = BoundAction(d.rule, rule_schema); !action.empty()) {
      const nlohmann::json* description = SchemaKeyword(rule_schema, "description");
      const std::string about =
          description && description->is_string() ? description->get<std::string>() : fallback_fix;
      d.fix = action + (about.empty() ? "" : " (" + about + ")");
    }
  }
  if (d.fix.empty()) d.fix = fallback_fix;
  if (d.fix.empty()) d.fix = "see schemas/profile.schema.json for this field";
  return d;
}

/// Whether a branch of a oneOf/anyOf could apply to `value` judging by its `type` alone.
bool TypeMatches(const nlohmann::json& branch, const nlohmann::json& value) {
  auto type = branch.find("type");
  if (type == branch.end()) return true;
  auto accepts = [&](const std::string& t) {
    if (t == "integer") return value.is_number_integer();
    if (t == "number") return value.is_number();
    if (t == "string") return value.is_string();
    if (t == "boolean") return value.is_boolean();
    if (t == "null") return value.is_null();
    if (t == "array") return value.is_array();
    if (t == "object") return value.is_object();
    return false;
  };
  if (type->is_string()) return accepts(type->get<std::string>());
  if (type->is_array()) {
    for (const auto& t : *type) {
      if (t.is_string() && accepts(t.get<std::string>())) return true;
    }
  }
  return false;
}

using FindingKey = std::tuple<std::string, std::string, std::string>;

FindingKey KeyOf(const Diagnostic& d) { return {d.data_path, d.rule, d.message}; }

std::pair<int, int> LineAndColumn(const SourceLocation& at) { return {at.line, at.column}; }

/// The errors outside every combinator as findings, converted in file order and only until one
/// more than the error limit are distinct: thousands of wrong items cost what the shown ones do.
void ConvertFirstInFileOrder(const std::vector<const RawError*>& plain,
                             const ProfileSchema& schema, const LoadedProfile& profile,
                             Descriptions& described, std::vector<Diagnostic>& found) {
  std::vector<std::pair<std::pair<int, int>, const RawError*>> placed;
  placed.reserve(plain.size());
  for (const RawError* e : plain) {
    placed.emplace_back(LineAndColumn(FindingLocation(e->text, e->pointer, profile)), e);
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::set<FindingKey> distinct;
  for (const auto& [place, e] : placed) {
    if (distinct.size() > limits::kMaxFileErrors) break;
    found.push_back(ToDiagnostic(e->text, e->pointer, e->pointer, schema, profile, "", described));
    distinct.insert(KeyOf(found.back()));
  }
}

/// Reports each distinct finding once, in file order as a compiler lists them: the first
/// kMaxFileErrors, then where it stopped (limit.errors, as the loader does).
void ReportInFileOrder(std::vector<Diagnostic> found, const LoadedProfile& profile,
                       DiagnosticSink& sink) {
  std::set<FindingKey> seen;
  std::vector<Diagnostic> unique;
  for (Diagnostic& d : found) {
    if (seen.insert(KeyOf(d)).second) unique.push_back(std::move(d));
  }
  std::stable_sort(unique.begin(), unique.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return LineAndColumn(a.location) < LineAndColumn(b.location);
  });
  if (unique.size() > limits::kMaxFileErrors) {
    const SourceLocation stopped_at = unique[limits::kMaxFileErrors].location;
    unique.resize(limits::kMaxFileErrors);
    unique.push_back(Diagnostic{
        Severity::kError, stopped_at, "", "limit.errors",
        "validation stopped after " + std::to_string(limits::kMaxFileErrors) +
            " errors in this file: any later ones are not reported",
        "fix the errors above first, then validate again: most often one wrong shape "
        "(a list where a mapping belongs) causes many"});
  }
  for (Diagnostic& d : unique) sink.Report(std::move(d));
  if (unique.empty()) {
    sink.Report(Diagnostic{Severity::kError, profile.locations.Find(""), "", "schema.other",
                           "the profile does not match the schema",
                           "see schemas/profile.schema.json"});
  }
}

}  // namespace

bool ValidateProfile(const LoadedProfile& profile, const ProfileSchema& schema,
                     DiagnosticSink& sink) {
  std::vector<RawError> errors;
  if (!Collect(schema.compiled(), profile.document, "", errors, profile, sink)) return false;
  if (errors.empty()) return true;

  // A oneOf/anyOf reports the failures of every branch, most of them noise ("expected string"
  // from the string branch when an integer was meant). Keep one account per combinator: the
  // errors of the one branch whose type fits the value, checked on its own; else the
  // combinator's own message.
  std::vector<Diagnostic> found;
  std::vector<std::string> combinators;
  for (const RawError& e : errors) {
    if (!IsCombinator(e.text)) continue;
    bool nested = false;
    for (const std::string& outer : combinators) nested |= IsAtOrBelow(e.pointer, outer);
    if (!nested) combinators.push_back(e.pointer);
  }
  Descriptions described;
  std::map<std::string, std::string> repeating_lists;  // pointer -> the list's fix
  std::vector<const RawError*> plain;
  for (const RawError& e : errors) {
    bool covered = false;
    for (const std::string& c : combinators) covered |= IsAtOrBelow(e.pointer, c);
    if (covered) continue;
    if (IsRepeatedItemPair(e.text)) {
      repeating_lists.try_emplace(e.pointer, SchemaFix(schema.SchemaFor(e.pointer)));
    } else {
      plain.push_back(&e);
    }
  }
  ConvertFirstInFileOrder(plain, schema, profile, described, found);
  const nlohmann::json& root = schema.document();
  for (const std::string& pointer : combinators) {
    const nlohmann::json* node = schema.SchemaFor(pointer);
    const nlohmann::json* value = nullptr;
    try {
      value = &profile.document.at(nlohmann::json::json_pointer(pointer));
    } catch (const std::exception&) {
    }
    const std::string fix = SchemaFix(node);
    std::vector<const nlohmann::json*> fitting;
    for (const char* list : {"oneOf", "anyOf"}) {
      const nlohmann::json* branches = SchemaKeyword(node, list);
      if (!branches || !branches->is_array() || !value) continue;
      for (const auto& branch : *branches) {
        const nlohmann::json* resolved = ResolveSchemaRef(root, &branch);
        if (resolved && resolved->is_object() && TypeMatches(*resolved, *value)) {
          fitting.push_back(resolved);
        }
      }
    }
    // A repeated item is an account too (named after the loop: validate/repeated_items.h).
    const size_t before = found.size() + repeating_lists.size();
    if (fitting.size() == 1) {
      // The branch as a schema of its own, keeping the definitions its $refs point into.
      nlohmann::json branch = *fitting[0];
      for (const char* defs : {"definitions", "$defs"}) {
        if (root.contains(defs)) branch[defs] = root[defs];
      }
      DiagnosticSink ignored;
      std::optional<ProfileSchema> sub = ProfileSchema::Parse("branch", branch.dump(), ignored);
      std::vector<RawError> branch_errors;
      if (sub && Collect(sub->compiled(), *value, pointer, branch_errors, profile, sink)) {
        for (const RawError& e : branch_errors) {
          if (IsRepeatedItemPair(e.text)) {
            const std::string list_fix =
                SchemaFix(sub->SchemaFor(e.pointer.substr(pointer.size())));
            repeating_lists.try_emplace(e.pointer, list_fix.empty() ? fix : list_fix);
            continue;
          }
          found.push_back(ToDiagnostic(e.text, e.pointer, e.pointer.substr(pointer.size()), *sub,
                                       profile, fix, described));
        }
      }
    }
    if (found.size() + repeating_lists.size() == before) {
      Diagnostic d;
      d.severity = Severity::kError;
      d.data_path = pointer;
      d.location = profile.locations.Find(pointer);
      d.rule = SchemaKeyword(node, "anyOf") ? "schema.anyOf" : "schema.oneOf";
      d.message = (value ? DescribeValue(*value) : std::string("the value")) +
                  " matches none of the allowed forms";
      d.fix = fix.empty() ? "see schemas/profile.schema.json for this field" : fix;
      found.push_back(std::move(d));
    }
  }

  for (const auto& [pointer, fix] : repeating_lists) {
    for (Diagnostic& d : RepeatedItemFindings(profile, pointer, fix)) found.push_back(std::move(d));
  }

  ReportInFileOrder(std::move(found), profile, sink);
  return false;
}

}  // namespace hkim
