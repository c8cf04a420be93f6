#include "links_mode.h"

#include <chrono>
#include <thread>

#include "health_pipeline.h"
#include "node_condition.h"

namespace hkim::health {
namespace {

std::vector<CounterThreshold> Thresholds(const HealthConfig& config) {
  std::vector<CounterThreshold> out;
  std::string error;
  ParseThresholds(config.link_thresholds, &out, &error);  // checked in ReadHealthEnvironment
  return out;
}

std::string PortLine(const PortSample& port, const std::vector<CounterThreshold>& thresholds) {
  std::string line = "rail " + port.rail + " (" + (port.device.empty() ? "no device" : port.device) +
                     " port " + std::to_string(port.port) + "): " +
                     (port.state.empty() ? "state unreadable" : port.state);
  if (!port.phys_state.empty()) line += " (" + port.phys_state + ")";
  for (const CounterThreshold& t : thresholds) {
    const auto found = port.counters.find(t.counter);
    line += ", " + t.counter + " " +
            (found == port.counters.end() ? std::string("absent") : std::to_string(found->second));
  }
  line += "; " + std::to_string(port.counters.size()) + " counters read";
  for (const std::string& problem : port.problems) line += "; " + problem;
  return line;
}

}  // namespace

std::string LinksIssueText(const std::vector<LinkIssue>& issues) {
  std::string out;
  for (const LinkIssue& issue : issues) out += (out.empty() ? "" : "; ") + DescribeIssue(issue);
  return out;
}

LinkAgent::LinkAgent(const HealthConfig& config, const KubeClient* api, std::ostream& log)
    : config_(config),
      api_(api),
      log_(log),
      rails_(ResolveRails(config.sysfs_root, config.link_rails)),
      watch_(Thresholds(config)) {}

std::vector<LinkIssue> LinkAgent::Pass(double t_s, const std::string& utc) {
  std::vector<PortSample> ports;
  for (const RailDevice& rail : rails_) {
    std::vector<PortSample> read = ReadRailPorts(config_.sysfs_root, rail);
    ports.insert(ports.end(), read.begin(), read.end());
  }
  watch_.Add(t_s, ports);
  const std::vector<LinkIssue> issues = watch_.Issues();
  const std::string issue = LinksIssueText(issues);
  const bool changed = !posted_ || issue != posted_issue_;
  if (changed) {
    const std::vector<CounterThreshold> thresholds = Thresholds(config_);
    for (const PortSample& port : ports) log_ << "hkim-health: links: " << PortLine(port, thresholds) << "\n";
    log_ << "hkim-health: links: " << (issue.empty() ? "no issues" : "ISSUES: " + issue) << "\n";
  }
  // Post again before the heartbeat would pass its interval at the next pass.
  const bool due = !posted_ || t_s - posted_at_s_ + config_.link_interval_s > config_.heartbeat_s;
  write_failed_ = false;
  if (api_ == nullptr || (!changed && !due)) return issues;
  ConditionUpdate update;
  update.writer = "links";
  update.issue = issue;
  update.time = utc;
  update.healthy_note = "links: " + std::to_string(ports.size()) + " port(s) of " +
                        std::to_string(rails_.size()) +
                        " rail(s) active, counters within their thresholds";
  std::string status;
  const std::string error = WriteCondition(*api_, config_.node_name, update, &status);
  if (!error.empty()) {
    write_failed_ = true;
    log_ << "hkim-health: links: condition not written (trying again next pass): " << error << "\n";
    return issues;
  }
  if (changed && !config_.pod_namespace.empty()) {
    const std::string event_error = PostNodeEvent(
        *api_, config_.pod_namespace, config_.node_name,
        issue.empty() ? kReasonHasNoIssues : kReasonHasIssues,
        issue.empty() ? update.healthy_note : "links: " + issue, !issue.empty(), utc);
    if (!event_error.empty()) log_ << "hkim-health: links: no event: " << event_error << "\n";
  }
  if (changed) log_ << "hkim-health: links: condition " << kConditionType << "=" << status << "\n";
  posted_ = true;
  posted_at_s_ = t_s;
  posted_issue_ = issue;
  log_ << std::flush;
  return issues;
}

int RunLinksMode(const HealthConfig& config, const std::optional<KubeClient>& api, bool once,
                 std::ostream& out, std::ostream& log) {
  if (!api && !once) {
    log << "hkim-health: error: links: no Kubernetes API (the agent needs its service account "
           "token to set the node condition; --once reads and prints without one)\n";
    return 2;
  }
  if (api && config.node_name.empty()) {
    log << "hkim-health: error: links: HKIM_NODE_NAME is not set\nfix: set it from the downward "
           "API (fieldRef spec.nodeName)\n";
    return 2;
  }
  LinkAgent agent(config, api ? &*api : nullptr, log);
  if (agent.rails().empty()) {
    log << "hkim-health: error: links: no RDMA device under " << config.sysfs_root
        << " to watch\nfix: mount the host's /sys read-only and set HKIM_HEALTH_SYSFS to its "
           "class/infiniband (the bundle's DaemonSet does), on a node with RDMA NICs\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (once) {
    const std::vector<LinkIssue> issues = agent.Pass(0, UtcNow());
    out << (issues.empty() ? "no issues\n" : LinksIssueText(issues) + "\n") << std::flush;
    if (agent.write_failed()) return 2;
    return issues.empty() ? 0 : 1;
  }
  log << "hkim-health: links: watching every " << config.link_interval_s << " s under "
      << config.sysfs_root << " (thresholds " << config.link_thresholds << ", heartbeat "
      << config.heartbeat_s << " s)\n";
  for (double next = 0;; next += config.link_interval_s) {
    const double wait = next - elapsed();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    agent.Pass(elapsed(), UtcNow());
  }
}

}  // namespace hkim::health
