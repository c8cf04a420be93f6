#pragma once
// Text that leaves hkim-health (a Node annotation, the termination message, a summary line)
// comes partly from outside (a peer's report, a child's output, a node name): cut it to a byte
// limit on a UTF-8 boundary, and write JSON so that no byte can make the dump throw.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim::health {

/// At most `max_bytes` of `text`, never ending inside a UTF-8 sequence: a multi-byte character
/// that does not fit is left out whole. Bytes that are not UTF-8 are kept as they are (the
/// JSON writer replaces them).
std::string CutUtf8(const std::string& text, std::size_t max_bytes);

/// `value` as compact JSON; invalid UTF-8 in any string becomes U+FFFD instead of throwing.
std::string DumpJson(const nlohmann::json& value);

/// The non-empty items of a comma-separated list (`a,,b` is a and b): how the health settings
/// in the environment list their entries.
std::vector<std::string> CommaItems(const std::string& text);

}  // namespace hkim::health
