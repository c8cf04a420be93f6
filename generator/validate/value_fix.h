#pragma once

// What to tell a user whose value has the wrong type or is not an address: the `fix:` says what
// to write ("write an integer, e.g. replicas: 1", "quote it: revision: \"1.10\"") and address
// errors say which part is wrong instead of printing the schema's regular expression. Used by
// the validate stage when it turns valijson's messages into diagnostics.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "schema/profile_schema.h"

namespace hkim {

/// `value` as JSON, cut to 60 characters ("...") for a message.
std::string DescribeValue(const nlohmann::json& value);

/// When `pattern` is the schema's `ipv4` or `cidr` pattern, rewrites `d` (rule network.address
/// or network.prefix, message naming the bad part, fix with an example); otherwise leaves it.
void ExplainAddress(const ProfileSchema& schema, const nlohmann::json* pattern,
                    const std::string& value, Diagnostic& d);

/// The fix for a value of the wrong type: `expected` are the schema's type names ("integer",
/// "string", "list", "mapping"...), `value` what was written (nullptr when unknown), `rule_schema`
/// the value's sub-schema (for its default, minimum or x-fix), `profile` for the text as written
/// at `d.location`. "" when there is nothing better than the schema's advice.
std::string TypeFix(const std::vector<std::string>& expected, const nlohmann::json* value,
                    const nlohmann::json* rule_schema, const LoadedProfile& profile,
                    const Diagnostic& d);

}  // namespace hkim
