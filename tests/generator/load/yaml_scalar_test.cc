// The scanners in load/yaml_scalar.h replaced std::regex on every scalar; these tests hold them to the
// exact languages of the expressions they replaced (kept here as the oracle), over hand-picked
// edge cases and every short string over the characters that matter.
#include "load/yaml_scalar.h"

#include "load/load_input.h"
#include "test_files.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace hkim {
namespace {

using test_files::AllStrings;

bool RegexNumber(const std::string& s) {
  static const std::regex number(
      R"([-+]?(0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(:[0-5]?[0-9])*(\.[0-9_]*)?)"
      R"(([eE][-+]?[0-9]+)?|\.[0-9_]+([eE][-+]?[0-9]+)?))");
  return std::regex_match(s, number);
}

bool RegexTimestamp(const std::string& s) {
  static const std::regex timestamp(R"([0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt \t].*)?)");
  return std::regex_match(s, timestamp);
}

/// Every string of length 1..max over `alphabet` (the scanners' decisions turn on these bytes).
TEST(YamlScalar, NumberScannerAcceptsExactlyWhatTheOldExpressionDid) {
  for (const std::string& s : AllStrings("019:._eE+-xob", 4)) {
    ASSERT_EQ(LooksLikeYamlNumber(s), RegexNumber(s)) << "'" << s << "'";
  }
  for (const std::string s :
       {"1:20", "1:60", "190:20:30.15", "0x_1F", "0b1010", "0o17", "017", "08", "1_000",
        "1e3", "1e", "1e+", ".5", ".", "-.5e-3", "+12", "3.", "1:5:", "24.05-py3", "9000"}) {
    EXPECT_EQ(LooksLikeYamlNumber(s), RegexNumber(s)) << "'" << s << "'";
  }
}

TEST(YamlScalar, TimestampScannerAcceptsExactlyWhatTheOldExpressionDid) {
  for (const std::string& s : AllStrings("0-T ", 8)) {
    ASSERT_EQ(LooksLikeYamlTimestamp(s), RegexTimestamp(s)) << "'" << s << "'";
  }
  for (const std::string s : {"2026-03-26", "2026-3-2", "2026-03-266", "2026-03-26T10:00:00Z",
                              "2026-03-26 x", "2026-03-26\tx", "2026-03-26 a\nb", "202-03-26",
                              "2026-03-26x", "2026-003-26"}) {
    EXPECT_EQ(LooksLikeYamlTimestamp(s), RegexTimestamp(s)) << "'" << s << "'";
  }
}

// `--set` typed its values with these two expressions before IsDecimalNumber (layering/set.cc).
bool RegexSetNumber(const std::string& s) {
  static const std::regex integer("[-+]?[0-9]+");
  static const std::regex real(
      "[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+");
  return std::regex_match(s, integer) || std::regex_match(s, real);
}

TEST(YamlScalar, DecimalNumberScannerAcceptsExactlyWhatSetsExpressionsDid) {
  for (const std::string& s : AllStrings("019._eEx+-o", 4)) {
    ASSERT_EQ(IsDecimalNumber(s), RegexSetNumber(s)) << "'" << s << "'";
  }
  for (const std::string s : {"41", "-7", "+7", "4200", "1e3", "1E-3", ".5", "5.", "-.5e+3",
                              "0x10", "0o17", "1_000", "1.2.3", "10.0.114.0/24", "", "e3", "."}) {
    EXPECT_EQ(IsDecimalNumber(s), RegexSetNumber(s)) << "'" << s << "'";
  }
}

TEST(YamlScalar, ResolvesPlainScalarsLikeTheYaml12CoreSchema) {
  EXPECT_TRUE(ResolvePlainScalar("").is_null());
  EXPECT_TRUE(ResolvePlainScalar("~").is_null());
  EXPECT_TRUE(ResolvePlainScalar("NULL").is_null());
  EXPECT_EQ(ResolvePlainScalar("True"), true);
  EXPECT_EQ(ResolvePlainScalar("FALSE"), false);
  EXPECT_EQ(ResolvePlainScalar("yes"), "yes");  // YAML 1.2: not a boolean
  EXPECT_EQ(ResolvePlainScalar("9000"), 9000u);
  EXPECT_TRUE(ResolvePlainScalar("9000").is_number_unsigned());
  EXPECT_EQ(ResolvePlainScalar("+7"), 7u);
  EXPECT_EQ(ResolvePlainScalar("-7"), -7);
  EXPECT_TRUE(ResolvePlainScalar("-7").is_number_integer());
  EXPECT_EQ(ResolvePlainScalar("0o17"), 15u);
  EXPECT_EQ(ResolvePlainScalar("0x1F"), 31u);
  EXPECT_EQ(ResolvePlainScalar("1.5"), 1.5);
  EXPECT_EQ(ResolvePlainScalar(".5"), 0.5);
  EXPECT_EQ(ResolvePlainScalar("+2e3"), 2000.0);
  EXPECT_EQ(ResolvePlainScalar("3."), 3.0);
  EXPECT_EQ(ResolvePlainScalar("18446744073709551616"), 18446744073709551616.0);  // 2^64
  EXPECT_EQ(ResolvePlainScalar("0x"), "0x");
  EXPECT_EQ(ResolvePlainScalar("1_000"), "1_000");  // YAML 1.2 has no separators
  EXPECT_EQ(ResolvePlainScalar("24.05-py3"), "24.05-py3");
}

TEST(YamlScalar, KeepsInfinitiesAndNanAsStringsForTheSchemaToReport) {
  EXPECT_EQ(ResolvePlainScalar(".inf"), ".inf");
  EXPECT_EQ(ResolvePlainScalar("-.Inf"), "-.Inf");
  EXPECT_EQ(ResolvePlainScalar(".NaN"), ".NaN");
}

TEST(YamlScalar, NumbersNoDoubleHoldsAreOutOfRange) {
  EXPECT_THROW(ResolvePlainScalar("1e999"), NumberOutOfRange);
  EXPECT_THROW(ResolvePlainScalar("-1e999"), NumberOutOfRange);
  EXPECT_THROW(ResolvePlainScalar("0x1ffffffffffffffff"), NumberOutOfRange);
  EXPECT_THROW(ResolvePlainScalar("0o7777777777777777777777777"), NumberOutOfRange);
  EXPECT_THROW(ResolvePlainScalar(std::string(kMaxNumberChars + 1, '9')), NumberOutOfRange);
  EXPECT_EQ(ResolvePlainScalar(std::string(kMaxNumberChars + 1, 'a')),
            std::string(kMaxNumberChars + 1, 'a'));
}

}  // namespace
}  // namespace hkim
