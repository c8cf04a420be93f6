#include "allreduce_runner.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>

#include "fill_kernels.h"
#include "size_range.h"

namespace hkim::nccl_check {

static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "ncclUniqueId size changed");

namespace {

void CheckCuda(cudaError_t result, const char* what, int device) {
  if (result == cudaSuccess) return;
  throw GpuError(std::string(what) + " on GPU " + std::to_string(device) +
                 " failed: " + cudaGetErrorString(result));
}

void CheckNccl(ncclResult_t result, const char* what) {
  if (result == ncclSuccess) return;
  std::string message = std::string(what) + " failed: " + ncclGetErrorString(result);
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') message += std::string(" (") + last + ")";
  throw GpuError(message);
}

}  // namespace

struct AllReduceRunner::Device {
  int index = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
  unsigned long long* counters = nullptr;  // device: wrong count, first wrong index
};

AllReduceRunner::AllReduceRunner(const RunnerSetup& setup) : setup_(setup) {
  if (setup.max_bytes % sizeof(float) != 0 || setup.max_bytes == 0) {
    throw GpuError("the largest size must be a positive multiple of 4 bytes");
  }
  const std::size_t max_count = setup.max_bytes / sizeof(float);
  devices_.resize(static_cast<std::size_t>(setup.local_gpus));
  for (int i = 0; i < setup.local_gpus; ++i) {
    Device& d = devices_[static_cast<std::size_t>(i)];
    d.index = i;
    CheckCuda(cudaSetDevice(i), "cudaSetDevice", i);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    CheckCuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", i);
    if (free_bytes < 2 * setup.max_bytes + (std::size_t{256} << 20)) {
      throw GpuError("GPU " + std::to_string(i) + " has " + FormatByteCount(free_bytes) +
                     " free; the check needs two buffers of " + FormatByteCount(setup.max_bytes) +
                     " plus NCCL's own; lower HKIM_NCCL_CHECK_MAX_BYTES");
    }
    CheckCuda(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "cudaStreamCreate", i);
    CheckCuda(cudaEventCreate(&d.start), "cudaEventCreate", i);
    CheckCuda(cudaEventCreate(&d.stop), "cudaEventCreate", i);
    CheckCuda(cudaMalloc(&d.send, setup.max_bytes), "cudaMalloc", i);
    CheckCuda(cudaMalloc(&d.recv, setup.max_bytes), "cudaMalloc", i);
    CheckCuda(cudaMalloc(&d.counters, 2 * sizeof(unsigned long long)), "cudaMalloc", i);
    float* agree = nullptr;
    CheckCuda(cudaMalloc(&agree, sizeof(float)), "cudaMalloc", i);
    agree_buffers_.push_back(agree);
    CheckCuda(LaunchFill(d.send, max_count, setup.first_rank + i, d.stream), "fill kernel", i);
  }

  comms_.assign(static_cast<std::size_t>(setup.local_gpus), nullptr);
  if (!setup.id) {
    std::vector<int> list(static_cast<std::size_t>(setup.local_gpus));
    for (int i = 0; i < setup.local_gpus; ++i) list[static_cast<std::size_t>(i)] = i;
    CheckNccl(ncclCommInitAll(comms_.data(), setup.local_gpus, list.data()), "ncclCommInitAll");
  } else {
    ncclUniqueId id;
    std::memcpy(&id, setup.id->data(), sizeof id);
    CheckNccl(ncclGroupStart(), "ncclGroupStart");
    for (int i = 0; i < setup.local_gpus; ++i) {
      CheckCuda(cudaSetDevice(i), "cudaSetDevice", i);
      CheckNccl(ncclCommInitRank(&comms_[static_cast<std::size_t>(i)], setup.world, id,
                                 setup.first_rank + i),
                "ncclCommInitRank");
    }
    CheckNccl(ncclGroupEnd(), "ncclGroupEnd (communicator set-up)");
  }
  WaitAll();
}

AllReduceRunner::~AllReduceRunner() {
  for (ncclComm_t comm : comms_) {
    if (comm != nullptr) ncclCommDestroy(comm);
  }
  for (std::size_t i = 0; i < agree_buffers_.size(); ++i) {
    cudaSetDevice(static_cast<int>(i));
    cudaFree(agree_buffers_[i]);
  }
  for (Device& d : devices_) {
    cudaSetDevice(d.index);
    if (d.send) cudaFree(d.send);
    if (d.recv) cudaFree(d.recv);
    if (d.counters) cudaFree(d.counters);
    if (d.start) cudaEventDestroy(d.start);
    if (d.stop) cudaEventDestroy(d.stop);
    if (d.stream) cudaStreamDestroy(d.stream);
  }
}

void AllReduceRunner::LaunchAllReduce(std::size_t count) {
  CheckNccl(ncclGroupStart(), "ncclGroupStart");
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const Device& d = devices_[i];
    CheckNccl(ncclAllReduce(d.send, d.recv, count, ncclFloat, ncclSum, comms_[i], d.stream),
              "ncclAllReduce");
  }
  CheckNccl(ncclGroupEnd(), "ncclGroupEnd (all-reduce)");
}

