#include "cuda_api.h"

#include <dlfcn.h>

namespace hkim::nccl_check {
namespace {

// Binds `slot` to `name` in `handle`; false when the driver lacks it.
template <typename Function>
bool Bind(void* handle, const char* name, Function*& slot, std::string* missing) {
  slot = reinterpret_cast<Function*>(::dlsym(handle, name));
  if (slot == nullptr && missing->empty()) *missing = name;
  return slot != nullptr;
}

CudaLoad Load() {
  CudaLoad load;
  // RTLD_GLOBAL is not needed: NCCL opens libcuda.so.1 itself and gets this same copy.
  void* handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    load.error = std::string("cannot load libcuda.so.1 (the NVIDIA driver's library): ") +
                 (why ? why : "not found");
    return load;
  }
  static CudaApi api;
  std::string missing;
  Bind(handle, "cuInit", api.Init, &missing);
  Bind(handle, "cuDriverGetVersion", api.DriverGetVersion, &missing);
  Bind(handle, "cuGetErrorString", api.GetErrorString, &missing);
  Bind(handle, "cuGetErrorName", api.GetErrorName, &missing);
  Bind(handle, "cuDeviceGetCount", api.DeviceGetCount, &missing);
  Bind(handle, "cuDeviceGet", api.DeviceGet, &missing);
  Bind(handle, "cuDeviceGetName", api.DeviceGetName, &missing);
  Bind(handle, "cuDeviceGetPCIBusId", api.DeviceGetPCIBusId, &missing);
  Bind(handle, "cuDevicePrimaryCtxRetain", api.DevicePrimaryCtxRetain, &missing);
  Bind(handle, "cuDevicePrimaryCtxRelease_v2", api.DevicePrimaryCtxRelease, &missing);
  Bind(handle, "cuCtxSetCurrent", api.CtxSetCurrent, &missing);
  Bind(handle, "cuMemGetInfo_v2", api.MemGetInfo, &missing);
  Bind(handle, "cuMemAlloc_v2", api.MemAlloc, &missing);
  Bind(handle, "cuMemFree_v2", api.MemFree, &missing);
  Bind(handle, "cuMemHostAlloc", api.MemHostAlloc, &missing);
  Bind(handle, "cuMemFreeHost", api.MemFreeHost, &missing);
  Bind(handle, "cuMemsetD8Async", api.MemsetD8Async, &missing);
  Bind(handle, "cuMemcpyHtoDAsync_v2", api.MemcpyHtoDAsync, &missing);
  Bind(handle, "cuMemcpyDtoDAsync_v2", api.MemcpyDtoDAsync, &missing);
  Bind(handle, "cuMemcpyDtoH_v2", api.MemcpyDtoH, &missing);
  Bind(handle, "cuStreamCreate", api.StreamCreate, &missing);
  Bind(handle, "cuStreamDestroy_v2", api.StreamDestroy, &missing);
  Bind(handle, "cuStreamQuery", api.StreamQuery, &missing);
  Bind(handle, "cuStreamSynchronize", api.StreamSynchronize, &missing);
  Bind(handle, "cuEventCreate", api.EventCreate, &missing);
  Bind(handle, "cuEventDestroy_v2", api.EventDestroy, &missing);
  Bind(handle, "cuEventRecord", api.EventRecord, &missing);
  Bind(handle, "cuEventElapsedTime", api.EventElapsedTime, &missing);
  if (!missing.empty()) {
    load.error = "libcuda.so.1 lacks " + missing + ": the driver is older than CUDA 11.0 (R450)";
    return load;
  }
  Dl_info info{};
  api.library = "libcuda.so.1";
  if (::dladdr(reinterpret_cast<void*>(api.Init), &info) != 0 && info.dli_fname != nullptr) {
    api.library = info.dli_fname;
  }
  const CUresult init = api.Init(0);
  if (init != CUDA_SUCCESS) {
    load.error = "cuInit failed: " + CudaErrorText(api, init);
    return load;
  }
  api.DriverGetVersion(&api.driver_version);
  load.api = &api;
  return load;
}

}  // namespace

CudaLoad LoadCudaApi() {
  static const CudaLoad load = Load();
  return load;
}

std::string CudaErrorText(const CudaApi& cuda, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuda.GetErrorName != nullptr) cuda.GetErrorName(result, &name);
  if (cuda.GetErrorString != nullptr) cuda.GetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(result));
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

}  // namespace hkim::nccl_check
