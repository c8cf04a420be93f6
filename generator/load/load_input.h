#pragma once

// The load stage's guards on raw input (load/load_input.cc): encoding, number range, and the quoting of
// user text in messages. The limits themselves are in support/input_limits.h.

#include <cstddef>
#include <optional>
#include <string>

namespace hkim {

/// Thrown by number parsing for a numeric text that no double holds (1e999).
struct NumberOutOfRange {
  std::string text;
};

/// Numeric texts longer than this are out of range: no real number needs more (a double has 17
/// significant digits and a 3-digit exponent).
inline constexpr std::size_t kMaxNumberChars = 256;

/// Whether `text` is made of number characters only (digits, sign, '.', exponent) with a digit.
bool LooksNumeric(const std::string& text);

/// `text` for a message: single-quoted, cut after 40 bytes with its length, control and invalid
/// bytes as visible escapes (UntrustedText).
std::string ShortText(const std::string& text);

/// `text` with control and invalid bytes as visible escapes, cut with its length when long
/// (UntrustedText): safe to print and to put in JSON.
std::string PrintableText(const std::string& text);

/// The fix for an out-of-range number at `json_pointer`: the schema's allowed range there.
std::string OutOfRangeFix(const std::string& json_pointer);

/// Where `text` first breaks the encoding a profile must have (UTF-8 without NUL or control
/// characters other than tab, LF and CR): 1-based line and byte column, and what is wrong.
struct EncodingError {
  int line = 0;
  int column = 0;
  std::string what;
};
std::optional<EncodingError> FindEncodingError(const std::string& text);

}  // namespace hkim
