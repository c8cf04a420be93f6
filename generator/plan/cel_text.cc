// CEL literals of profile values (plan/cel_text.h).

#include "plan/cel_text.h"

namespace hkim {

std::string CelString(const std::string& text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string CelList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) out += (out.size() > 1 ? ", " : "") + CelString(item);
  return out + "]";
}

std::string CelMap(const std::map<std::string, std::string>& entries) {
  std::string out = "{";
  for (const auto& [key, value] : entries)
    out += (out.size() > 1 ? ", " : "") + CelString(key) + ": " + CelString(value);
  return out + "}";
}

}  // namespace hkim
