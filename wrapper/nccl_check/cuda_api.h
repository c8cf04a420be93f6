#pragma once
// The CUDA driver API, loaded at run time from libcuda.so.1 (the library the GPU Operator's
// container toolkit mounts into every GPU pod). The check links no CUDA runtime, so it runs on
// any driver from CUDA 11.0 (R450) on and never needs a newer one than the training image's own
// NCCL does. cuda.h is used for its types only; nothing is linked from the toolkit.

#include <cuda.h>

#include <string>

namespace hkim::nccl_check {

/// Function pointers into libcuda.so.1. Each is loaded from the ABI symbol named in its comment:
/// the version every driver since CUDA 11.0 exports (cuda.h's macros would pick newer ones, such
/// as cuEventElapsedTime_v2, which older drivers lack).
struct CudaApi {
  CUresult (*Init)(unsigned int flags);                                       // cuInit
  CUresult (*DriverGetVersion)(int* version);                                 // cuDriverGetVersion
  CUresult (*GetErrorString)(CUresult error, const char** text);              // cuGetErrorString
  CUresult (*GetErrorName)(CUresult error, const char** name);                // cuGetErrorName
  CUresult (*DeviceGetCount)(int* count);                                     // cuDeviceGetCount
  CUresult (*DeviceGet)(CUdevice* device, int ordinal);                       // cuDeviceGet
  CUresult (*DeviceGetName)(char* name, int length, CUdevice device);         // cuDeviceGetName
  CUresult (*DeviceGetPCIBusId)(char* bus_id, int length, CUdevice device);   // cuDeviceGetPCIBusId
  CUresult (*DevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);    // ..Retain
  CUresult (*DevicePrimaryCtxRelease)(CUdevice device);                       // .._v2
  CUresult (*CtxSetCurrent)(CUcontext context);                               // cuCtxSetCurrent
  CUresult (*MemGetInfo)(size_t* free_bytes, size_t* total_bytes);            // cuMemGetInfo_v2
  CUresult (*MemAlloc)(CUdeviceptr* pointer, size_t bytes);                   // cuMemAlloc_v2
  CUresult (*MemFree)(CUdeviceptr pointer);                                   // cuMemFree_v2
  CUresult (*MemHostAlloc)(void** pointer, size_t bytes, unsigned int flags); // cuMemHostAlloc
  CUresult (*MemFreeHost)(void* pointer);                                     // cuMemFreeHost
  CUresult (*MemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t count,
                            CUstream stream);                                 // cuMemsetD8Async
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr dst, const void* src, size_t bytes,
                              CUstream stream);                     // cuMemcpyHtoDAsync_v2
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                              CUstream stream);                     // cuMemcpyDtoDAsync_v2
  CUresult (*MemcpyDtoH)(void* dst, CUdeviceptr src, size_t bytes);  // cuMemcpyDtoH_v2
  CUresult (*StreamCreate)(CUstream* stream, unsigned int flags);    // cuStreamCreate
  CUresult (*StreamDestroy)(CUstream stream);                        // cuStreamDestroy_v2
  CUresult (*StreamQuery)(CUstream stream);                          // cuStreamQuery
  CUresult (*StreamSynchronize)(CUstream stream);                    // cuStreamSynchronize
  CUresult (*EventCreate)(CUevent* event, unsigned int flags);       // cuEventCreate
  CUresult (*EventDestroy)(CUevent event);                           // cuEventDestroy_v2
  CUresult (*EventRecord)(CUevent event, CUstream stream);           // cuEventRecord
  CUresult (*EventElapsedTime)(float* ms, CUevent start, CUevent end);  // cuEventElapsedTime

  std::string library;     ///< what was loaded ("libcuda.so.1" as the loader found it)
  int driver_version = 0;  ///< cuDriverGetVersion: 12080 = the driver supports CUDA 12.8
};

/// The outcome of loading the driver API.
struct CudaLoad {
  const CudaApi* api = nullptr;  ///< null when libcuda.so.1, a symbol or cuInit failed
  std::string error;             ///< why, when `api` is null
};

/// Loads libcuda.so.1 once per process and calls cuInit(0). Later calls return the same result.
/// The library is never unloaded: NCCL uses the same one.
CudaLoad LoadCudaApi();

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for `result`.
std::string CudaErrorText(const CudaApi& cuda, CUresult result);

}  // namespace hkim::nccl_check