// Waits for every local stream while watching NCCL for asynchronous errors (a peer that died),
// so a broken job fails with NCCL's reason instead of hanging the pod.
void AllReduceRunner::WaitAll() {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(setup_.collective_timeout_s));
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const Device& d = devices_[i];
    while (true) {
      const cudaError_t state = cudaStreamQuery(d.stream);
      if (state == cudaSuccess) break;
      if (state != cudaErrorNotReady) CheckCuda(state, "waiting for the stream", d.index);
      for (ncclComm_t comm : comms_) {
        if (comm == nullptr) continue;
        ncclResult_t async = ncclSuccess;
        CheckNccl(ncclCommGetAsyncError(comm, &async), "ncclCommGetAsyncError");
        CheckNccl(async, "an NCCL collective");
      }
      if (std::chrono::steady_clock::now() > deadline) {
        for (ncclComm_t& comm : comms_) {
          if (comm != nullptr) ncclCommAbort(comm);
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

SizeResult AllReduceRunner::Run(std::uint64_t bytes, int iterations, int warmup) {
  if (bytes > setup_.max_bytes || bytes % sizeof(float) != 0) {
    throw GpuError("size " + std::to_string(bytes) + " is not a multiple of 4 up to the largest");
  }
  const std::size_t count = bytes / sizeof(float);
  for (int w = 0; w < warmup; ++w) LaunchAllReduce(count);

  const unsigned long long reset[2] = {0, std::numeric_limits<unsigned long long>::max()};
  for (Device& d : devices_) {
    CheckCuda(cudaSetDevice(d.index), "cudaSetDevice", d.index);
    // 0xFF bytes make every float a NaN: an element the all-reduce does not write stays wrong.
    CheckCuda(cudaMemsetAsync(d.recv, 0xFF, bytes, d.stream), "cudaMemsetAsync", d.index);
    CheckCuda(cudaMemcpyAsync(d.counters, reset, sizeof reset, cudaMemcpyHostToDevice, d.stream),
              "cudaMemcpyAsync", d.index);
    CheckCuda(cudaEventRecord(d.start, d.stream), "cudaEventRecord", d.index);
  }
  for (int it = 0; it < iterations; ++it) LaunchAllReduce(count);
  const std::array<float, 8> expected = ExpectedSums(setup_.world);
  for (Device& d : devices_) {
    CheckCuda(cudaSetDevice(d.index), "cudaSetDevice", d.index);
    CheckCuda(cudaEventRecord(d.stop, d.stream), "cudaEventRecord", d.index);
    CheckCuda(LaunchVerify(d.recv, count, expected, d.counters, d.stream), "verify kernel",
              d.index);
  }
  WaitAll();

  SizeResult result;
  result.bytes = bytes;
  result.iterations = iterations;
  result.first_wrong_index = std::numeric_limits<std::uint64_t>::max();
  float slowest_ms = 0;
  for (Device& d : devices_) {
    float ms = 0;
    CheckCuda(cudaEventElapsedTime(&ms, d.start, d.stop), "cudaEventElapsedTime", d.index);
    slowest_ms = std::max(slowest_ms, ms);
    unsigned long long counters[2] = {0, 0};
    CheckCuda(cudaMemcpy(counters, d.counters, sizeof counters, cudaMemcpyDeviceToHost),
              "cudaMemcpy", d.index);
    result.wrong_elements += counters[0];
    if (counters[0] != 0)
      result.first_wrong_index = std::min<std::uint64_t>(result.first_wrong_index, counters[1]);
  }
  if (result.wrong_elements == 0) result.first_wrong_index = 0;
  SetTimes(result, slowest_ms / 1e3, setup_.world);
  return result;
}

double AllReduceRunner::AgreeMax(double value) {
  const float local = static_cast<float>(value);
  for (Device& d : devices_) {
    CheckCuda(cudaSetDevice(d.index), "cudaSetDevice", d.index);
    CheckCuda(cudaMemcpyAsync(agree_buffers_[static_cast<std::size_t>(d.index)], &local,
                              sizeof local, cudaMemcpyHostToDevice, d.stream),
              "cudaMemcpyAsync", d.index);
  }
  CheckNccl(ncclGroupStart(), "ncclGroupStart");
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    CheckNccl(ncclAllReduce(agree_buffers_[i], agree_buffers_[i], 1, ncclFloat, ncclMax, comms_[i],
                            devices_[i].stream),
              "ncclAllReduce (agree)");
  }
  CheckNccl(ncclGroupEnd(), "ncclGroupEnd (agree)");
  WaitAll();
  float agreed = 0;
  CheckCuda(cudaMemcpy(&agreed, agree_buffers_[0], sizeof agreed, cudaMemcpyDeviceToHost),
            "cudaMemcpy", 0);
  return agreed;
}

std::string NcclVersionString() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
  // Since NCCL 2.9 the code is major*10000 + minor*100 + patch.
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

int VisibleGpuCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

std::string DescribeGpu(int index) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) {
    return std::to_string(index) + ": unknown";
  }
  char bus[32] = "?";
  cudaDeviceGetPCIBusId(bus, sizeof bus, index);
  return std::to_string(index) + ": " + properties.name + " (" + bus + ")";
}

UniqueIdBytes NewUniqueId() {
  ncclUniqueId id;
  CheckNccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  UniqueIdBytes bytes;
  std::memcpy(bytes.data(), &id, sizeof id);
  return bytes;
}

}  // namespace hkim::nccl_check
