#pragma once
// Output of the check: a human table (stderr) and a JSON record (--json), from one CheckReport.

#include <string>
#include <vector>

#include "bandwidth.h"
#include "check_config.h"
#include "transport_log.h"
#include "verdict.h"

namespace hkim::nccl_check {

/// Everything one run measured and decided.
struct CheckReport {
  CheckConfig config;
  int ranks = 0;  ///< world size (all pods x local GPUs)
  int local_gpus = 0;
  int first_rank = 0;               ///< this process's first rank (ordinal x local GPUs)
  std::string nccl_version;         ///< from ncclGetVersion, "2.28.9"
  std::string nccl_library;         ///< the libnccl.so.2 loaded (nccl_api.h)
  std::string cuda_driver;          ///< "12.8" (what the driver supports)
  std::vector<std::string> gpus;    ///< "0: NVIDIA H200 (bus 0000:1a:00.0)" per local GPU
  std::vector<SizeResult> results;  ///< one per size, ascending
  TransportReport transport;
  Verdict verdict;
  double init_seconds = 0;   ///< rendezvous + NCCL communicator set-up
  double total_seconds = 0;  ///< the whole check, start to verdict
};

/// The human table: a header with the set-up, one row per size (size, count, time, algbw, busbw,
/// #wrong), the transport line, and the verdict with its reasons.
std::string FormatTable(const CheckReport& report);

/// The JSON record (keys sorted, so the layout is stable): config, ranks, results, transport,
/// verdict, timings.
std::string FormatJson(const CheckReport& report);

/// The JSON record of a run that could not take part (the rendezvous failed, exit status
/// kExitRendezvous): "took_part": false, "rendezvous": {error, fix, port}, "failures".
std::string NoRendezvousJson(const CheckConfig& config, const std::string& error,
                             const std::string& fix);

}  // namespace hkim::nccl_check
