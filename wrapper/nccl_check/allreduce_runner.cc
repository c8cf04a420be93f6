#include "allreduce_runner.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>

#include "fill_pattern.h"
#include "size_range.h"

namespace hkim::nccl_check {

static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "ncclUniqueId size changed");

namespace {

// Results are read back through this much pinned memory at a time.
constexpr std::size_t kStagingBytes = std::size_t{64} << 20;

void* DevicePointer(CUdeviceptr pointer) { return reinterpret_cast<void*>(pointer); }

}  // namespace

struct AllReduceRunner::Device {
  int index = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;  // the device's primary context, shared with NCCL's runtime
  CUstream stream = nullptr;
  CUevent start = nullptr;
  CUevent stop = nullptr;
  CUdeviceptr send = 0;
  CUdeviceptr recv = 0;
  CUdeviceptr agree = 0;  // one float for AgreeMax
};

void AllReduceRunner::CheckCuda(CUresult result, const char* what, int device) const {
  if (result == CUDA_SUCCESS) return;
  throw GpuError(std::string(what) + " on GPU " + std::to_string(device) +
                 " failed: " + CudaErrorText(cuda_, result));
}

void AllReduceRunner::CheckNccl(ncclResult_t result, const char* what) const {
  if (result == ncclSuccess) return;
  std::string message = std::string(what) + " failed: " + nccl_.GetErrorString(result);
  const char* last = nccl_.GetLastError ? nccl_.GetLastError(nullptr) : nullptr;
  if (last != nullptr && *last != '\0') message += std::string(" (") + last + ")";
  throw GpuError(message);
}

// NCCL's CUDA runtime uses the context current on the thread, so selecting a GPU for both is
// making its primary context current.
void AllReduceRunner::MakeCurrent(const Device& d) const {
  CheckCuda(cuda_.CtxSetCurrent(d.context), "cuCtxSetCurrent", d.index);
}

// One period of the pattern from the host, then copies that double the filled prefix.
void AllReduceRunner::Fill(const Device& d, std::size_t count, int rank) {
  const std::array<float, kPatternPeriod> pattern = FillPattern(rank);
  const std::size_t bytes = count * sizeof(float);
  std::size_t filled = std::min(bytes, sizeof pattern);
  CheckCuda(cuda_.MemcpyHtoDAsync(d.send, pattern.data(), filled, d.stream), "cuMemcpyHtoDAsync",
            d.index);
  while (filled < bytes) {
    const std::size_t n = std::min(filled, bytes - filled);
    CheckCuda(cuda_.MemcpyDtoDAsync(d.send + filled, d.send, n, d.stream), "cuMemcpyDtoDAsync",
              d.index);
    filled += n;
  }
  CheckCuda(cuda_.StreamSynchronize(d.stream), "filling the input", d.index);
}

