#include "support/json_pointer.h"

#include <nlohmann/json.hpp>

namespace hkim {

std::string EscapeJsonPointerToken(const std::string& token) {
  // nlohmann's json_pointer escapes a token appended with operator/.
  return (nlohmann::json::json_pointer() / token).to_string().substr(1);
}

std::vector<std::string> SplitJsonPointer(const std::string& pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  size_t start = 1;
  while (true) {
    size_t slash = pointer.find('/', start);
    std::string raw =
        pointer.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size()) {
        token += raw[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        token += raw[i];
      }
    }
    tokens.push_back(token);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return tokens;
}

}  // namespace hkim
