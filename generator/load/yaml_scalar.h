#pragma once

// How YAML readers type a plain (unquoted) scalar, by scanning its characters once. load/load.cc types
// the profile's plain scalars with ResolvePlainScalar; render/render.cc asks LooksLikeYamlNumber and
// LooksLikeYamlTimestamp whether a string must be quoted to stay a string. Both ran std::regex on
// every scalar before, which dominated the time of a large render; these scanners accept exactly
// the languages of those expressions (tests/generator/load/yaml_scalar_test.cc compares them).

#include <nlohmann/json.hpp>
#include <string_view>

namespace hkim {

/// The JSON value of a plain scalar under YAML 1.2's core schema, except that only true/false
/// (any case form the spec lists) are booleans: "", "~", "null" → null; [-+]?[0-9]+ → integer
/// (negative: int64, else uint64; too large for 64 bits: a double); 0o[0-7]+ and 0x[0-9a-fA-F]+ →
/// unsigned; [-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)? → double; anything else, including
/// .inf/.nan (JSON has neither), stays the string itself so the schema reports a type error where
/// a number was expected. Throws NumberOutOfRange (load/load_input.h) for a number no double holds
/// (1e999), a 0o/0x number beyond 64 bits, and a numeric text longer than kMaxNumberChars.
nlohmann::json ResolvePlainScalar(std::string_view text);

/// True when `text` is a decimal number of YAML 1.2's core schema: [-+]?[0-9]+ or the float form
/// above (no 0o/0x, no .inf/.nan). `--set` values (layering/set.cc) take these as numbers.
bool IsDecimalNumber(std::string_view text);

/// True when some YAML 1.1 or 1.2 reader (kubectl, Argo CD, yaml-cpp) would read `text`, written
/// plain, as a number: signs, 0b/0o/0x forms, '_' separators, sexagesimal (1:20), exponents, .5.
bool LooksLikeYamlNumber(std::string_view text);

/// True when a YAML 1.1 reader would read `text`, written plain, as a timestamp
/// (yyyy-m-d, optionally followed by T, t, space or tab and anything on the same line).
bool LooksLikeYamlTimestamp(std::string_view text);

}  // namespace hkim