AllReduceRunner::AllReduceRunner(const CudaApi& cuda, const NcclApi& nccl,
                                 const RunnerSetup& setup)
    : cuda_(cuda), nccl_(nccl), setup_(setup) {
  if (setup.max_bytes % sizeof(float) != 0 || setup.max_bytes == 0) {
    throw GpuError("the largest size must be a positive multiple of 4 bytes");
  }
  devices_.resize(static_cast<std::size_t>(setup.local_gpus));
  for (int i = 0; i < setup.local_gpus; ++i) {
    Device& d = devices_[static_cast<std::size_t>(i)];
    d.index = i;
    CheckCuda(cuda_.DeviceGet(&d.device, i), "cuDeviceGet", i);
    CheckCuda(cuda_.DevicePrimaryCtxRetain(&d.context, d.device), "cuDevicePrimaryCtxRetain", i);
    MakeCurrent(d);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    CheckCuda(cuda_.MemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo", i);
    if (free_bytes < 2 * setup.max_bytes + (std::size_t{256} << 20)) {
      throw GpuError("GPU " + std::to_string(i) + " has " + FormatByteCount(free_bytes) +
                     " free; the check needs two buffers of " + FormatByteCount(setup.max_bytes) +
                     " plus NCCL's own; lower HKIM_NCCL_CHECK_MAX_BYTES");
    }
    CheckCuda(cuda_.StreamCreate(&d.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate", i);
    CheckCuda(cuda_.EventCreate(&d.start, CU_EVENT_DEFAULT), "cuEventCreate", i);
    CheckCuda(cuda_.EventCreate(&d.stop, CU_EVENT_DEFAULT), "cuEventCreate", i);
    CheckCuda(cuda_.MemAlloc(&d.send, setup.max_bytes), "cuMemAlloc", i);
    CheckCuda(cuda_.MemAlloc(&d.recv, setup.max_bytes), "cuMemAlloc", i);
    CheckCuda(cuda_.MemAlloc(&d.agree, sizeof(float)), "cuMemAlloc", i);
    Fill(d, setup.max_bytes / sizeof(float), setup.first_rank + i);
  }
  staging_bytes_ = std::min<std::size_t>(setup.max_bytes, kStagingBytes);
  CheckCuda(cuda_.MemHostAlloc(&staging_, staging_bytes_, 0), "cuMemHostAlloc", 0);

  comms_.assign(static_cast<std::size_t>(setup.local_gpus), nullptr);
  if (!setup.id) {
    std::vector<int> list(static_cast<std::size_t>(setup.local_gpus));
    for (int i = 0; i < setup.local_gpus; ++i) list[static_cast<std::size_t>(i)] = i;
    CheckNccl(nccl_.CommInitAll(comms_.data(), setup.local_gpus, list.data()), "ncclCommInitAll");
  } else {
    ncclUniqueId id;
    std::memcpy(&id, setup.id->data(), sizeof id);
    CheckNccl(nccl_.GroupStart(), "ncclGroupStart");
    for (int i = 0; i < setup.local_gpus; ++i) {
      MakeCurrent(devices_[static_cast<std::size_t>(i)]);
      CheckNccl(nccl_.CommInitRank(&comms_[static_cast<std::size_t>(i)], setup.world, id,
                                   setup.first_rank + i),
                "ncclCommInitRank");
    }
    CheckNccl(nccl_.GroupEnd(), "ncclGroupEnd (communicator set-up)");
  }
  WaitAll();
}

AllReduceRunner::~AllReduceRunner() {
  for (ncclComm_t comm : comms_) {
    if (comm != nullptr) nccl_.CommDestroy(comm);
  }
  if (staging_ != nullptr) cuda_.MemFreeHost(staging_);
  for (Device& d : devices_) {
    if (d.context == nullptr) continue;
    cuda_.CtxSetCurrent(d.context);
    if (d.send) cuda_.MemFree(d.send);
    if (d.recv) cuda_.MemFree(d.recv);
    if (d.agree) cuda_.MemFree(d.agree);
    if (d.start) cuda_.EventDestroy(d.start);
    if (d.stop) cuda_.EventDestroy(d.stop);
    if (d.stream) cuda_.StreamDestroy(d.stream);
    cuda_.DevicePrimaryCtxRelease(d.device);
  }
}

void AllReduceRunner::LaunchAllReduce(std::size_t count) {
  CheckNccl(nccl_.GroupStart(), "ncclGroupStart");
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const Device& d = devices_[i];
    CheckNccl(nccl_.AllReduce(DevicePointer(d.send), DevicePointer(d.recv), count, ncclFloat,
                              ncclSum, comms_[i], d.stream),
              "ncclAllReduce");
  }
  CheckNccl(nccl_.GroupEnd(), "ncclGroupEnd (all-reduce)");
}

// Waits for every local stream while watching NCCL for asynchronous errors (a peer that died),
// so a broken job fails with NCCL's reason instead of hanging the pod.
void AllReduceRunner::WaitAll() {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(setup_.collective_timeout_s));
  for (const Device& d : devices_) {
    while (true) {
      const CUresult state = cuda_.StreamQuery(d.stream);
      if (state == CUDA_SUCCESS) break;
      if (state != CUDA_ERROR_NOT_READY) CheckCuda(state, "waiting for the stream", d.index);
      for (ncclComm_t comm : comms_) {
        if (comm == nullptr) continue;
        ncclResult_t async = ncclSuccess;
        CheckNccl(nccl_.CommGetAsyncError(comm, &async), "ncclCommGetAsyncError");
        CheckNccl(async, "an NCCL collective");
      }
      if (std::chrono::steady_clock::now() > deadline) {
        for (ncclComm_t& comm : comms_) {
          if (comm != nullptr) nccl_.CommAbort(comm);
          comm = nullptr;
        }
        throw GpuError("an all-reduce did not finish within " +
                       std::to_string(static_cast<int>(setup_.collective_timeout_s)) +
                       " s; a peer is stuck or gone (see NCCL's warnings)");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

// Reads the result back in pinned slices and compares every element with the exact sum.
void AllReduceRunner::Verify(const Device& d, std::size_t count, SizeResult& result) {
  const std::array<float, kPatternPeriod> expected = ExpectedSums(setup_.world);
  const std::size_t slice = staging_bytes_ / sizeof(float);
  for (std::size_t first = 0; first < count; first += slice) {
    const std::size_t n = std::min(slice, count - first);
    CheckCuda(cuda_.MemcpyDtoH(staging_, d.recv + first * sizeof(float), n * sizeof(float)),
              "cuMemcpyDtoH", d.index);
    const WrongCount wrong = CountWrong(static_cast<const float*>(staging_), n, first, expected);
    if (wrong.wrong == 0) continue;
    result.first_wrong_index = std::min(result.first_wrong_index, wrong.first_wrong_index);
    result.wrong_elements += wrong.wrong;
  }
}

SizeResult AllReduceRunner::Run(std::uint64_t bytes, int iterations, int warmup) {
  if (bytes > setup_.max_bytes || bytes % sizeof(float) != 0) {
    throw GpuError("size " + std::to_string(bytes) + " is not a multiple of 4 up to the largest");
  }
  const std::size_t count = bytes / sizeof(float);
  for (int w = 0; w < warmup; ++w) LaunchAllReduce(count);

  for (const Device& d : devices_) {
    MakeCurrent(d);
    // 0xFF bytes make every float a NaN: an element the all-reduce does not write stays wrong.
    CheckCuda(cuda_.MemsetD8Async(d.recv, 0xFF, bytes, d.stream), "cuMemsetD8Async", d.index);
    CheckCuda(cuda_.EventRecord(d.start, d.stream), "cuEventRecord", d.index);
  }
  for (int it = 0; it < iterations; ++it) LaunchAllReduce(count);
  for (const Device& d : devices_) {
    MakeCurrent(d);
    CheckCuda(cuda_.EventRecord(d.stop, d.stream), "cuEventRecord", d.index);
  }
  WaitAll();

  SizeResult result;
  result.bytes = bytes;
  result.iterations = iterations;
  result.first_wrong_index = std::numeric_limits<std::uint64_t>::max();
  float slowest_ms = 0;
  for (const Device& d : devices_) {
    MakeCurrent(d);
    float ms = 0;
    CheckCuda(cuda_.EventElapsedTime(&ms, d.start, d.stop), "cuEventElapsedTime", d.index);
    slowest_ms = std::max(slowest_ms, ms);
    Verify(d, count, result);
  }
  if (result.wrong_elements == 0) result.first_wrong_index = 0;
  SetTimes(result, slowest_ms / 1e3, setup_.world);
  return result;
}

double AllReduceRunner::AgreeMax(double value) {
  const float local = static_cast<float>(value);
  for (const Device& d : devices_) {
    MakeCurrent(d);
    CheckCuda(cuda_.MemcpyHtoDAsync(d.agree, &local, sizeof local, d.stream), "cuMemcpyHtoDAsync",
              d.index);
  }
  CheckNccl(nccl_.GroupStart(), "ncclGroupStart");
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    CheckNccl(nccl_.AllReduce(DevicePointer(devices_[i].agree), DevicePointer(devices_[i].agree),
                              1, ncclFloat, ncclMax, comms_[i], devices_[i].stream),
              "ncclAllReduce (agree)");
  }
  CheckNccl(nccl_.GroupEnd(), "ncclGroupEnd (agree)");
  WaitAll();
  float agreed = 0;
  MakeCurrent(devices_[0]);
  CheckCuda(cuda_.MemcpyDtoH(&agreed, devices_[0].agree, sizeof agreed), "cuMemcpyDtoH", 0);
  return agreed;
}

int VisibleGpuCount(const CudaApi& cuda) {
  int count = 0;
  if (cuda.DeviceGetCount(&count) != CUDA_SUCCESS) return 0;
  return count;
}

std::string DescribeGpu(const CudaApi& cuda, int index) {
  CUdevice device = 0;
  char name[256] = "unknown";
  char bus[32] = "?";
  if (cuda.DeviceGet(&device, index) == CUDA_SUCCESS) {
    cuda.DeviceGetName(name, sizeof name, device);
    cuda.DeviceGetPCIBusId(bus, sizeof bus, device);
  }
  return std::to_string(index) + ": " + name + " (" + bus + ")";
}

UniqueIdBytes NewUniqueId(const NcclApi& nccl) {
  ncclUniqueId id;
  const ncclResult_t result = nccl.GetUniqueId(&id);
  if (result != ncclSuccess) {
    throw GpuError(std::string("ncclGetUniqueId failed: ") + nccl.GetErrorString(result));
  }
  UniqueIdBytes bytes;
  std::memcpy(bytes.data(), &id, sizeof id);
  return bytes;
}

}  // namespace hkim::nccl_check
