#include "fill_kernels.h"

namespace hkim::nccl_check {
namespace {

struct Expected {
  float value[8];
};

__global__ void FillKernel(float* data, std::size_t count, int rank) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    data[i] = static_cast<float>(((i + static_cast<std::size_t>(rank)) & 7) + 1);
  }
}

__global__ void VerifyKernel(const float* data, std::size_t count, Expected expected,
                             unsigned long long* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0;
  unsigned long long first = ~0ull;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    if (!(data[i] == expected.value[i & 7])) {
      if (wrong == 0) first = i;
      ++wrong;
    }
  }
  if (wrong != 0) {
    atomicAdd(&counters[0], wrong);
    atomicMin(&counters[1], first);
  }
}

unsigned Blocks(std::size_t count) {
  constexpr std::size_t kThreads = 256;
  constexpr std::size_t kMaxBlocks = 4096;
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

}  // namespace

std::array<float, 8> ExpectedSums(int world) {
  std::array<float, 8> sums{};
  for (int residue = 0; residue < 8; ++residue) {
    // sum over r of ((residue + r) mod 8) + 1: whole cycles add 36, the rest one by one.
    long long total = static_cast<long long>(world / 8) * 36;
    for (int r = 0; r < world % 8; ++r) total += ((residue + r) & 7) + 1;
    sums[residue] = static_cast<float>(total);
  }
  return sums;
}

cudaError_t LaunchFill(float* data, std::size_t count, int rank, cudaStream_t stream) {
  FillKernel<<<Blocks(count), 256, 0, stream>>>(data, count, rank);
  return cudaGetLastError();
}

cudaError_t LaunchVerify(const float* data, std::size_t count, const std::array<float, 8>& expected,
                         unsigned long long* counters, cudaStream_t stream) {
  Expected e;
  for (int k = 0; k < 8; ++k) e.value[k] = expected[k];
  VerifyKernel<<<Blocks(count), 256, 0, stream>>>(data, count, e, counters);
  return cudaGetLastError();
}

}  // namespace hkim::nccl_check
