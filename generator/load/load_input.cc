// The load stage's guards on raw input (load/load.h): file size, encoding, number range, and the
// quoting of user text in messages. They run before (or beside) yaml-cpp so that no bytes, however
// hostile, reach it or a diagnostic unchecked.

#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/input_limits.h"
#include "load/load.h"
#include "load/load_input.h"
#include "schema/profile_schema.h"
#include "support/utf8.h"

namespace hkim {

namespace {

std::string Hex(unsigned value) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string text;
  for (int shift = 12; shift >= 0; shift -= 4) text += kDigits[(value >> shift) & 0xf];
  return text;
}

}  // namespace

bool LooksNumeric(const std::string& text) {
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') {
      return false;
    }
  }
  return digit;
}

namespace {

std::string Printable(const std::string& text, std::size_t max_shown) {
  std::string shown;
  for (std::size_t i = 0; i < text.size() && shown.size() < max_shown;) {
    char32_t code = 0;
    const std::size_t length = DecodeUtf8(text, i, &code);
    if (length == 0 || code < 0x20 || IsForbiddenCharacter(code)) {
      shown += '?';
      i += length == 0 ? 1 : length;
    } else {
      shown.append(text, i, length);
      i += length;
    }
  }
  return shown;
}

}  // namespace

std::string ShortText(const std::string& text) {
  const std::string shown = Printable(text, 40);
  return "'" + shown + (shown.size() < text.size() ? "...'" : "'");
}

std::string PrintableText(const std::string& text) { return Printable(text, text.size()); }

std::string OutOfRangeFix(const std::string& json_pointer) {
  DiagnosticSink ignored;
  const ProfileSchema* schema = ProfileSchema::Embedded(ignored);
  const nlohmann::json* field = schema ? schema->SchemaFor(json_pointer) : nullptr;
  const nlohmann::json* minimum = SchemaKeyword(field, "minimum");
  const nlohmann::json* maximum = SchemaKeyword(field, "maximum");
  if (minimum && maximum) {
    return "use a value from " + minimum->dump() + " to " + maximum->dump() +
           " (the range this field allows)";
  }
  if (minimum) return "use a value of at least " + minimum->dump() + " (this field's minimum)";
  if (maximum) return "use a value of at most " + maximum->dump() + " (this field's maximum)";
  return "write an ordinary number (or quote the text if it is not a number)";
}

std::optional<EncodingError> FindEncodingError(const std::string& text) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const std::size_t length = DecodeUtf8(text, i, &code);
    if (length == 0) {
      return EncodingError{line, column,
                           "byte 0x" + Hex(static_cast<unsigned char>(text[i])).substr(2) +
                               " is not valid UTF-8"};
    }
    if (IsForbiddenCharacter(code)) {
      return EncodingError{line, column,
                           code == 0 ? std::string("a NUL byte (U+0000)")
                                     : "the control character U+" + Hex(code)};
    }
    if (code == '\n') {
      ++line;
      column = 1;
    } else {
      column += static_cast<int>(length);  // byte columns, as yaml-cpp counts
    }
    i += length;
  }
  return std::nullopt;
}


}  // namespace hkim
