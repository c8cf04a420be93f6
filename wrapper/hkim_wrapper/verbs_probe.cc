#include "verbs_probe.h"

#include <dlfcn.h>
#include <infiniband/verbs.h>

#include <cstring>

namespace hkim::wrapper {
namespace {

// The verbs entry points, looked up by name. verbs.h is used for the types only: nothing here
// links against libibverbs. (verbs.h turns ibv_query_port into an inline wrapper; the exported
// symbol of that name takes the compatible prefix of struct ibv_port_attr, which we pass.)
using GetDeviceList = ibv_device** (*)(int*);
using FreeDeviceList = void (*)(ibv_device**);
using GetDeviceName = const char* (*)(ibv_device*);
using OpenDevice = ibv_context* (*)(ibv_device*);
using CloseDevice = int (*)(ibv_context*);
using QueryPort = int (*)(ibv_context*, uint8_t, ibv_port_attr*);

}  // namespace

VerbsProbe ProbeVerbs(const std::map<std::string, std::vector<int>>& ports_by_device,
                      const std::string& library) {
  VerbsProbe probe;
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    probe.note = library + " not loadable (" + (error ? error : "unknown error") +
                 "); relying on sysfs only";
    return probe;
  }
  auto get_list = reinterpret_cast<GetDeviceList>(::dlsym(handle, "ibv_get_device_list"));
  auto free_list = reinterpret_cast<FreeDeviceList>(::dlsym(handle, "ibv_free_device_list"));
  auto get_name = reinterpret_cast<GetDeviceName>(::dlsym(handle, "ibv_get_device_name"));
  auto open_device = reinterpret_cast<OpenDevice>(::dlsym(handle, "ibv_open_device"));
  auto close_device = reinterpret_cast<CloseDevice>(::dlsym(handle, "ibv_close_device"));
  auto query_port = reinterpret_cast<QueryPort>(::dlsym(handle, "ibv_query_port"));
  if (!get_list || !free_list || !get_name || !open_device || !close_device || !query_port) {
    probe.note = library + " lacks the expected verbs symbols; relying on sysfs only";
    ::dlclose(handle);
    return probe;
  }
  probe.available = true;
  int count = 0;
  ibv_device** list = get_list(&count);
  if (list == nullptr) {
    probe.note = std::string("ibv_get_device_list failed: ") + std::strerror(errno);
    count = 0;
  }
  probe.listed_count = count;
  for (const auto& [name, ports] : ports_by_device) {
    VerbsDevice& device = probe.devices[name];
    for (int i = 0; i < count; ++i) {
      const char* listed_name = get_name(list[i]);
      if (listed_name == nullptr || name != listed_name) continue;
      device.listed = true;
      ibv_context* context = open_device(list[i]);
      if (context == nullptr) {
        device.error = std::string("ibv_open_device failed: ") + std::strerror(errno);
        break;
      }
      device.opened = true;
      for (int port : ports) {
        ibv_port_attr attr;
        std::memset(&attr, 0, sizeof(attr));
        if (port < 1 || port > 255) continue;
        int rc = query_port(context, static_cast<uint8_t>(port), &attr);
        if (rc != 0) {
          device.error =
              "ibv_query_port(" + std::to_string(port) + ") failed: " + std::strerror(rc);
          device.port_active[port] = false;
        } else {
          device.port_active[port] = attr.state == IBV_PORT_ACTIVE;
        }
      }
      close_device(context);
      break;
    }
    if (!device.listed && device.error.empty())
      device.error = "not in ibv_get_device_list() (is /dev/infiniband/uverbsN in the pod?)";
  }
  if (list != nullptr) free_list(list);
  // libibverbs stays loaded: unloading a provider library at exit time gains nothing.
  return probe;
}

}  // namespace hkim::wrapper
