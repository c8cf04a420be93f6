#pragma once

// UTF-8 decoding for the guards on raw input (load/load_input.cc) and for showing source lines in
// diagnostics (support/diagnostics_format.cc), which must never echo invalid or control bytes.

#include <cstddef>
#include <string>
#include <string_view>

namespace hkim {

/// Length of the UTF-8 sequence at byte `i` of `text` and its code point in `*code`; 0 when the
/// bytes there are not valid UTF-8 (bad lead, truncated, overlong, surrogate, beyond U+10FFFF).
inline std::size_t DecodeUtf8(std::string_view text, std::size_t i, char32_t* code) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  const std::size_t length = c < 0x80 ? 1
                             : (c >> 5) == 6  ? 2
                             : (c >> 4) == 14 ? 3
                             : (c >> 3) == 30 ? 4
                                              : 0;
  if (length == 0 || i + length > text.size()) return 0;
  char32_t value = length == 1 ? c : c & (0x7f >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char next = static_cast<unsigned char>(text[i + k]);
    if ((next >> 6) != 2) return 0;
    value = (value << 6) | (next & 0x3f);
  }
  if ((length == 2 && value < 0x80) || (length == 3 && value < 0x800) ||
      (length == 4 && value < 0x10000) || (value >= 0xd800 && value <= 0xdfff) ||
      value > 0x10ffff) {
    return 0;
  }
  *code = value;
  return length;
}

/// Whether all of `text` is valid UTF-8 (ASCII text is checked a byte at a time, nothing more).
inline bool IsValidUtf8(const std::string& text) {
  char32_t code = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = DecodeUtf8(text, i, &code);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

/// `text` with every byte that does not begin a valid UTF-8 sequence read as the Latin-1
/// character of that value and encoded in UTF-8 (0x85 → C2 85); valid sequences are kept.
inline std::string Latin1BytesAsUtf8(const std::string& text) {
  std::string out;
  char32_t code = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = DecodeUtf8(text, i, &code);
    if (length > 0) {
      out.append(text, i, length);
      i += length;
      continue;
    }
    const unsigned char byte = static_cast<unsigned char>(text[i++]);
    out += static_cast<char>(0xc0 | (byte >> 6));
    out += static_cast<char>(0x80 | (byte & 0x3f));
  }
  return out;
}

/// Whether a decoded code point may not appear in a profile (or be echoed): C0 controls other
/// than tab, LF and CR; DEL; U+FFFE and U+FFFF.
inline bool IsForbiddenCharacter(char32_t code) {
  return (code < 0x20 && code != '\t' && code != '\n' && code != '\r') || code == 0x7f ||
         code == 0xfffe || code == 0xffff;
}

}  // namespace hkim
