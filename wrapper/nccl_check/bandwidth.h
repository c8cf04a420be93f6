#pragma once
// nccl-tests' bandwidth formulas for all-reduce (doc/PERFORMANCE.md in NVIDIA/nccl-tests):
// algbw = bytes / time, busbw = algbw * 2(n-1)/n. GB/s means 1e9 bytes per second.

#include <cstdint>

namespace hkim::nccl_check {

/// One message size's measurement, as reported per size.
struct SizeResult {
  std::uint64_t bytes = 0;              ///< message size per rank
  int iterations = 0;                   ///< timed all-reduce calls
  double time_us = 0;                   ///< mean time of one all-reduce, microseconds
  double algbw_gbps = 0;                ///< bytes / time, GB/s (1e9 B/s)
  double busbw_gbps = 0;                ///< algbw * 2(n-1)/n, GB/s
  std::uint64_t wrong_elements = 0;     ///< result elements that differ from the exact sum
  std::uint64_t first_wrong_index = 0;  ///< lowest wrong element index (valid if wrong > 0)
};

/// Algorithm bandwidth in GB/s: bytes / seconds / 1e9. Returns 0 when seconds <= 0.
double AlgorithmBandwidthGBps(std::uint64_t bytes, double seconds);

/// All-reduce bus-bandwidth factor 2(n-1)/n; 0 for n <= 1 (nothing crosses a link).
double AllReduceBusFactor(int ranks);

/// Bus bandwidth in GB/s for an all-reduce over `ranks` ranks: algbw * 2(n-1)/n.
double AllReduceBusBandwidthGBps(double algbw_gbps, int ranks);

/// Fills time/algbw/busbw of `result` from the total time of `result.iterations` calls.
void SetTimes(SizeResult& result, double total_seconds, int ranks);

}  // namespace hkim::nccl_check
