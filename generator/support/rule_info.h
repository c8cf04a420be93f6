#pragma once

// One rule id a diagnostic can carry, as listed by `hkimgen lint --list-rules`. Each stage that
// reports rules of its own lists them in this form; commands/rule_ids.h gathers them all.

#include <string>

#include "support/diagnostics.h"

namespace hkim {

struct RuleInfo {
  std::string id;        ///< "schema.type", "lint.subnet-overlap", ...
  Severity severity;     ///< the severity its messages carry
  std::string summary;   ///< what it reports, one line
};

}  // namespace hkim
