#include "validate/value_fix.h"

#include "validate/network_address.h"

namespace hkim {

std::string DescribeValue(const nlohmann::json& value) {
  // Loaded strings are UTF-8 (load/load.cc); replace, not throw, should one ever not be.
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// Network values (the schema's `ipv4` and `cidr` definitions) are parsed as addresses, and
// the message says what is wrong (octet, prefix) instead of printing the regular expression.
void ExplainAddress(const ProfileSchema& schema, const nlohmann::json* pattern,
                    const std::string& value, Diagnostic& d) {
  if (pattern == nullptr) return;
  // Looked up in place: the schema's definitions are large, and every pattern error lands here.
  static const nlohmann::json kNone = nlohmann::json::object();
  const nlohmann::json& document = schema.document();
  const auto found = document.find("definitions");
  const nlohmann::json& definitions = found != document.end() ? *found : kNone;
  auto pattern_of = [&](const char* name) {
    const auto definition = definitions.find(name);
    return definition != definitions.end() ? definition->value("pattern", "") : std::string();
  };
  std::string rule = "network.address", problem;
  if (*pattern == pattern_of("ipv4")) {
    problem = Ipv4AddressProblem(value);
  } else if (*pattern == pattern_of("cidr")) {
    problem = CidrProblem(value, &rule);
  }
  if (problem.empty()) return;  // the pattern and the parser disagree: keep the schema's words
  d.rule = rule;
  d.message = problem;
  d.fix = rule == "network.prefix" || *pattern == pattern_of("cidr")
              ? "write an IPv4 network such as 10.0.103.0/24"
              : "write an IPv4 address such as 10.0.103.1";
}

namespace {

// /workload/command -> workload.command, /network/rails/0/x -> network.rails[0].x (as --set
// takes a path; layering's PointerToDotted is a later stage).
std::string DottedPath(const std::string& pointer) {
  std::string out;
  for (const std::string& token : SplitJsonPointer(pointer)) {
    if (!token.empty() && token.find_first_not_of("0123456789") == std::string::npos) {
      out += "[" + token + "]";
    } else {
      out += (out.empty() ? "" : ".") + token;
    }
  }
  return out;
}

}  // namespace

// What to write instead of a value of the wrong type, e.g. "write an integer, e.g. 9000" or
// "quote it: revision: \"1.10\"" (with the text as the user wrote it, from the source line).
std::string TypeFix(const std::vector<std::string>& expected, const nlohmann::json* value,
                    const nlohmann::json* rule_schema, const LoadedProfile& profile,
                    const Diagnostic& d) {
  const std::string key = SplitJsonPointer(d.data_path).empty()
                              ? std::string("the value")
                              : SplitJsonPointer(d.data_path).back();
  auto example = [&]() -> std::string {
    for (const char* keyword : {"default", "minimum"}) {
      if (const nlohmann::json* v = SchemaKeyword(rule_schema, keyword)) return v->dump();
    }
    if (const nlohmann::json* v = SchemaKeyword(rule_schema, "examples");
        v && v->is_array() && !v->empty()) {
      return (*v)[0].dump();
    }
    return "";
  };
  const std::string want = expected.empty() ? "" : expected.front();
  if (want == "string" && value && !value->is_null() && !value->is_object() &&
      !value->is_array()) {
    // The text as written: `revision: 1.10` was read as the number 1.1.
    std::string written = value->dump();
    const SourceLocation& at = d.location;
    // The lines of the file the value was written in: the profile, or another layer (a value
    // from --set or -f is not on the profile's line of the same number).
    const std::vector<std::string>* lines = nullptr;
    if (at.file == profile.path) {
      lines = &profile.source_lines;
    } else if (auto it = profile.layer_lines.find(at.file); it != profile.layer_lines.end()) {
      lines = &it->second;
    }
    const bool set = at.file == "--set";  // layering's kSetLayerFile, a later stage
    if (lines != nullptr && at.known() && at.column > 0 &&
        at.line <= static_cast<int>(lines->size()) &&
        static_cast<size_t>(at.column - 1) <= (*lines)[at.line - 1].size()) {
      const std::string& full = (*lines)[at.line - 1];
      std::string line = full.substr(at.column - 1);
      if (!set) {
        const size_t comment = line.find(" #");
        if (comment != std::string::npos) line = line.substr(0, comment);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
      }
      if (!line.empty()) written = line;
      // --set path=text: the same quotes, inside the shell's.
      if (set && at.column >= 2) {
        return "quote it: --set '" + full.substr(0, at.column - 2) + "=\"" + written + "\"'";
      }
    }
    return "quote it: " + key + ": \"" + written + "\"";
  }
  if (want == "integer" || want == "number") {
    // The schema's own advice (x-fix) names the value to use; otherwise an example.
    const nlohmann::json* advice = SchemaKeyword(rule_schema, "x-fix");
    const std::string e = example();
    const std::string tail = advice && advice->is_string()
                                 ? " (" + advice->get<std::string>() + ")"
                                 : (e.empty() ? "" : ", e.g. " + key + ": " + e);
    const bool quoted_number =
        value && value->is_string() && !value->get<std::string>().empty() &&
        value->get<std::string>().find_first_not_of("0123456789.-+") == std::string::npos;
    if (quoted_number) return "write the number without quotes" + tail;
    return "write " + std::string(want == "integer" ? "an integer" : "a number") + tail;
  }
  if (want == "boolean") return "write true or false (without quotes)";
  if (want == "mapping") {
    return "write a mapping: the keys of " + key + " on the lines below it, indented";
  }
  if (want == "list") {
    // Helm's list form, quoted: unquoted, the shell expands {a,b} into two words.
    if (d.location.file == "--set") {
      return "write Helm's list form, in quotes so that the shell does not expand the braces: "
             "--set '" + DottedPath(d.data_path) + "={a,b}'";
    }
    return "write a list: " + key + ": [a, b], or one '- item' line each";
  }
  return "";
}

}  // namespace hkim
