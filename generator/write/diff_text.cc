#include "write/diff_text.h"

#include <yaml-cpp/yaml.h>

#include <sstream>

namespace hkim {

std::string ExpandQuotedMultilineValues(const std::string& yaml_text) {
  std::istringstream in(yaml_text);
  std::string out, line;
  while (std::getline(in, line)) {
    const size_t indent = line.find_first_not_of(' ');
    const size_t colon = line.find(": \"", indent == std::string::npos ? 0 : indent);
    // Only a line that is `key: "...\n..."` whole: the escape \n marks a multi-line value.
    if (indent == std::string::npos || colon == std::string::npos || line.back() != '"' ||
        line.find("\\n", colon) == std::string::npos || line[indent] == '-') {
      out += line + "\n";
      continue;
    }
    std::string value;
    try {
      value = YAML::Load("v: " + line.substr(colon + 2))["v"].as<std::string>();
    } catch (const YAML::Exception&) {
      out += line + "\n";  // not one scalar after all: shown as it is
      continue;
    }
    out += line.substr(0, colon + 1) + " |\n";
    std::istringstream lines(value);
    std::string part;
    while (std::getline(lines, part)) out += std::string(indent + 2, ' ') + part + "\n";
  }
  return out;
}

}  // namespace hkim
