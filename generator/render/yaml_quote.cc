#include "render/render.h"

// How a string value is written as one YAML scalar: plain where every reader (YAML 1.1 and 1.2)
// takes it back as the same string, double-quoted with escapes otherwise.

#include <set>
#include <string_view>

#include "load/yaml_scalar.h"

namespace hkim {

namespace {

/// Words that YAML 1.1 readers (kubectl, Argo CD) or 1.2 readers take as non-strings.
bool IsSpecialWord(std::string_view s) {
  static const std::set<std::string_view> kWords = {
      "y",     "Y",     "yes",   "Yes",   "YES",   "n",     "N",    "no",   "No",   "NO",
      "true",  "True",  "TRUE",  "false", "False", "FALSE", "on",   "On",   "ON",   "off",
      "Off",   "OFF",   "null",  "Null",  "NULL",  "~",     ".inf", ".Inf", ".INF", "-.inf",
      "-.Inf", "-.INF", "+.inf", ".nan",  ".NaN",  ".NAN",  "=",    "<<"};
  return kWords.count(s) > 0;
}

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  if (IsSpecialWord(s) || LooksLikeYamlNumber(s) || LooksLikeYamlTimestamp(s)) return true;
  static constexpr std::string_view kLeadingIndicators = "-?:,[]{}#&*!|>'\"%@` \t";
  if (kLeadingIndicators.find(s.front()) != std::string_view::npos) return true;
  if (s.back() == ' ' || s.back() == '\t' || s.back() == ':') return true;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    // Control characters, and any non-ASCII: YAML 1.1 readers take NEL, LS and PS as line breaks.
    if (c < 0x20 || c >= 0x7f) return true;
    // Flow indicators would end the scalar inside [..] or {..}; ": " and " #" anywhere.
    if (c == ',' || c == '[' || c == ']' || c == '{' || c == '}') return true;
    if (c == ':' && i + 1 < s.size() && (s[i + 1] == ' ' || s[i + 1] == '\t')) return true;
    if (c == '#' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) return true;
  }
  return false;
}

}  // namespace

std::string YamlQuoteString(std::string_view value) {
  if (!NeedsQuotes(value)) return std::string(value);
  std::string out = "\"";
  for (size_t i = 0; i < value.size(); ++i) {
    const char ch = value[i];
    unsigned char c = static_cast<unsigned char>(ch);
    // Unicode line breaks would be folded inside double quotes: write them as escapes.
    if (value.compare(i, 2, "\xc2\x85") == 0) {
      out += "\\u0085";
      ++i;
      continue;
    }
    if (value.compare(i, 3, "\xe2\x80\xa8") == 0 || value.compare(i, 3, "\xe2\x80\xa9") == 0) {
      out += value[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static const char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace hkim
