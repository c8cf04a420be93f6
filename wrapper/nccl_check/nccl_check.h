#pragma once
// The one place that knows the order of the check's stages: prepare NCCL's environment, find the
// GPUs, rendezvous (job scope), set the communicators up, sweep the sizes, read NCCL's log for the
// transport, decide, report.

#include <string>

#include "check_config.h"
#include "report.h"

namespace hkim::nccl_check {

/// Exit codes of hkim-nccl-check.
inline constexpr int kExitPass = 0;   ///< every check passed
inline constexpr int kExitFail = 1;   ///< wrong results, too little bandwidth or wrong transport
inline constexpr int kExitError = 2;  ///< could not run: settings, rendezvous, CUDA or NCCL
inline constexpr int kExitNoGpu = 3;  ///< no CUDA device is visible (or no driver library)
/// No usable libnccl.so.2 (missing, not NCCL, or older than kMinNcclVersionCode).
inline constexpr int kExitNoNccl = 4;
/// This pod could not take part: the job-scope rendezvous failed before any traffic (rank 0
/// could not listen on its port, a peer never got the NCCL unique id). Says nothing about the
/// fabric; with --json the record has "took_part": false and "rendezvous": {error, fix, port}.
inline constexpr int kExitRendezvous = 5;

/// Sets what NCCL reads from the environment before its first call: NCCL_NVLS_ENABLE=0 unless
/// set (NVLink multicast stays off), and INFO-level debug output of INIT,NET,GRAPH into
/// `log_path`, which the check reads afterwards to find the transport.
void PrepareNcclEnvironment(const std::string& log_path);

/// Runs the whole check with `config` (environment already read and finished). Writes the table
/// to stderr and, when `json_path` is non-empty, the JSON record there ("-" = stdout). Returns
/// one of the exit codes above.
int RunCheck(const CheckConfig& config, const std::string& json_path);

/// `--which-nccl`: searches for NCCL as the check would (nccl_api.h), prints the version and path
/// (or every candidate tried, and the fix) and returns kExitPass or kExitNoNccl. Needs no GPU.
int WhichNccl();

}  // namespace hkim::nccl_check
