#include "schema/doc.h"

#include <set>
#include <sstream>

namespace hkim {
namespace {

using nlohmann::json;

const json* Resolve(const json& root, const json* schema, std::set<std::string>* seen) {
  int hops = 0;
  while (schema != nullptr && schema->is_object() && schema->contains("$ref") && hops++ < 16) {
    const std::string ref = (*schema)["$ref"].get<std::string>();
    if (ref.rfind("#", 0) != 0) return schema;
    if (seen != nullptr && !seen->insert(ref).second) return nullptr;  // recursion
    try {
      schema = &root.at(json::json_pointer(ref.substr(1)));
    } catch (const json::exception&) {
      return nullptr;
    }
  }
  return schema;
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  std::string out;
  for (char c : text) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string TypeOf(const json& root, const json& schema) {
  if (schema.contains("const")) return "constant " + schema["const"].dump();
  std::string type;
  if (schema.contains("type")) {
    const json& t = schema["type"];
    if (t.is_string()) {
      type = t.get<std::string>();
    } else if (t.is_array()) {
      for (const json& one : t) type += (type.empty() ? "" : " or ") + one.get<std::string>();
    }
  }
  for (const char* combinator : {"oneOf", "anyOf"}) {
    if (!type.empty() || !schema.contains(combinator)) continue;
    std::set<std::string> branch_types;
    for (const json& branch : schema[combinator]) {
      const json* resolved = Resolve(root, &branch, nullptr);
      if (resolved != nullptr) branch_types.insert(TypeOf(root, *resolved));
    }
    for (const std::string& t : branch_types) type += (type.empty() ? "" : " or ") + t;
  }
  if (type == "array" && schema.contains("items") && schema["items"].is_object()) {
    const json* items = Resolve(root, &schema["items"], nullptr);
    if (items != nullptr) type = "list of " + TypeOf(root, *items);
  }
  if (type == "object" && !schema.contains("properties") &&
      schema.contains("additionalProperties") && schema["additionalProperties"].is_object()) {
    const json* values = Resolve(root, &schema["additionalProperties"], nullptr);
    if (values != nullptr) type = "map of " + TypeOf(root, *values);
  }
  if (schema.contains("enum")) type += type.empty() ? "enum" : " (enum)";
  return type.empty() ? "any" : type;
}

std::string Constraints(const json& schema) {
  std::vector<std::string> parts;
  auto num = [&](const char* key) { return schema.contains(key) ? schema[key].dump() : ""; };
  std::string lo = num("minimum"), hi = num("maximum");
  std::string xlo = num("exclusiveMinimum"), xhi = num("exclusiveMaximum");
  if (!lo.empty() || !hi.empty() || !xlo.empty() || !xhi.empty()) {
    std::string range;
    if (!lo.empty()) range += lo + " ≤ ";
    if (!xlo.empty()) range += xlo + " < ";
    range += "value";
    if (!hi.empty()) range += " ≤ " + hi;
    if (!xhi.empty()) range += " < " + xhi;
    parts.push_back(range);
  }
  if (schema.contains("enum")) {
    std::string values;
    for (const json& v : schema["enum"]) {
      values += (values.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
    }
    parts.push_back("one of: " + values);
  }
  if (schema.contains("pattern"))
    parts.push_back("pattern `" + schema["pattern"].get<std::string>() + "`");
  if (schema.contains("format")) parts.push_back("format " + schema["format"].get<std::string>());
  if (schema.contains("minLength")) parts.push_back("at least " + num("minLength") + " characters");
  if (schema.contains("maxLength")) parts.push_back("at most " + num("maxLength") + " characters");
  if (schema.contains("minItems")) parts.push_back("at least " + num("minItems") + " items");
  if (schema.contains("maxItems")) parts.push_back("at most " + num("maxItems") + " items");
  if (schema.value("uniqueItems", false)) parts.push_back("items unique");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

class Collector {
 public:
  explicit Collector(const json& root) : root_(root) {}

  void Visit(const json& raw, const std::string& path, bool required, std::set<std::string> seen,
             std::vector<SchemaField>& out) {
    const json* schema = Resolve(root_, &raw, &seen);
    if (schema == nullptr || !schema->is_object()) return;
    if (!path.empty()) {
      SchemaField field;
      field.path = path;
      field.type = TypeOf(root_, *schema);
      // Keywords beside a `$ref` (a description, a default) describe this use of the shared
      // definition, so they win over the definition's own.
      const json& own = raw.is_object() ? raw : *schema;
      field.default_text = own.contains("default")       ? own["default"].dump()
                           : schema->contains("default") ? (*schema)["default"].dump()
                                                         : "";
      field.required = required;
      field.constraints = Constraints(*schema);
      field.description = OneLine(
          own.value("description", schema->value("description", schema->value("title", ""))));
      out.push_back(std::move(field));
    }
    // Properties of the object itself and of allOf / if-then-else branches, merged by name.
    std::map<std::string, const json*> properties;
    std::set<std::string> required_names;
    auto gather = [&](const json& s) {
      if (s.contains("properties") && s["properties"].is_object()) {
        for (const auto& [name, sub] : s["properties"].items()) {
          if (!properties.count(name)) properties[name] = &sub;
        }
      }
      if (s.contains("required") && s["required"].is_array()) {
        for (const json& name : s["required"]) required_names.insert(name.get<std::string>());
      }
    };
    gather(*schema);
    for (const char* key : {"allOf", "anyOf", "oneOf"}) {
      if (!schema->contains(key)) continue;
      for (const json& branch : (*schema)[key]) {
        const json* resolved = Resolve(root_, &branch, nullptr);
        if (resolved == nullptr) continue;
        std::set<std::string> saved = required_names;
        gather(*resolved);
        if (std::string(key) != "allOf") required_names = saved;  // only allOf makes required
      }
    }
    for (const char* key : {"then", "else"}) {
      if (schema->contains(key) && (*schema)[key].is_object()) {
        std::set<std::string> saved = required_names;
        gather((*schema)[key]);
        required_names = saved;
      }
    }
    const std::string prefix = path.empty() ? "" : path + ".";
    for (const auto& [name, sub] : properties) {
      Visit(*sub, prefix + name, required_names.count(name) > 0, seen, out);
    }
    if (schema->contains("additionalProperties") && (*schema)["additionalProperties"].is_object()) {
      Visit((*schema)["additionalProperties"], prefix + "<key>", false, seen, out);
    }
    if (schema->contains("items") && (*schema)["items"].is_object()) {
      const json* items = Resolve(root_, &(*schema)["items"], nullptr);
      if (items != nullptr &&
          (items->contains("properties") || items->contains("items") || items->contains("allOf") ||
           items->contains("additionalProperties"))) {
        VisitChildren(*items, path + "[]", seen, out);
      }
    }
  }

 private:
  // Like Visit, but without a row for the list item itself (its row is the list's).
  void VisitChildren(const json& items, const std::string& path, std::set<std::string> seen,
                     std::vector<SchemaField>& out) {
    std::vector<SchemaField> nested;
    Visit(items, path, false, seen, nested);
    for (SchemaField& f : nested) {
      if (f.path != path) out.push_back(std::move(f));
    }
  }

  const json& root_;
};

std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\";
    out += c;
  }
  return out;
}

}  // namespace

SchemaField DescribeSchema(const json& root, const json& sub_schema, const std::string& path) {
  SchemaField field;
  field.path = path;
  const json* schema = Resolve(root, &sub_schema, nullptr);
  if (schema == nullptr || !schema->is_object()) return field;
  const json& own = sub_schema.is_object() ? sub_schema : *schema;
  field.type = TypeOf(root, *schema);
  field.default_text = own.contains("default")       ? own["default"].dump()
                       : schema->contains("default") ? (*schema)["default"].dump()
                                                     : "";
  field.constraints = Constraints(*schema);
  field.description =
      OneLine(own.value("description", schema->value("description", schema->value("title", ""))));
  return field;
}

std::vector<SchemaField> CollectSchemaFields(const json& schema) {
  std::vector<SchemaField> fields;
  Collector(schema).Visit(schema, "", false, {}, fields);
  return fields;
}

std::string ProfileReferenceMarkdown(const json& schema) {
  std::ostringstream out;
  out << "# Profile field reference\n\n"
         "<!-- Generated from schemas/profile.schema.json by `hkimgen schema -o markdown`;"
         " do not edit. Regenerate with:\n"
         "     ./build/generator/hkimgen schema -o markdown > docs/profile-reference.md\n"
         "     The test ProfileReference.DocIsCurrent fails when this file is stale. -->\n\n";
  if (schema.contains("description"))
    out << OneLine(schema["description"].get<std::string>()) << "\n\n";
  out << "Editors: put `# yaml-language-server: $schema=<path to schemas/profile.schema.json>` on"
         " the first line of a profile for completion and checking; `hkimgen schema` prints the"
         " schema this binary embeds.\n\n"
         "## Layering: `extends:`, `-f` and `--set`\n\n"
         "A profile may start from base profiles and be adjusted on the command line, as Helm"
         " values are. Layers apply in this order, each over the ones before it:\n\n"
         "1. the bases named by `extends:` (a path relative to the file, or a list of paths;"
         " a base may extend another base; cycles are errors), deepest first;\n"
         "2. the profile itself;\n"
         "3. every `-f extra.yaml` file, in command-line order (each may have its own"
         " `extends:`);\n"
         "4. every `--set path=value`, in command-line order.\n\n"
         "Merge rules:\n\n"
         "- maps merge key by key, recursively; any other value replaces the value below it;\n"
         "- a list whose items are all maps with a string `name` (rails, namespaces, ...)"
         " merges by name: inherited items keep their order, an item with a known name merges"
         " into it, a new name is appended; any other list replaces the inherited list;\n"
         "- `key: null` removes an inherited key and everything under it (with nothing to"
         " remove, the null stays and the schema reports it);\n"
         "- `{name: X, $remove: true}` in a named list removes the inherited item X (an error"
         " when no layer below has X).\n\n"
         "`--set` paths use dots for keys (`\\.` for a literal dot), `[N]` for a list index"
         " (N = length appends) and `[name=X]` (or `[X]`) for the item named X (an error"
         " when the list has items and none is named X: add one with its index,"
         " `[N].name=X`; in an empty list it is created); a leading `/` makes the path a JSON"
         " pointer. Values are typed as YAML"
         " scalars (`null`/`~`, `true`/`false`, integers, floats, otherwise strings; quote to"
         " force a string) and `{a,b}` is a list; `null` removes. As in Helm, one `--set` may"
         " hold several assignments separated by commas (`--set workload.replicas=4,nccl.debug=INFO`);"
         " write `\\,` to keep a comma in a value (`--set 'nccl.extra_env.NCCL_ALGO=Ring\\,Tree'`;"
         " a list is written in braces, `--set 'nccl.ib_hca={mlx5_6,mlx5_7,mlx5_8,mlx5_9}'`"
         " for Barcelona's four rails);"
         " commas inside `[...]` and `{...}` do not separate.\n\n"
         "Errors point at the layer that holds the value: `base/openshift.yaml:12:9`, or"
         " `--set:2:17` for the second assignment (column within that assignment)."
         " `hkimgen explain PROFILE PATH` shows the final value of PATH, each layer that set it"
         " (file:line) or `default`, and the field's description from this reference.\n\n"
         "## Fields\n\n"
         "Paths are written as `--set` and `explain` take them; `[]` is any list item,"
         " `<key>` any map key.\n\n"
         "| path | type | default | required | description | constraints |\n"
         "| --- | --- | --- | --- | --- | --- |\n";
  for (const SchemaField& f : CollectSchemaFields(schema)) {
    out << "| `" << Cell(f.path) << "` | " << Cell(f.type) << " | "
        << (f.default_text.empty() ? "" : "`" + Cell(f.default_text) + "`") << " | "
        << (f.required ? "yes" : "") << " | " << Cell(f.description) << " | " << Cell(f.constraints)
        << " |\n";
  }
  return out.str();
}

}  // namespace hkim
