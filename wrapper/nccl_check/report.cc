#include "report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "size_range.h"

namespace hkim::nccl_check {
namespace {

std::string Format(const char* format, auto... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

}  // namespace

std::string FormatTable(const CheckReport& report) {
  const CheckConfig& c = report.config;
  std::string out;
  out += Format("# hkim-nccl-check: all-reduce float32 sum, scope %s, %d rank(s), %d local GPU(s)",
                std::string(ScopeName(c.scope)).c_str(), report.ranks, report.local_gpus);
  if (c.scope == Scope::kJob) {
    out += Format(", pod ordinal %d of %d (ranks %d..%d)", c.ordinal, c.replicas, report.first_rank,
                  report.first_rank + report.local_gpus - 1);
  }
  out += "\n# NCCL " + report.nccl_version + " from " + report.nccl_library + ", CUDA driver " +
         report.cuda_driver + "\n";
  for (const std::string& gpu : report.gpus) out += "#   GPU " + gpu + "\n";
  out += Format("# %12s %12s %6s %12s %12s %12s %10s\n", "size", "count", "iters", "time(us)",
                "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  for (const SizeResult& r : report.results) {
    out +=
        Format("  %12s %12llu %6d %12.1f %12.2f %12.2f %10llu\n", FormatByteCount(r.bytes).c_str(),
               static_cast<unsigned long long>(r.bytes / sizeof(float)), r.iterations, r.time_us,
               r.algbw_gbps, r.busbw_gbps, static_cast<unsigned long long>(r.wrong_elements));
  }
  out += "# transport: " + report.transport.Summary() + "\n";
  if (!report.transport.network.empty()) out += "# network: " + report.transport.network + "\n";
  if (c.min_busbw_gbps > 0) {
    out += Format("# threshold: busbw >= %.2f GB/s at %s", c.min_busbw_gbps,
                  FormatByteCount(c.at_bytes).c_str());
  } else {
    out += "# threshold: none on bandwidth";
  }
  out += ", transport " + std::string(RequiredTransportName(c.transport)) + "\n";
  out += Format("# init %.2f s, whole check %.2f s\n", report.init_seconds, report.total_seconds);
  for (const std::string& note : report.verdict.notes) out += "# note: " + note + "\n";
  for (const std::string& failure : report.verdict.failures) out += "# FAIL: " + failure + "\n";
  out += report.verdict.passed ? "# result: PASS\n" : "# result: FAIL\n";
  return out;
}

std::string FormatJson(const CheckReport& report) {
  using nlohmann::json;
  const CheckConfig& c = report.config;
  json results = json::array();
  for (const SizeResult& r : report.results) {
    results.push_back({{"bytes", r.bytes},
                       {"count", r.bytes / sizeof(float)},
                       {"iterations", r.iterations},
                       {"time_us", r.time_us},
                       {"algbw_gbps", r.algbw_gbps},
                       {"busbw_gbps", r.busbw_gbps},
                       {"wrong_elements", r.wrong_elements}});
  }
  json via = json::object();
  for (const auto& [text, count] : report.transport.via_counts) via[text] = count;
  json used = json::array();
  for (const auto& [transport, count] : report.transport.transport_counts) {
    if (count > 0) used.push_back(std::string(TransportName(transport)));
  }
  const nlohmann::json record = {
      {"tool", "hkim-nccl-check"},
      {"passed", report.verdict.passed},
      {"policy", std::string(PolicyName(c.policy))},
      {"scope", std::string(ScopeName(c.scope))},
      {"ranks", report.ranks},
      {"local_gpus", report.local_gpus},
      {"first_rank", report.first_rank},
      {"ordinal", c.ordinal},
      {"replicas", c.replicas},
      {"nccl_version", report.nccl_version},
      {"nccl_library", report.nccl_library},
      {"cuda_driver", report.cuda_driver},
      {"gpus", report.gpus},
      {"threshold",
       {{"min_busbw_gbps", c.min_busbw_gbps},
        {"at_bytes", c.at_bytes},
        {"max_bytes", c.max_bytes},
        {"transport", std::string(RequiredTransportName(c.transport))}}},
      {"results", results},
      {"transport",
       {{"used", used},
        {"via", via},
        {"network", report.transport.network},
        {"ib_devices", report.transport.ib_devices},
        {"socket_devices", report.transport.socket_devices},
        {"graph_link_types", report.transport.graph_link_types},
        {"nvlink", report.transport.IntraNodeNvlink()},
        {"summary", report.transport.Summary()}}},
      {"failures", report.verdict.failures},
      {"notes", report.verdict.notes},
      {"init_seconds", report.init_seconds},
      {"total_seconds", report.total_seconds},
  };
  // Interface names, library paths and GPU names come from outside and may hold any byte:
  // replace what is not UTF-8 instead of throwing (std::terminate in a pod).
  return record.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string NoRendezvousJson(const CheckConfig& config, const std::string& error,
                             const std::string& fix) {
  const nlohmann::json record = {
      {"tool", "hkim-nccl-check"},
      {"passed", false},
      {"took_part", false},
      {"scope", std::string(ScopeName(config.scope))},
      {"ordinal", config.ordinal},
      {"replicas", config.replicas},
      {"rendezvous", {{"error", error}, {"fix", fix}, {"port", config.rendezvous_port}}},
      {"failures", {"rendezvous: " + error}}};
  // The error may quote a host name or a peer's bytes: any byte (see FormatJson).
  return record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace hkim::nccl_check
