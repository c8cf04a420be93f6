#include "health_config.h"

#include <cstdlib>
#include <type_traits>

#include "link_watch.h"
#include "text_cut.h"

namespace hkim::health {

bool ParseKeyValueList(const std::string& text, std::map<std::string, std::string>* out) {
  for (const std::string& item : CommaItems(text)) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    (*out)[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return true;
}

std::string LabelSelector(const std::map<std::string, std::string>& selector) {
  std::string out;
  for (const auto& [key, value] : selector) out += (out.empty() ? "" : ",") + key + "=" + value;
  return out;
}

void ReadHealthEnvironment(const EnvLookup& env, HealthConfig& config,
                           std::vector<std::string>& errors) {
  auto bad = [&](const std::string& name, const std::string& value, const std::string& fix) {
    errors.push_back(name + "='" + value + "' is not valid\nfix: " + fix);
  };
  auto flag = [&](const std::string& name, bool* out) {
    const auto value = env(name);
    if (!value || value->empty()) return;
    if (*value == "true" || *value == "1") *out = true;
    else if (*value == "false" || *value == "0") *out = false;
    else bad(name, *value, "use true or false");
  };
  if (const auto mode = env("HKIM_HEALTH_MODE"); mode && !mode->empty()) {
    if (*mode == "node") config.mode = RunMode::kNode;
    else if (*mode == "gate") config.mode = RunMode::kGate;
    else if (*mode == "night") config.mode = RunMode::kNight;
    else bad("HKIM_HEALTH_MODE", *mode, "use node, gate or night");
  }
  if (const auto policy = env("HKIM_HEALTH_POLICY"); policy && !policy->empty()) {
    if (*policy == "fail") config.fail_on_failure = true;
    else if (*policy == "warn") config.fail_on_failure = false;
    else bad("HKIM_HEALTH_POLICY", *policy, "use warn or fail");
  }
  if (const auto path = env("HKIM_HEALTH_READY_FILE"); path && !path->empty())
    config.ready_file = *path;
  config.pod_revision = env("HKIM_POD_REVISION").value_or("");
  config.node_name = env("HKIM_NODE_NAME").value_or(config.node_name);
  config.pod_name = env("HKIM_POD_NAME").value_or(config.pod_name);
  if (const auto gpus = env("HKIM_HEALTH_EXPECT_GPUS"); gpus && !gpus->empty()) {
    const auto count = ParseCount(*gpus);
    if (count && *count <= 1024) config.expected.gpus = static_cast<int>(*count);
    else bad("HKIM_HEALTH_EXPECT_GPUS", *gpus, "give the GPUs of one node, e.g. 8");
  }
  if (const auto list = env("HKIM_HEALTH_EXPECT_RESOURCES"); list && !list->empty()) {
    std::map<std::string, std::string> items;
    bool ok = ParseKeyValueList(*list, &items);
    for (const auto& [name, value] : items) {
      const auto count = ParseCount(value);
      if (!count) ok = false;
      else config.expected.resources[name] = *count;
    }
    if (!ok) bad("HKIM_HEALTH_EXPECT_RESOURCES", *list, "give name=count pairs, e.g. a/b=16,c/d=1");
  }
  if (const auto list = env("HKIM_HEALTH_NODE_SELECTOR"); list && !list->empty()) {
    if (!ParseKeyValueList(*list, &config.node_selector))
      bad("HKIM_HEALTH_NODE_SELECTOR", *list, "give key=value pairs separated by commas");
  }
  auto names = [&](const std::string& name, std::set<std::string>* out) {
    const auto list = env(name);
    if (!list || list->empty()) return;
    size_t start = 0;
    while (start <= list->size()) {
      const size_t comma = list->find(',', start);
      const std::string item =
          list->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty()) out->insert(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  };
  names("HKIM_HEALTH_INCLUDE_NODES", &config.include_nodes);
  names("HKIM_HEALTH_EXCLUDE_NODES", &config.exclude_nodes);
  names("HKIM_HEALTH_WORKLOAD_PODS", &config.workload_namespaces);
  config.workload_selector = env("HKIM_HEALTH_WORKLOAD_SELECTOR").value_or("");
  if (const auto report = env("HKIM_HEALTH_REPORT"); report && !report->empty()) {
    if (*report == "termination") config.report_to_termination = true;
    else if (*report != "api") bad("HKIM_HEALTH_REPORT", *report, "use termination or api");
  }
  config.check_pod_file = env("HKIM_HEALTH_CHECK_POD").value_or(config.check_pod_file);
  config.pod_namespace = env("HKIM_POD_NAMESPACE").value_or(config.pod_namespace);
  config.pod_uid = env("HKIM_POD_UID").value_or(config.pod_uid);
  config.tcp_mode = env("HKIM_MODE").value_or("") == "tcp";
  flag("HKIM_HEALTH_TAINT", &config.taint);
  flag("HKIM_HEALTH_PER_RAIL", &config.per_rail);
  auto number = [&](const std::string& name, double low, double high, const std::string& fix,
                    auto* out) {
    const auto text = env(name);
    if (!text || text->empty()) return;
    char* end = nullptr;
    const double value = std::strtod(text->c_str(), &end);
    if (end != nullptr && *end == '\0' && value >= low && value <= high)
      *out = static_cast<std::remove_pointer_t<decltype(out)>>(value);
    else bad(name, *text, fix);
  };
  number("HKIM_HEALTH_RELEASE_AFTER", 1, 100, "give the passes that release a node, 1 to 100",
         &config.release_after);
  number("HKIM_HEALTH_ROTATION_NIGHTS", 1, 366, "give the nights of the rotation, 1 to 366",
         &config.rotation_nights);
  if (const auto when = env("HKIM_HEALTH_LOCALIZE"); when && !when->empty()) {
    if (*when == "fail" || *when == "always" || *when == "off") config.localize = *when;
    else bad("HKIM_HEALTH_LOCALIZE", *when, "use fail, always or off");
  }
  number("HKIM_HEALTH_ASSEMBLE_TIMEOUT_S", 1, 86400, "give seconds between 1 and 86400",
         &config.assemble_timeout_s);
  number("HKIM_HEALTH_PLACEMENT_TIMEOUT_S", 1, 86400, "give seconds between 1 and 86400",
         &config.placement_timeout_s);
  number("HKIM_HEALTH_POLL_S", 0.01, 600, "give seconds between 0.01 and 600", &config.poll_s);
  number("HKIM_HEALTH_PAIR_TIMEOUT_S", 5, 3600, "give seconds between 5 and 3600",
         &config.pair_timeout_s);
  config.peer_address = env("HKIM_HEALTH_PEER_ADDRESS").value_or("");
  flag("HKIM_HEALTH_MARK_SUSPECTS", &config.mark_suspects);
  if (const auto path = env("HKIM_HEALTH_TERMINATION_LOG")) {
    config.termination_log = *path;
    config.termination_log_set = true;
  }
  number("HKIM_REPLICAS", 1, 100000, "set it to the number of pods", &config.replicas);
  config.master_addr = env("MASTER_ADDR").value_or("");
  number("HKIM_RENDEZVOUS_PORT", 1, 65535, "give a TCP port", &config.rendezvous_port);
  number("HKIM_NCCL_CHECK_MIN_BUSBW_GBPS", 0, 1e9, "give GB/s", &config.min_busbw_gbps);
  config.at_bytes = env("HKIM_NCCL_CHECK_AT_BYTES").value_or("");
  config.sysfs_root = env("HKIM_HEALTH_SYSFS").value_or(config.sysfs_root);
  if (const auto rails = env("HKIM_HEALTH_LINK_RAILS"); rails && !rails->empty()) {
    std::string why;
    if (!ParseRailList(*rails, &config.link_rails, &why))
      bad("HKIM_HEALTH_LINK_RAILS", *rails, why + "; give rail=device pairs, e.g. rail0=mlx5_6");
  }
  number("HKIM_HEALTH_LINK_INTERVAL_S", 1, 3600, "give seconds between 1 and 3600",
         &config.link_interval_s);
  number("HKIM_HEALTH_HEARTBEAT_S", 10, 604800, "give seconds between 10 and 604800",
         &config.heartbeat_s);
  config.link_thresholds = env("HKIM_HEALTH_LINK_THRESHOLDS").value_or("");
  if (config.link_thresholds.empty()) config.link_thresholds = kDefaultLinkThresholds;
  {
    std::vector<CounterThreshold> thresholds;
    std::string why;
    if (!ParseThresholds(config.link_thresholds, &thresholds, &why))
      bad("HKIM_HEALTH_LINK_THRESHOLDS", config.link_thresholds,
          why + "; e.g. " + kDefaultLinkThresholds);
  }
  if (config.link_interval_s >= config.heartbeat_s)
    errors.push_back("HKIM_HEALTH_LINK_INTERVAL_S must be shorter than HKIM_HEALTH_HEARTBEAT_S"
                     "\nfix: read the links more often than the condition's heartbeat interval");
  if (const auto marks = env("HKIM_HEALTH_MARKS"); marks && !marks->empty()) {
    if (*marks == "labels" || *marks == "condition" || *marks == "both") {
      config.write_labels = *marks != "condition";
      config.write_condition = *marks != "labels";
    } else {
      bad("HKIM_HEALTH_MARKS", *marks, "use labels, condition or both");
    }
  }
  if (const auto timeout = env("HKIM_HEALTH_TIMEOUT_S"); timeout && !timeout->empty()) {
    char* end = nullptr;
    const double value = std::strtod(timeout->c_str(), &end);
    if (end != nullptr && *end == '\0' && value > 0 && value <= 86400) config.check_timeout_s = value;
    else bad("HKIM_HEALTH_TIMEOUT_S", *timeout, "give seconds between 1 and 86400");
  }
}

}  // namespace hkim::health
