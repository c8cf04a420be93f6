#pragma once

// The one sanitiser for text that came from outside hkimgen (a profile, a cluster export, the
// environment, the command line) on its way to a terminal, a message, a comment in a generated
// file or a table. An object name such as "node\x1b[2J" or "a\rerror: forged" must reach the
// reader as visible escapes, never as bytes the terminal acts on, and a 100 MB label value must
// reach the reader as a few hundred bytes and its length.

#include <cstddef>
#include <string>
#include <string_view>

namespace hkim {

/// Most bytes of one outside value quoted in a message (the rest is cut, its length said).
inline constexpr std::size_t kMaxQuotedValueBytes = 200;

/// Most bytes of one formatted field of a diagnostic (message, fix, path, file name): a message
/// quoting several values stays a few KiB whatever the input.
inline constexpr std::size_t kMaxMessageBytes = 2048;

/// `text` with every character a terminal could act on written as a visible escape: C0
/// controls (`\n`, `\r`, `\t`, `\x1b`, ...), DEL (`\x7f`), C1 controls (`\u{9b}`), the Unicode
/// line separators and bidirectional overrides (`\u{202e}`), and each byte that is not UTF-8
/// (`\xff`). Printable text, backslashes included, is kept as it is (a message's own text
/// passes unchanged). When `keep_newlines`, '\n' stays a line break (a multi-line comment whose
/// lines hkimgen wrote).
std::string EscapeControls(std::string_view text, bool keep_newlines = false);

/// `text` escaped and, when longer than `max_bytes`, cut at a character boundary with "…" and
/// its length: `AAAA… (100 MiB)`.
std::string UntrustedText(std::string_view text, std::size_t max_bytes = kMaxQuotedValueBytes);

/// `text` for a message, in double quotes (`"` and `\` inside escaped, so the quotes are
/// unambiguous), escaped and cut as UntrustedText: `"AAAA…" (100 MiB)`.
std::string QuoteUntrusted(std::string_view text, std::size_t max_bytes = kMaxQuotedValueBytes);

/// A byte count as people read it: "812 bytes", "4.0 KiB", "100 MiB".
std::string ByteSize(std::size_t bytes);

}  // namespace hkim
