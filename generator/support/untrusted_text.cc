#include "support/untrusted_text.h"

#include <cstdio>

#include "support/utf8.h"

namespace hkim {
namespace {

// Code points a terminal or an editor acts on or that change how the line reads: C0, DEL, C1,
// the line and paragraph separators, and the bidirectional controls ("Trojan Source").
bool IsActiveCharacter(char32_t code) {
  return code < 0x20 || code == 0x7f || (code >= 0x80 && code <= 0x9f) || code == 0x2028 ||
         code == 0x2029 || (code >= 0x200e && code <= 0x200f) ||
         (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) ||
         code == 0xfeff;
}

void AppendEscape(std::string& out, char32_t code) {
  switch (code) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      break;
  }
  char buffer[16];
  if (code < 0x80) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned>(code));
  } else {
    std::snprintf(buffer, sizeof buffer, "\\u{%x}", static_cast<unsigned>(code));
  }
  out += buffer;
}

// Escapes text[from, ...) into `out` until `out` would pass `budget` bytes; returns where it
// stopped (text.size() when all of it fit).
std::size_t EscapeInto(std::string_view text, bool keep_newlines, bool quote, std::size_t budget,
                       std::string& out) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t before = out.size();
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && !(quote && (byte == '"' || byte == '\\'))) {
      // Printable ASCII, most of any text, as it is (what the decoding below gives it).
      if (before + 1 > budget) return i;
      out += static_cast<char>(byte);
      ++i;
      continue;
    }
    char32_t code = 0;
    std::size_t length = DecodeUtf8(text, i, &code);
    if (length == 0) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(text[i]));
      out += buffer;
      length = 1;
    } else if (code == '\n' && keep_newlines) {
      out += '\n';
    } else if (IsActiveCharacter(code)) {
      AppendEscape(out, code);
    } else if (quote && (code == '"' || code == '\\')) {
      out += '\\';
      out += static_cast<char>(code);
    } else {
      out.append(text.substr(i, length));
    }
    if (out.size() > budget) {
      out.resize(before);
      return i;
    }
    i += length;
  }
  return i;
}

std::string Cut(std::string_view text, std::size_t max_bytes, bool quote) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 16);
  // Only the part that can be shown is decoded: a 100 MB value costs max_bytes of work.
  const std::size_t stop = EscapeInto(text.substr(0, std::min(text.size(), max_bytes + 4)),
                                      false, quote, max_bytes, out);
  if (stop >= text.size()) return quote ? "\"" + out + "\"" : out;
  return (quote ? "\"" + out + "…\"" : out + "…") + " (" + ByteSize(text.size()) + ")";
}

}  // namespace

std::string EscapeControls(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  EscapeInto(text, keep_newlines, false, std::string::npos, out);
  return out;
}

std::string UntrustedText(std::string_view text, std::size_t max_bytes) {
  return Cut(text, max_bytes, false);
}

std::string QuoteUntrusted(std::string_view text, std::size_t max_bytes) {
  return Cut(text, max_bytes, true);
}

std::string ByteSize(std::size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  // Whole numbers print without a decimal ("100 MiB"); others with one ("4.5 KiB").
  if (value == static_cast<double>(static_cast<long long>(value))) {
    std::snprintf(buffer, sizeof buffer, "%lld %s", static_cast<long long>(value), units[unit]);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
  }
  return buffer;
}

}  // namespace hkim
