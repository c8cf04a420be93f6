#include "summary.h"

namespace hkim::health {

using nlohmann::json;

bool NodeSummary::Passed() const {
  for (const CheckOutcome& check : checks) {
    if (check.status == "fail" || check.status == "error") return false;
  }
  return true;
}

json SummaryJson(const NodeSummary& summary) {
  json checks = json::array();
  for (const CheckOutcome& check : summary.checks) {
    checks.push_back({{"name", check.name},
                      {"status", check.status},
                      {"detail", check.detail},
                      {"numbers", check.numbers},
                      {"failures", check.failures},
                      {"fixes", check.fixes}});
  }
  json out = {{"tool", "hkim-health"}, {"format", 1},          {"mode", summary.mode},
              {"node", summary.node},  {"pod", summary.pod},    {"time", summary.time},
              {"passed", summary.Passed()}, {"checks", checks}, {"mark", summary.mark}};
  if (!summary.localization.is_null()) out["localization"] = summary.localization;
  if (!summary.suspects.is_null()) out["suspects"] = summary.suspects;
  return out;
}

std::string FormatSummaryLine(const NodeSummary& summary) {
  // The checks' own output may hold bytes that are not UTF-8: they print as U+FFFD.
  return std::string(kSummaryMarker) +
         SummaryJson(summary).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace hkim::health
