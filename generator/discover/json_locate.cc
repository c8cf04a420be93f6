#include "discover/json_locate.h"

#include <vector>

#include "support/json_pointer.h"

namespace hkim::discover {
namespace {

size_t SkipSpace(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

// Past the string starting at t[i] == '"'; its raw (still escaped) contents in `raw`.
size_t SkipString(std::string_view t, size_t i, std::string_view* raw = nullptr) {
  const size_t start = ++i;
  while (i < t.size() && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
  if (raw != nullptr) *raw = t.substr(start, std::min(i, t.size()) - start);
  return std::min(i + 1, t.size());
}

// Past one value (any nesting, counted, not recursed).
size_t SkipValue(std::string_view t, size_t i) {
  i = SkipSpace(t, i);
  if (i >= t.size()) return i;
  if (t[i] == '"') return SkipString(t, i);
  if (t[i] != '{' && t[i] != '[') {
    while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
    return i;
  }
  size_t depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      i = SkipString(t, i);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return i;
}

// The escapes a Kubernetes key may hold ("\/" and "\u002f" are rare but legal).
std::string Unescape(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 >= raw.size()) {
      out += raw[i];
      continue;
    }
    const char e = raw[++i];
    if (e == 'u' && i + 4 < raw.size()) {
      const unsigned code = std::stoul(std::string(raw.substr(i + 1, 4)), nullptr, 16);
      if (code < 0x80) out += static_cast<char>(code);
      i += 4;
    } else {
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
  }
  return out;
}

}  // namespace

size_t FindJsonPointer(std::string_view t, const std::string& pointer) {
  size_t i = SkipSpace(t, 0);
  for (const std::string& token : SplitJsonPointer(pointer)) {
    if (i >= t.size()) return std::string::npos;
    if (t[i] == '{') {
      i = SkipSpace(t, i + 1);
      bool found = false;
      while (i < t.size() && t[i] == '"') {
        std::string_view raw;
        i = SkipSpace(t, SkipString(t, i, &raw));
        if (i >= t.size() || t[i] != ':') return std::string::npos;
        i = SkipSpace(t, i + 1);
        const bool match = raw.find('\\') == std::string_view::npos ? raw == token
                                                                    : Unescape(raw) == token;
        if (match) {
          found = true;
          break;
        }
        i = SkipSpace(t, SkipValue(t, i));
        if (i < t.size() && t[i] == ',') i = SkipSpace(t, i + 1);
      }
      if (!found) return std::string::npos;
    } else if (t[i] == '[') {
      if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos ||
          token.size() > 9) {
        return std::string::npos;
      }
      size_t index = std::stoul(token);
      i = SkipSpace(t, i + 1);
      while (index > 0 && i < t.size() && t[i] != ']') {
        i = SkipSpace(t, SkipValue(t, i));
        if (i < t.size() && t[i] == ',') i = SkipSpace(t, i + 1);
        --index;
      }
      if (index > 0 || i >= t.size() || t[i] == ']') return std::string::npos;
    } else {
      return std::string::npos;
    }
  }
  return i < t.size() ? i : std::string::npos;
}

SourceLocation LocationOfOffset(const std::string& file, std::string_view text, size_t offset) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {file, line, static_cast<int>(offset - line_start) + 1};
}

}  // namespace hkim::discover
