#pragma once

#include <map>
#include <string>
#include <vector>

namespace hkim::wrapper {

/// What libibverbs says about one device.
struct VerbsDevice {
  bool listed = false;              ///< returned by ibv_get_device_list()
  bool opened = false;              ///< ibv_open_device() succeeded
  std::map<int, bool> port_active;  ///< port -> ibv_query_port() state == IBV_PORT_ACTIVE
  std::string error;                ///< why it could not be opened/queried
};

/// Result of the libibverbs check. libibverbs is loaded with dlopen at run time, so the
/// wrapper runs in images without it (then `available` is false and sysfs alone decides).
struct VerbsProbe {
  bool available = false;
  std::string note;                            ///< e.g. "libibverbs.so.1 not found: ..."
  int listed_count = 0;                        ///< devices in ibv_get_device_list()
  std::map<std::string, VerbsDevice> devices;  ///< only the names asked for
};

/// Opens each named device and queries the given ports. `library` is the soname to dlopen.
VerbsProbe ProbeVerbs(const std::map<std::string, std::vector<int>>& ports_by_device,
                      const std::string& library = "libibverbs.so.1");

}  // namespace hkim::wrapper
