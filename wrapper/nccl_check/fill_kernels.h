#pragma once
// Tiny device kernels for the check: fill each rank's input with a pattern whose float sum is
// exact, and count result elements that differ from the exact sum.
//
// Rank r's element i is ((i + r) mod 8) + 1, so every partial sum is a whole number of at most
// 4.5 x ranks, exactly representable in float32 (24-bit significand) for up to 3.7 million ranks,
// whatever order NCCL adds the ranks in. The result at i depends only on i mod 8 and the world.

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace hkim::nccl_check {

/// The exact all-reduce sum of the fill pattern at each residue i mod 8 for `world` ranks.
std::array<float, 8> ExpectedSums(int world);

/// Writes rank `rank`'s pattern into `data[0..count)` on `stream`.
cudaError_t LaunchFill(float* data, std::size_t count, int rank, cudaStream_t stream);

/// Counts elements of `data[0..count)` not equal to `expected[i % 8]` into counters[0] and the
/// lowest such index into counters[1] (which the caller sets to 0 and UINT64_MAX beforehand).
/// NaN (the poison) never compares equal, so untouched elements count as wrong.
cudaError_t LaunchVerify(const float* data, std::size_t count, const std::array<float, 8>& expected,
                         unsigned long long* counters, cudaStream_t stream);

}  // namespace hkim::nccl_check
