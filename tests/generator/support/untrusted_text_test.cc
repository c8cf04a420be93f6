// The one sanitiser for outside text (support/untrusted_text.h): what a terminal would act on is
// shown as escapes, long values are cut with their length, plain text passes unchanged.

#include "support/untrusted_text.h"

#include <gtest/gtest.h>

#include "support/diagnostics_format.h"

namespace hkim {
namespace {

TEST(UntrustedText, PlainTextAndBackslashesPassUnchanged) {
  EXPECT_EQ(UntrustedText("gpu-node-7.example.com"), "gpu-node-7.example.com");
  EXPECT_EQ(UntrustedText("^[a-z]\\d+$ ü 日本"), "^[a-z]\\d+$ ü 日本");
}

TEST(UntrustedText, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(UntrustedText("a\x1b[2Jb"), "a\\x1b[2Jb");                      // clear screen
  EXPECT_EQ(UntrustedText("n\rerror: forged"), "n\\rerror: forged");        // overwrites a line
  EXPECT_EQ(UntrustedText("x\ny\tz"), "x\\ny\\tz");
  EXPECT_EQ(UntrustedText(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(UntrustedText("\x1b]0;title\x07"), "\\x1b]0;title\\x07");       // OSC window title
  EXPECT_EQ(UntrustedText("del\x7f"), "del\\x7f");
  EXPECT_EQ(UntrustedText("c1\xc2\x9b" "31m"), "c1\\u{9b}31m");            // C1 CSI
  EXPECT_EQ(UntrustedText("rtl\xe2\x80\xae" "txt"), "rtl\\u{202e}txt");     // bidi override
  EXPECT_EQ(UntrustedText("bad\xff"), "bad\\xff");                          // not UTF-8
}

TEST(UntrustedText, LongValuesAreCutWithTheirLength) {
  const std::string value(100 * 1024 * 1024, 'A');
  const std::string shown = QuoteUntrusted(value, 8);
  EXPECT_EQ(shown, "\"AAAAAAAA…\" (100 MiB)");
  EXPECT_EQ(UntrustedText(std::string(5000, 'b'), 4), "bbbb… (4.9 KiB)");
  // An escape is never cut in half, nor a UTF-8 character.
  EXPECT_EQ(UntrustedText("ab\x1b" "cdef", 4), "ab… (7 bytes)");
  EXPECT_EQ(UntrustedText("aéééé", 4), "aé… (9 bytes)");
}

TEST(UntrustedText, QuotingEscapesQuotesAndBackslashes) {
  EXPECT_EQ(QuoteUntrusted("say \"hi\" \\ bye"), "\"say \\\"hi\\\" \\\\ bye\"");
}

TEST(UntrustedText, KeepsNewlinesOnlyWhenAsked) {
  EXPECT_EQ(EscapeControls("a\nb\rc", true), "a\nb\\rc");
  EXPECT_EQ(EscapeControls("a\nb", false), "a\\nb");
}

TEST(UntrustedText, ByteSizesReadAsPeopleSayThem) {
  EXPECT_EQ(ByteSize(1), "1 byte");
  EXPECT_EQ(ByteSize(812), "812 bytes");
  EXPECT_EQ(ByteSize(4096), "4 KiB");
  EXPECT_EQ(ByteSize(1536), "1.5 KiB");
  EXPECT_EQ(ByteSize(512u * 1024 * 1024), "512 MiB");
}

// The formatter is the last guard: a message that quotes an object name whole cannot forge a
// line or drive the terminal, and no diagnostic grows with its input.
TEST(UntrustedText, FormattedDiagnosticsCarryNoControlCharacterAndStaySmall) {
  Diagnostic d{Severity::kWarning, SourceLocation{"export\x1b[31m.json", 3, 1}, "",
               "discover.selector",
               "Node a\rerror: everything is fine " + std::string(1 << 20, 'x'),
               "fix \x1b]0;pwned\x07 it"};
  const std::string text = FormatDiagnostic(d, {});
  for (const char c : text) {
    if (c != '\n') EXPECT_GE(static_cast<unsigned char>(c), 0x20) << text.substr(0, 200);
  }
  EXPECT_LT(text.size(), 8u * 1024);
  EXPECT_NE(text.find("export\\x1b[31m.json:3:1: warning: Node a\\rerror: everything"),
            std::string::npos);
  EXPECT_NE(text.find("… (1.0 MiB)"), std::string::npos);
  EXPECT_NE(text.find("  fix: fix \\x1b]0;pwned\\x07 it\n"), std::string::npos);
  EXPECT_LT(DiagnosticToJson(d).dump().size(), 8u * 1024);
}

}  // namespace
}  // namespace hkim
