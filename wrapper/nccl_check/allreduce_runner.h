#pragma once
// Drives float32-sum all-reduce over this process's GPUs with NCCL: one communicator per local
// GPU, all launched together in an NCCL group, either as the whole world (local scope,
// ncclCommInitAll) or as ranks first_rank.. of a larger world (job scope, ncclCommInitRank per
// GPU inside ncclGroupStart/End). CUDA and NCCL are reached only through the run-time loaded
// CudaApi and NcclApi; inputs are written and results checked with copies, not kernels.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bandwidth.h"
#include "cuda_api.h"
#include "nccl_api.h"
#include "rendezvous.h"

namespace hkim::nccl_check {

/// A CUDA or NCCL failure, with the call that failed and the fix when one is known.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How this process takes part.
struct RunnerSetup {
  int local_gpus = 1;                 ///< GPUs 0..local_gpus-1 of the visible ones
  int first_rank = 0;                 ///< rank of local GPU 0
  int world = 1;                      ///< all ranks of the job
  std::optional<UniqueIdBytes> id;    ///< set in job scope; unset = ncclCommInitAll
  std::uint64_t max_bytes = 0;        ///< buffers are sized for this
  double collective_timeout_s = 120;  ///< a collective that takes longer aborts the check
};

/// Owns communicators, streams, events and buffers; frees them on destruction.
class AllReduceRunner {
 public:
  /// Allocates buffers, fills the inputs and creates the communicators. Throws GpuError.
  /// `cuda` and `nccl` must outlive the runner.
  AllReduceRunner(const CudaApi& cuda, const NcclApi& nccl, const RunnerSetup& setup);
  AllReduceRunner(const AllReduceRunner&) = delete;
  AllReduceRunner& operator=(const AllReduceRunner&) = delete;
  ~AllReduceRunner();

  /// Runs `warmup` untimed and then `iterations` timed all-reduces of `bytes` (out of place,
  /// into a poisoned buffer), checks every element of every local result, and returns the
  /// measurement (time = slowest local GPU). Throws GpuError.
  SizeResult Run(std::uint64_t bytes, int iterations, int warmup);

  /// The largest `value` over every rank of the world (a one-float all-reduce), so that all ranks
  /// take the same decisions from their own measurements. Throws GpuError.
  double AgreeMax(double value);

 private:
  struct Device;
  void CheckCuda(CUresult result, const char* what, int device) const;
  void CheckNccl(ncclResult_t result, const char* what) const;
  void MakeCurrent(const Device& d) const;
  void Fill(const Device& d, std::size_t count, int rank);
  void Verify(const Device& d, std::size_t count, SizeResult& result);
  void LaunchAllReduce(std::size_t count);
  void WaitAll();

  const CudaApi& cuda_;
  const NcclApi& nccl_;
  RunnerSetup setup_;
  std::vector<Device> devices_;
  std::vector<ncclComm_t> comms_;
  void* staging_ = nullptr;  // pinned host memory for reading results back
  std::size_t staging_bytes_ = 0;
};

/// Visible CUDA devices (honours CUDA_VISIBLE_DEVICES).
int VisibleGpuCount(const CudaApi& cuda);

/// "0: NVIDIA H200 (0000:1A:00.0)" for local GPU `index`.
std::string DescribeGpu(const CudaApi& cuda, int index);

/// A fresh NCCL unique id (rank 0 of a job). Throws GpuError.
UniqueIdBytes NewUniqueId(const NcclApi& nccl);

}  // namespace hkim::nccl_check
