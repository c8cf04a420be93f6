#pragma once

// A YAML syntax error in words a profile's author can act on: yaml-cpp says "end of
// map not found" or "illegal map value" for a tab, a wrong indent and other slips alike; the
// cause is usually visible in the lines around its position.

#include <string>
#include <vector>

namespace hkim {

/// What caused a syntax error, where, and what to write instead. Lines and columns are 1-based.
struct YamlSyntaxCause {
  int line = 0;
  int column = 0;
  std::string message;
  std::string fix;
};

/// Explains yaml-cpp's error `parser_message` at (`line`, `column`) in the profile whose lines
/// are `lines`: a tab in the indentation (YAML indents with spaces only), an alias whose anchor
/// is not defined above it, or a line indented unlike the keys around it. Anything else keeps
/// the parser's message, at its position, with a general fix.
YamlSyntaxCause ExplainYamlSyntaxError(const std::vector<std::string>& lines, int line, int column,
                                       const std::string& parser_message);

}  // namespace hkim
