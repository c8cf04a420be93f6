#include "bandwidth.h"

namespace hkim::nccl_check {

double AlgorithmBandwidthGBps(std::uint64_t bytes, double seconds) {
  if (seconds <= 0) return 0;
  return static_cast<double>(bytes) / seconds / 1e9;
}

double AllReduceBusFactor(int ranks) {
  if (ranks <= 1) return 0;
  return 2.0 * (ranks - 1) / ranks;
}

double AllReduceBusBandwidthGBps(double algbw_gbps, int ranks) {
  return algbw_gbps * AllReduceBusFactor(ranks);
}

void SetTimes(SizeResult& result, double total_seconds, int ranks) {
  const double per_call = result.iterations > 0 ? total_seconds / result.iterations : 0;
  result.time_us = per_call * 1e6;
  result.algbw_gbps = AlgorithmBandwidthGBps(result.bytes, per_call);
  result.busbw_gbps = AllReduceBusBandwidthGBps(result.algbw_gbps, ranks);
}

}  // namespace hkim::nccl_check
