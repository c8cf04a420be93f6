#pragma once
// What the passive link agent reads (hkim-health links): the physical RDMA ports of the pool's
// rails under a sysfs root (the host's /sys/class/infiniband, mounted read-only), their state and
// their error counters (ports/<n>/counters/* and ports/<n>/hw_counters/*). Every file is text
// from the kernel, read with a size limit and parsed strictly: a file that does not parse is
// reported, never trusted.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hkim::health {

/// One rail as the profile names it and the RDMA device it runs over.
struct RailDevice {
  std::string rail;    ///< the profile's rail name (or the device's when the profile names none)
  std::string device;  ///< mlx5_6
};

/// One port of a rail's device as read at one time.
struct PortSample {
  std::string rail;
  std::string device;
  int port = 1;
  std::string state;       ///< "ACTIVE", "DOWN", ... (ports/<n>/state after the "4: ")
  std::string phys_state;  ///< "LinkUp", "Disabled", ... ("" when unreadable)
  /// Counter name → value, from counters/ and hw_counters/ (hw_counters wins a name in both).
  std::map<std::string, uint64_t> counters;
  std::vector<std::string> problems;  ///< files that could not be read or parsed, with why
};

/// Parses a counter file ("123\n"): decimal digits, an optional trailing newline. False on
/// anything else (empty, sign, overflow past 2^64-1, other bytes).
bool ParseCounterText(const std::string& text, uint64_t* value);

/// Parses a state file ("4: ACTIVE\n", "5: LinkUp\n"): the name after "<digits>: ". False when
/// the text has another shape or the name holds bytes other than letters, digits, '_' and '-'.
bool ParsePortStateText(const std::string& text, std::string* name);

/// Parses HKIM_HEALTH_LINK_RAILS ("rail=device,..."; a device "@ifname" names the RDMA device of
/// a host netdev, resolved under the root by ResolveRails). False with why on a bad item.
bool ParseRailList(const std::string& text, std::vector<RailDevice>* rails, std::string* error);

/// The devices under `root` (sorted names of its entries).
std::vector<std::string> ListRdmaDevices(const std::string& root);

/// The rails to watch: `wanted` with each "@ifname" replaced by the device whose
/// <root>/<device>/device/net/<ifname> exists; every device under `root` (rail = device) when
/// `wanted` is empty. A rail whose device is not found stays, with device "" (its ports read as
/// missing).
std::vector<RailDevice> ResolveRails(const std::string& root, const std::vector<RailDevice>& wanted);

/// Reads every port of `rail`'s device under `root`. A missing device or port folder gives one
/// sample with state "MISSING" and the problem.
std::vector<PortSample> ReadRailPorts(const std::string& root, const RailDevice& rail);

}  // namespace hkim::health
