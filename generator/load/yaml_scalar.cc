#include "load/yaml_scalar.h"

#include <charconv>
#include <cstdint>
#include <string>

#include "load/load_input.h"

namespace hkim {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsOctal(char c) { return c >= '0' && c <= '7'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// A cursor over one scalar; every Eat* advances past what it accepted and says how much.
class Scan {
 public:
  explicit Scan(std::string_view text) : text_(text) {}
  bool AtEnd() const { return at_ == text_.size(); }
  bool Peek(char c) const { return !AtEnd() && text_[at_] == c; }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++at_;
    return true;
  }
  bool EatOneOf(std::string_view chars) {
    if (AtEnd() || chars.find(text_[at_]) == std::string_view::npos) return false;
    ++at_;
    return true;
  }
  template <typename Pred>
  size_t EatWhile(Pred pred) {
    const size_t start = at_;
    while (!AtEnd() && pred(text_[at_])) ++at_;
    return at_ - start;
  }
  template <typename Pred>
  bool EatOne(Pred pred) {
    if (AtEnd() || !pred(text_[at_])) return false;
    ++at_;
    return true;
  }
  std::string_view Rest() const { return text_.substr(at_); }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

/// [eE][-+]?[0-9]+ when present; false when an exponent starts but has no digits.
bool EatExponent(Scan& s) {
  if (!s.EatOneOf("eE")) return true;
  s.EatOneOf("-+");
  return s.EatWhile(IsDigit) > 0;
}

/// The whole of `text` is `prefix` then at least one character that `pred` accepts.
template <typename Pred>
bool PrefixedDigits(std::string_view text, std::string_view prefix, Pred pred) {
  if (text.size() <= prefix.size() || text.substr(0, prefix.size()) != prefix) return false;
  Scan s(text.substr(prefix.size()));
  s.EatWhile(pred);
  return s.AtEnd();
}

bool IsDecimalInteger(std::string_view text) {  // [-+]?[0-9]+
  Scan s(text);
  s.EatOneOf("-+");
  return s.EatWhile(IsDigit) > 0 && s.AtEnd();
}

bool IsCoreFloat(std::string_view text) {  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  Scan s(text);
  s.EatOneOf("-+");
  if (s.Eat('.')) {
    if (s.EatWhile(IsDigit) == 0) return false;
  } else {
    if (s.EatWhile(IsDigit) == 0) return false;
    if (s.Eat('.')) s.EatWhile(IsDigit);
  }
  return EatExponent(s) && s.AtEnd();
}

template <typename T>
bool ParseInteger(std::string_view digits, int base, T& value) {
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value, base);
  return ec == std::errc() && ptr == end;
}

bool ParseDouble(std::string_view text, double& value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // from_chars takes no '+'
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

}  // namespace

nlohmann::json ResolvePlainScalar(std::string_view text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  // No real number needs more characters; the limit is the same as before the scanners, so the
  // same texts are out of range.
  if (text.size() > kMaxNumberChars) {
    if (LooksNumeric(std::string(text))) throw NumberOutOfRange{std::string(text)};
    return std::string(text);
  }
  if (IsDecimalInteger(text)) {
    if (text.front() == '-') {
      int64_t value = 0;
      if (ParseInteger(text, 10, value)) return value;
    } else {
      uint64_t value = 0;
      if (ParseInteger(text.substr(text.front() == '+' ? 1 : 0), 10, value)) return value;
    }
    double value = 0;  // too large for 64 bits: keep it a number, as JSON would
    if (ParseDouble(text, value)) return value;
    throw NumberOutOfRange{std::string(text)};
  }
  for (auto [prefix, base] : {std::pair{std::string_view("0o"), 8}, {"0x", 16}}) {
    if (!PrefixedDigits(text, prefix, base == 8 ? IsOctal : IsHex)) continue;
    uint64_t value = 0;
    if (ParseInteger(text.substr(2), base, value)) return value;
    // Octal and hex have no real form to fall back to: beyond 64 bits they are out of range.
    throw NumberOutOfRange{std::string(text)};
  }
  if (IsCoreFloat(text)) {
    double value = 0;
    if (ParseDouble(text, value)) return value;
    throw NumberOutOfRange{std::string(text)};  // beyond ±1.8e308
  }
  // .inf and .nan: JSON has no such numbers; the schema reports the string where a number was
  // expected.
  return std::string(text);
}

bool IsDecimalNumber(std::string_view text) {
  return IsDecimalInteger(text) || IsCoreFloat(text);
}

bool LooksLikeYamlNumber(std::string_view text) {
  Scan s(text);
  s.EatOneOf("-+");
  const std::string_view body = s.Rest();
  auto is_bin = [](char c) { return c == '0' || c == '1' || c == '_'; };
  auto is_oct = [](char c) { return IsOctal(c) || c == '_'; };
  auto is_hex = [](char c) { return IsHex(c) || c == '_'; };
  if (PrefixedDigits(body, "0b", is_bin) || PrefixedDigits(body, "0x", is_hex) ||
      PrefixedDigits(body, "0o", is_oct) || PrefixedDigits(body, "0", is_oct)) {
    return true;
  }
  auto is_digit_ = [](char c) { return IsDigit(c) || c == '_'; };
  if (s.Eat('.')) {  // \.[0-9_]+([eE][-+]?[0-9]+)?
    return s.EatWhile(is_digit_) > 0 && EatExponent(s) && s.AtEnd();
  }
  // [0-9][0-9_]*(:[0-5]?[0-9])*(\.[0-9_]*)?([eE][-+]?[0-9]+)?
  if (!s.EatOne(IsDigit)) return false;
  s.EatWhile(is_digit_);
  while (s.Eat(':')) {
    // Two digits when they form [0-5][0-9]: a digit left over could not match anything after.
    const std::string_view rest = s.Rest();
    if (rest.size() >= 2 && rest[0] >= '0' && rest[0] <= '5' && IsDigit(rest[1])) {
      s.EatOne(IsDigit);
      s.EatOne(IsDigit);
    } else if (!s.EatOne(IsDigit)) {
      return false;
    }
  }
  if (s.Eat('.')) s.EatWhile(is_digit_);
  return EatExponent(s) && s.AtEnd();
}

bool LooksLikeYamlTimestamp(std::string_view text) {
  // [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt \t].*)?  ('.' stops at line ends, as in ECMAScript)
  Scan s(text);
  for (int i = 0; i < 4; ++i) {
    if (!s.EatOne(IsDigit)) return false;
  }
  for (int part = 0; part < 2; ++part) {
    if (!s.Eat('-') || !s.EatOne(IsDigit)) return false;
    s.EatOne(IsDigit);
  }
  if (s.AtEnd()) return true;
  if (!s.EatOneOf("Tt \t")) return false;
  return s.Rest().find_first_of("\n\r") == std::string_view::npos;
}

}  // namespace hkim
