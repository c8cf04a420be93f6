#pragma once

// A `uniqueItems` list that holds an item twice gets one finding per repeating item, at its line,
// naming the line of the first: valijson reports every pair of equal items instead, n(n-1)/2
// findings (and as many copies of the list in their messages) for n equal items.

#include <string>
#include <vector>

#include "load/load.h"
#include "support/diagnostics.h"

namespace hkim {

/// Whether valijson's error `text` is a uniqueItems failure (one pair of equal items).
bool IsRepeatedItemPair(const std::string& text);

/// Rule schema.uniqueItems: one error for each item of the list at `pointer` that equals an earlier
/// one, with `fix` (else "remove this item").
std::vector<Diagnostic> RepeatedItemFindings(const LoadedProfile& profile,
                                             const std::string& pointer, const std::string& fix);

}  // namespace hkim
