#include "per_rail.h"

#include <algorithm>
#include <cstdio>

namespace hkim::nccl_check {
namespace {

using nlohmann::json;

std::string Gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

std::string Where(const Rail& rail, const PerRailPolicy& policy) {
  return "rail " + rail.device + " (interface " + (rail.interface.empty() ? "?" : rail.interface) +
         ") on node " + (policy.node.empty() ? "?" : policy.node);
}

}  // namespace

std::optional<std::vector<std::string>> RailsFromHcaList(const std::string& hca,
                                                         std::string* error) {
  std::string list = hca;
  if (!list.empty() && list[0] == '^') {
    *error = "NCCL_IB_HCA='" + hca + "' excludes devices; per-rail needs the devices named";
    return std::nullopt;
  }
  if (!list.empty() && list[0] == '=') list.erase(0, 1);
  std::vector<std::string> rails;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) rails.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (rails.empty()) {
    *error = "no RDMA device to measure (NCCL_IB_HCA is empty and none was found)";
    return std::nullopt;
  }
  return rails;
}

PerRailResult DecidePerRail(const std::vector<Rail>& rails, const std::vector<RailRun>& runs,
                            const RailRun& together, const PerRailPolicy& policy) {
  PerRailResult result;
  result.together = together;
  for (size_t i = 0; i < rails.size(); ++i) {
    RailVerdict verdict{rails[i], i < runs.size() ? runs[i] : RailRun{}, "pass", ""};
    const RailRun& run = verdict.run;
    if (!run.ran || !run.busbw_gbps || run.exit_status >= 2) {
      verdict.status = "down";
      verdict.reason = "the measurement did not run (exit status " +
                       std::to_string(run.exit_status) + ")";
    } else if (policy.require_net_ib && !run.used_net_ib) {
      verdict.status = "down";
      verdict.reason = "NCCL did not use NET/IB over it (" + run.transport + ")";
    } else {
      result.best_gbps = std::max(result.best_gbps, *run.busbw_gbps);
    }
    result.rails.push_back(verdict);
  }
  for (RailVerdict& verdict : result.rails) {
    if (verdict.status != "pass" || result.best_gbps <= 0) continue;
    const double share = *verdict.run.busbw_gbps / result.best_gbps;
    if (share < policy.min_fraction) {
      verdict.status = "slow";
      verdict.reason = "busbw " + Gbps(*verdict.run.busbw_gbps) + " GB/s is " +
                       Gbps(share * 100) + "% of the best rail's " + Gbps(result.best_gbps) +
                       " GB/s (minimum " + Gbps(policy.min_fraction * 100) + "%)";
    }
  }
  for (const RailVerdict& verdict : result.rails) {
    if (verdict.status == "pass") continue;
    result.failures.push_back(Where(verdict.rail, policy) + " is " + verdict.status + ": " +
                              verdict.reason);
  }
  if (policy.expected_rails > 0 && static_cast<int>(rails.size()) < policy.expected_rails) {
    result.failures.push_back("node " + (policy.node.empty() ? "?" : policy.node) + " has " +
                              std::to_string(rails.size()) + " RDMA device(s), the profile expects " +
                              std::to_string(policy.expected_rails) + ": rail(s) missing");
  }
  if (!together.ran || together.exit_status >= 2) {
    result.failures.push_back("all rails together: the measurement did not run (exit status " +
                              std::to_string(together.exit_status) + ")");
  }
  for (const std::string& failure : together.failures)
    result.failures.push_back("all rails together: " + failure);
  result.passed = result.failures.empty();
  return result;
}

std::string FormatPerRailTable(const PerRailResult& result, const PerRailPolicy& policy) {
  std::string out = "# hkim-nccl-check --per-rail on node " + policy.node + ": each RDMA device "
                    "alone (NCCL_IB_HCA), then all together\n";
  char line[512];
  std::snprintf(line, sizeof line, "# %-14s %-12s %-40s %12s %7s %-7s %s\n", "rail", "interface",
                "gid", "busbw(GB/s)", "share", "status", "transport");
  out += line;
  for (const RailVerdict& v : result.rails) {
    const double bw = v.run.busbw_gbps.value_or(0);
    std::snprintf(line, sizeof line, "  %-14s %-12s %-40s %12.2f %6.0f%% %-7s %s\n",
                  v.rail.device.c_str(), v.rail.interface.empty() ? "?" : v.rail.interface.c_str(),
                  v.rail.gid.empty() ? "?" : v.rail.gid.c_str(), bw,
                  result.best_gbps > 0 ? 100 * bw / result.best_gbps : 0.0, v.status.c_str(),
                  v.run.transport.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "  %-14s %-12s %-40s %12.2f %7s %-7s %s\n", "all", "", "",
                result.together.busbw_gbps.value_or(0), "",
                result.together.exit_status == 0 ? "pass" : "fail",
                result.together.transport.c_str());
  out += line;
  for (const std::string& failure : result.failures) out += "# FAIL: " + failure + "\n";
  out += result.passed ? "# per-rail result: PASS\n" : "# per-rail result: FAIL\n";
  return out;
}

json PerRailJson(const PerRailResult& result, const PerRailPolicy& policy) {
  json rails = json::array();
  for (const RailVerdict& v : result.rails) {
    rails.push_back({{"device", v.rail.device},
                     {"interface", v.rail.interface},
                     {"gid", v.rail.gid},
                     {"busbw_gbps", v.run.busbw_gbps ? json(*v.run.busbw_gbps) : json(nullptr)},
                     {"transport", v.run.transport},
                     {"status", v.status},
                     {"reason", v.reason}});
  }
  return {{"tool", "hkim-nccl-check"},
          {"mode", "per-rail"},
          {"passed", result.passed},
          {"node", policy.node},
          {"min_fraction", policy.min_fraction},
          {"expected_rails", policy.expected_rails},
          {"best_gbps", result.best_gbps},
          {"rails", rails},
          {"together",
           {{"hca", result.together.hca},
            {"busbw_gbps", result.together.busbw_gbps ? json(*result.together.busbw_gbps)
                                                      : json(nullptr)},
            {"exit_status", result.together.exit_status},
            {"transport", result.together.transport}}},
          {"transport", {{"summary", result.together.transport}}},
          {"failures", result.failures}};
}

RailRun ReadRunRecord(const std::string& hca, int exit_status, const std::string& record_text) {
  RailRun run;
  run.hca = hca;
  run.exit_status = exit_status;
  const json record = json::parse(record_text, nullptr, false);
  if (!record.is_object()) return run;
  run.ran = true;
  const json threshold = record.value("threshold", json::object());
  const auto at = threshold.value("at_bytes", std::uint64_t{0});
  for (const json& row : record.value("results", json::array()))
    if (row.value("bytes", std::uint64_t{0}) == at) run.busbw_gbps = row.value("busbw_gbps", 0.0);
  const json transport = record.value("transport", json::object());
  for (const json& used : transport.value("used", json::array()))
    run.used_net_ib |= used == "NET/IB";
  run.transport = transport.value("summary", std::string());
  for (const json& failure : record.value("failures", json::array()))
    if (failure.is_string()) run.failures.push_back(failure.get<std::string>());
  return run;
}

}  // namespace hkim::nccl_check
