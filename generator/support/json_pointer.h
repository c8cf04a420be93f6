#pragma once

// JSON pointers (RFC 6901) name every place in a profile: diagnostics, layering, the schema and
// explain all speak them.

#include <string>
#include <vector>

namespace hkim {

/// Escapes one JSON-pointer reference token (RFC 6901: "~" -> "~0", "/" -> "~1"), so that a
/// mapping key can be appended to a pointer as "/" + token.
std::string EscapeJsonPointerToken(const std::string& token);

/// The unescaped reference tokens of a JSON pointer ("/a/b~1c" -> {"a", "b/c"}; "" -> {}).
std::vector<std::string> SplitJsonPointer(const std::string& pointer);

}  // namespace hkim
