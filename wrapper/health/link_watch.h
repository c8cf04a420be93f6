#pragma once
// The passive link agent's judgement (hkim-health links): the samples of the rails' ports over
// time, kept in memory, and the thresholds they are held to. A counter crosses its threshold
// when it grew by more than `max_increase` within the last `window_s` seconds; a port whose
// state is not ACTIVE is an issue while it lasts. Defaults (the profile's
// fabric_health.link_counters.thresholds): NVIDIA NVSentinel treats any increase of link_downed
// and rnr_nak_retry_err as fatal and symbol_error above 120 per hour as an issue; Oracle's
// oci-hpc tooling flags a link that went down within the last 6 hours, so link_downed is held
// for 6 hours.

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "link_sysfs.h"

namespace hkim::health {

/// One counter's limit.
struct CounterThreshold {
  std::string counter;       ///< a file name under counters/ or hw_counters/
  uint64_t max_increase = 0;  ///< more than this within the window is an issue (0: any increase)
  double window_s = 3600;
};

/// The defaults named above, as HKIM_HEALTH_LINK_THRESHOLDS would spell them.
inline constexpr const char* kDefaultLinkThresholds =
    "link_downed=0/21600,rnr_nak_retry_err=0/21600,symbol_error=120/3600";

/// Parses "counter=max/window_s,..." (e.g. kDefaultLinkThresholds). False with why on a bad item
/// (a name other than letters, digits and '_'; a number that does not parse; a window outside
/// 1 s .. 30 days; a counter named twice).
bool ParseThresholds(const std::string& text, std::vector<CounterThreshold>* out,
                     std::string* error);

/// One issue of one port, named by its rail.
struct LinkIssue {
  std::string rail;
  std::string device;
  int port = 1;
  std::string what;  ///< "link_downed +1 within 6 h (threshold: any increase)", "state DOWN"
};

/// "rail r0 (mlx5_6 port 1): <what>".
std::string DescribeIssue(const LinkIssue& issue);

/// The samples of every watched port and the issues they show.
class LinkWatch {
 public:
  explicit LinkWatch(std::vector<CounterThreshold> thresholds);

  /// Records the ports read at time `t_s` (seconds, monotonic; later calls later times). A
  /// counter that went down (a driver reload reset it) starts its history again.
  void Add(double t_s, const std::vector<PortSample>& ports);

  /// The issues of the latest samples, sorted by rail, device, port.
  std::vector<LinkIssue> Issues() const;

  /// Counters watched per port (for the log): how many samples are kept in all.
  size_t SampleCount() const;

 private:
  using PortKey = std::tuple<std::string, std::string, int>;  // rail, device, port
  struct Point {
    double t_s;
    uint64_t value;
  };
  struct PortHistory {
    PortSample latest;
    std::map<std::string, std::deque<Point>> counters;  // thresholded counters only
  };

  std::vector<CounterThreshold> thresholds_;
  double longest_window_s_ = 0;
  double now_s_ = 0;
  std::map<PortKey, PortHistory> ports_;
};

}  // namespace hkim::health
