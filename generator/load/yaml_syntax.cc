#include "load/yaml_syntax.h"

#include <algorithm>

namespace hkim {
namespace {

int Indent(const std::string& line) {
  return static_cast<int>(line.find_first_not_of(' ') == std::string::npos
                              ? line.size()
                              : line.find_first_not_of(' '));
}

bool Blank(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos || line[first] == '#';
}

// "  key: value" or "  key:" (not a list item, not a continuation of a flow value).
bool IsKeyLine(const std::string& line) {
  const size_t first = line.find_first_not_of(' ');
  if (first == std::string::npos || line[first] == '-' || line[first] == '#') return false;
  const size_t colon = line.find(':', first);
  return colon != std::string::npos && (colon + 1 == line.size() || line[colon + 1] == ' ');
}

bool OpensBlock(const std::string& line) {
  std::string text = line.substr(0, line.find(" #"));
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return !text.empty() && (text.back() == ':' || text.back() == '-' || text.back() == '|' ||
                           text.back() == '>' || text.back() == '{' || text.back() == '[');
}

}  // namespace

YamlSyntaxCause ExplainYamlSyntaxError(const std::vector<std::string>& lines, int line, int column,
                                       const std::string& parser_message) {
  const int last = std::min<int>(std::max(line, 1), static_cast<int>(lines.size()));

  // A tab in the indentation of a line up to the error (the parser stops at or after it).
  for (int n = last; n >= 1; --n) {
    const std::string& text = lines[n - 1];
    const size_t first = text.find_first_not_of(" \t");
    const size_t tab = text.find('\t');
    if (tab != std::string::npos && (first == std::string::npos || tab < first)) {
      return {n, static_cast<int>(tab) + 1,
              "a tab indents line " + std::to_string(n) + ": YAML indents with spaces only",
              "replace the tab with spaces, as many as the keys at that level have (set the "
              "editor to insert spaces for YAML)"};
    }
  }

  // An alias (*name) whose anchor (&name) is not defined before it.
  if (parser_message.find("anchor") != std::string::npos && last >= 1) {
    const std::string& text = lines[last - 1];
    size_t star = text.find('*', column > 0 ? std::min<size_t>(column - 1, text.size()) : 0);
    if (star == std::string::npos) star = text.find('*');
    std::string name;
    if (star != std::string::npos) {
      size_t end = star + 1;
      while (end < text.size() && text[end] != ' ' && text[end] != ',' && text[end] != ']' &&
             text[end] != '}')
        ++end;
      name = text.substr(star + 1, end - star - 1);
    }
    const std::string shown = name.empty() ? "the alias" : "*" + name;
    return {last, star == std::string::npos ? column : static_cast<int>(star) + 1,
            shown + " refers to no anchor: no value above it is marked &" +
                (name.empty() ? std::string("NAME") : name),
            "mark the value to repeat with &" + (name.empty() ? std::string("NAME") : name) +
                " before this line (an alias only refers back), or write the value itself"};
  }

  // A key indented unlike its siblings: deeper than the key before it without that key opening
  // a block, or at a depth no enclosing key has. Not inside a flow collection ({...}, [...],
  // JSON): indentation means nothing there.
  const bool flow = parser_message.find("flow") != std::string::npos;
  for (int n = last; !flow && n >= 2 && n >= last - 2; --n) {
    const std::string& text = lines[n - 1];
    if (Blank(text) || !IsKeyLine(text)) continue;
    int previous = n - 1;
    while (previous >= 1 && Blank(lines[previous - 1])) --previous;
    if (previous < 1) break;
    const std::string& before = lines[previous - 1];
    const int indent = Indent(text);
    if (indent > Indent(before) && !OpensBlock(before)) {
      return {n, 1,
              "line " + std::to_string(n) + " is indented by " + std::to_string(indent) +
                  " spaces, deeper than the key on line " + std::to_string(previous) + " (" +
                  std::to_string(Indent(before)) + "), which holds a value, not a block",
              "indent it by " + std::to_string(Indent(before)) +
                  " spaces to make it a sibling, or end line " + std::to_string(previous) +
                  " after the ':' to open a block under it"};
    }
    if (indent < Indent(before)) {
      // Where would it belong? Some earlier key line must have exactly this indent.
      bool matches = false;
      int nearest = -1;
      for (int k = previous; k >= 1; --k) {
        const std::string& up = lines[k - 1];
        if (Blank(up)) continue;
        const int up_indent = Indent(up);
        if (up_indent == indent) {
          matches = true;
          break;
        }
        if (up_indent < indent) {
          nearest = k;
          break;
        }
      }
      if (!matches) {
        int sibling = -1;
        for (int k = previous; k >= 1 && k > (nearest < 0 ? 0 : nearest); --k)
          if (!Blank(lines[k - 1]) && Indent(lines[k - 1]) > indent) sibling = Indent(lines[k - 1]);
        return {n, 1,
                "line " + std::to_string(n) + " is indented by " + std::to_string(indent) +
                    " spaces, a depth no key above it has",
                sibling >= 0 ? "indent it by " + std::to_string(sibling) +
                                   " spaces like the keys of its block, or to the depth of the "
                                   "key it belongs under"
                             : "indent it like the keys of the block it belongs to"};
      }
    }
  }
  return {line, column, parser_message,
          "fix the YAML syntax at this position (check the line above it too: a missing ':', an "
          "unclosed quote or bracket)"};
}

}  // namespace hkim
