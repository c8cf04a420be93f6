#pragma once
// The HKIM_HEALTH_SUMMARY lines of a program's output, for the tests that run hkim-health.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim::health {

/// Each summary line's JSON, in output order (mixed with other lines, as a pod's log is).
inline std::vector<nlohmann::json> SummaryLines(const std::string& out) {
  std::vector<nlohmann::json> summaries;
  const std::string marker = "HKIM_HEALTH_SUMMARY ";
  size_t at = 0;
  while ((at = out.find(marker, at)) != std::string::npos) {
    const size_t end = out.find('\n', at);
    summaries.push_back(nlohmann::json::parse(out.substr(at + marker.size(), end - at - marker.size())));
    at = end;
  }
  return summaries;
}

}  // namespace hkim::health
