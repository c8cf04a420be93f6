#include "validate/repeated_items.h"

#include <map>

#include "schema/unique_items.h"
#include "validate/value_fix.h"

namespace hkim {

bool IsRepeatedItemPair(const std::string& text) {
  return text.find(kRepeatedItemsMessageEnd) != std::string::npos;
}

std::vector<Diagnostic> RepeatedItemFindings(const LoadedProfile& profile,
                                             const std::string& pointer, const std::string& fix) {
  std::vector<Diagnostic> found;
  const nlohmann::json* list = nullptr;
  try {
    list = &profile.document.at(nlohmann::json::json_pointer(pointer));
  } catch (const std::exception&) {
  }
  if (list == nullptr || !list->is_array()) return found;
  // Each distinct item's first index, found in log n (nlohmann orders values), not by pairs.
  std::map<nlohmann::json, size_t> first_index;
  for (size_t i = 0; i < list->size(); ++i) {
    const auto [first, added] = first_index.try_emplace((*list)[i], i);
    if (added) continue;
    Diagnostic d;
    d.severity = Severity::kError;
    d.data_path = pointer + "/" + std::to_string(i);
    d.location = profile.locations.Find(d.data_path);
    d.rule = "schema.uniqueItems";
    const SourceLocation earlier =
        profile.locations.Find(pointer + "/" + std::to_string(first->second));
    d.message = DescribeValue((*list)[i]) + " is already listed " +
                (earlier.known() ? "on line " + std::to_string(earlier.line)
                                 : "as item " + std::to_string(first->second + 1));
    d.fix = fix.empty() ? "remove this item" : fix;
    found.push_back(std::move(d));
  }
  return found;
}

}  // namespace hkim
