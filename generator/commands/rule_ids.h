#pragma once

// Every rule id a diagnostic can carry, with its severity and what it means, for
// `hkimgen lint --list-rules`, `--allow RULE` and shell completion. The lint rules come from
// their table (lint/lint.h); the ids of the other stages (yaml, schema, layering, model, render,
// write, io, cli) are listed here. A test scans the sources for ids and fails when one is
// missing from this list.

#include <string>
#include <vector>

#include "support/rule_info.h"

namespace hkim {

/// Every rule: the stages' rules, then the lint rules, sorted by id.
const std::vector<RuleInfo>& AllRules();

/// The ids of AllRules(), sorted.
std::vector<std::string> AllRuleIds();

/// The ids of the warning rules, sorted: the only ones --allow and accept_warnings take (an
/// error cannot be accepted), so the ones shell completion offers.
std::vector<std::string> AcceptableRuleIds();

/// Whether `id` is a known rule id.
bool IsKnownRule(const std::string& id);

}  // namespace hkim
