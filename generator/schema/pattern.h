#pragma once

// The schema's `pattern` keyword, matched with PCRE2 instead of valijson's std::regex.
//
// Why: libstdc++ compiles a std::regex slowly (every bracket expression builds a 256-entry table
// through the locale), and valijson compiles each pattern anew in every process, a noticeable share
// of a small render. PCRE2 compiles the same patterns many times faster. The patterns keep
// ECMAScript's meaning (JSON Schema's dialect): they use only what both dialects read alike, `$`
// matches only at the very end (PCRE2_DOLLAR_ENDONLY) and text is matched byte by byte, as
// std::regex does; tests/generator/schema/schema_pattern_test.cc compares the two on every pattern
// of the schema.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "schema/keyword_rename.h"

namespace valijson {
class SchemaParser;
}

namespace hkim {

/// The keyword UsePcre2Patterns() teaches a parser, which `pattern` is renamed to.
inline constexpr const char* kPcre2PatternKeyword = "x-hkimgen-pcre2-pattern";

/// One compiled pattern (shared by copies; matching is thread-safe).
class SchemaPattern {
 public:
  /// Compiles `pattern`; throws std::runtime_error naming it and PCRE2's reason when it is not
  /// a valid regular expression.
  explicit SchemaPattern(const std::string& pattern);

  /// Whether the pattern matches somewhere in `text` (JSON Schema's `pattern` is unanchored).
  bool Search(std::string_view text) const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> compiled_;
};

/// While it lives, every `pattern` keyword of `schema` is renamed to the one that
/// UsePcre2Patterns() teaches a parser (data under enum, const, default and examples is left as
/// it is); destroying it renames them back.
class Pcre2PatternKeywords : public RenamedSchemaKeyword {
 public:
  explicit Pcre2PatternKeywords(nlohmann::json& schema);
};

/// Makes `parser` read the renamed keyword into constraints that report a mismatch exactly as
/// valijson's own `pattern` does ("Failed to match regex specified by 'pattern' constraint.").
void UsePcre2Patterns(valijson::SchemaParser& parser);

}  // namespace hkim
