#include "summary.h"

#include "text_cut.h"

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
  if (!summary.counters.is_null()) out["counters"] = summary.counters;
  return out;
}

std::string FormatSummaryLine(const NodeSummary& summary) {
  return std::string(kSummaryMarker) + DumpJson(SummaryJson(summary)) + "\n";
}

std::string CompactReport(const NodeSummary& summary) {
  for (size_t detail_bytes : {400u, 160u, 60u, 0u}) {
    json checks = json::array();
    for (const CheckOutcome& check : summary.checks) {
      json item = {{"name", CutUtf8(check.name, 40)},
                   {"status", CutUtf8(check.status, 10)},
                   {"detail", CutUtf8(check.detail, detail_bytes)}};
      if (!check.failures.empty() && detail_bytes > 0)
        item["failures"] = json::array({CutUtf8(check.failures.front(), detail_bytes)});
      checks.push_back(std::move(item));
    }
    const json report = {{"tool", "hkim-health"},
                         {"report", 1},
                         {"node", CutUtf8(summary.node, 253)},
                         {"passed", summary.Passed()},
                         {"checks", checks}};
    std::string text = DumpJson(report);
    if (text.size() <= kTerminationMessageBytes) return text;
  }
  // Too many checks even without details: the verdict alone.
  return json{{"tool", "hkim-health"}, {"report", 1}, {"passed", summary.Passed()},
              {"checks", json::array()}}
      .dump();
}

bool ParseCompactReport(const std::string& text, std::vector<CheckOutcome>* checks, bool* passed) {
  const json report = json::parse(text, nullptr, false);
  if (!report.is_object() || report.value("tool", json()) != "hkim-health" ||
      !report.contains("passed") || !report["passed"].is_boolean() ||
      !report.contains("checks") || !report["checks"].is_array())
    return false;
  *passed = report["passed"].get<bool>();
  auto text_of = [](const json& object, const char* key) {
    return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
  };
  for (const json& item : report["checks"]) {
    if (!item.is_object()) continue;
    CheckOutcome check{text_of(item, "name"), text_of(item, "status"), text_of(item, "detail"),
                       json::object(), {}, {}};
    if (item.contains("failures") && item["failures"].is_array())
      for (const json& failure : item["failures"])
        if (failure.is_string()) check.failures.push_back(failure.get<std::string>());
    checks->push_back(std::move(check));
  }
  return true;
}

}  // namespace hkim::health
