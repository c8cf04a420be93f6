#include "common/finding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hkim::wrapper {
namespace {

using ::testing::HasSubstr;

TEST(Printable, EscapesControlBytesAndBytesThatAreNotUtf8AndKeepsValidUtf8) {
  EXPECT_EQ(Printable("mlx5_6"), "mlx5_6");
  EXPECT_EQ(Printable("a\nb\x1b[31m"), "a\\x0ab\\x1b[31m");
  EXPECT_EQ(Printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(Printable("caf\xc3\xa9"), "caf\xc3\xa9");  // é stays
  EXPECT_EQ(Printable("\xc3"), "\\xc3");              // truncated sequence
  EXPECT_EQ(Printable(std::string("a\0b", 3)), "a\\x00b");
}

TEST(FormatFinding, NeverEchoesRawBytesFromTheEnvironmentOrSysfs) {
  const std::string line = FormatFinding({Severity::kWarning, "env PCIDEVICE_\xff", "env.x",
                                          "value \"\xfe\x07\" is bad\nsecond line", "fix \x1b"});
  EXPECT_EQ(line,
            "env PCIDEVICE_\\xff: warning: value \"\\xfe\\x07\" is bad\\x0asecond line [env.x]\n"
            "  fix: fix \\x1b");
}

TEST(LimitFindings, KeepsTheFirstOfEachRuleAndCountsTheRestInOneFinding) {
  Findings findings;
  for (int i = 0; i < 1000; ++i)
    findings.push_back({Severity::kWarning, "env X", "env.bad-pci-address", std::to_string(i), ""});
  findings.push_back({Severity::kNote, "", "detect.not-allocated", "one", ""});
  for (int i = 0; i < 20; ++i)
    findings.push_back({i == 19 ? Severity::kError : Severity::kWarning, "/sys/x",
                        "sysfs.symlink-loop", "loop", ""});
  LimitFindings(&findings, 16);
  ASSERT_EQ(findings.size(), 16u + 1 + 1 + 16 + 1);
  EXPECT_EQ(findings[15].message, "15");
  EXPECT_EQ(findings[16].rule, "env.bad-pci-address");
  EXPECT_THAT(findings[16].message, HasSubstr("984 more env.bad-pci-address"));
  EXPECT_EQ(findings[17].rule, "detect.not-allocated");
  EXPECT_EQ(findings[34].rule, "sysfs.symlink-loop");
  EXPECT_THAT(findings[34].message, HasSubstr("4 more"));
  EXPECT_EQ(findings[34].severity, Severity::kError);  // --check still fails on it
}

TEST(LimitFindings, LeavesFewFindingsAlone) {
  Findings findings = {{Severity::kNote, "a", "r", "m", "f"}, {Severity::kNote, "b", "r", "m", ""}};
  LimitFindings(&findings, 16);
  EXPECT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[1].where, "b");
}

}  // namespace
}  // namespace hkim::wrapper
