#pragma once

// CEL literals of profile values, for the expressions the plan writes (the admission fence,
// NVSentinel's policies): no profile value can end a literal or change an expression.

#include <map>
#include <string>
#include <vector>

namespace hkim {

/// A CEL string literal: single-quoted, backslash, quote and control bytes escaped.
std::string CelString(const std::string& text);
/// A CEL list of string literals, in the given order.
std::string CelList(const std::vector<std::string>& items);
/// A CEL map of string literals, in key order.
std::string CelMap(const std::map<std::string, std::string>& entries);

}  // namespace hkim
