#pragma once
// hkim-health links: the passive link agent, one per pool node (a DaemonSet with no GPU, no VF,
// no privilege; the host's sysfs mounted read-only). At every interval it reads the physical
// ports of the pool's rails (link_sysfs.h), keeps their counters in memory (link_watch.h) and
// sets the node's RdmaFabric condition through nodes/status (node_condition.h, its "links"
// part): True naming the rail, the port and the numbers while a port is down or a counter is
// over its threshold, False again once none is; an Event on the Node whenever that changes.
// It re-posts the condition before the heartbeat interval passes, so a reader sees a live
// agent's condition fresh and a dead agent's one stale (Unknown). It never fails because the
// fabric is bad: that is what it reports.

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "health_config.h"
#include "kube_api.h"
#include "link_watch.h"

namespace hkim::health {

/// One agent: its rails, its memory of the counters, what it last posted.
class LinkAgent {
 public:
  /// `api` may be null (--once without a token: read and print only).
  LinkAgent(const HealthConfig& config, const KubeClient* api, std::ostream& log);

  /// One pass at monotonic time `t_s` and wall time `utc` (RFC 3339): read, judge, post when
  /// the issues changed or the heartbeat is due. Returns the issues of this pass.
  std::vector<LinkIssue> Pass(double t_s, const std::string& utc);

  /// The rails it watches (the profile's, or every device under the root).
  const std::vector<RailDevice>& rails() const { return rails_; }

  /// Whether the last pass's condition write failed (it is tried again next pass).
  bool write_failed() const { return write_failed_; }

 private:
  const HealthConfig& config_;
  const KubeClient* api_;
  std::ostream& log_;
  std::vector<RailDevice> rails_;
  LinkWatch watch_;
  bool posted_ = false;
  double posted_at_s_ = 0;
  std::string posted_issue_;
  bool write_failed_ = false;
};

/// The links message of `issues` ("" when none): each DescribeIssue, joined by "; ".
std::string LinksIssueText(const std::vector<LinkIssue>& issues);

/// Runs the agent: passes every config.link_interval_s until killed, or one pass with `once`
/// (exit 1 when it found an issue, 0 when none, 2 when it cannot work: no rail to watch, or no
/// API outside --once). The caller passes no API with `once`: one pass only reads and prints
/// (node-problem-detector's plugin mode writes the condition from its exit status itself).
int RunLinksMode(const HealthConfig& config, const std::optional<KubeClient>& api, bool once,
                 std::ostream& out, std::ostream& log);

}  // namespace hkim::health
