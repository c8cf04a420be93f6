#pragma once
// The check's settings: the pod runtime contract's environment (docs/CONTRACTS.md,
// HKIM_NCCL_CHECK*, HKIM_REPLICAS, HKIM_POD_NAME, MASTER_ADDR, HKIM_RENDEZVOUS_PORT), with
// command-line overrides for running it by hand and in benchmarks.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "transport_log.h"

namespace hkim::nccl_check {

enum class Scope { kLocal, kJob };
enum class Policy { kOff, kWarn, kFail };

/// The transport the profile requires (HKIM_NCCL_CHECK_TRANSPORT).
/// kNetIbGdr: NET/IB with GPUDirect RDMA on every IB connection (NCCL logs "via NET/IB/<dev>/GDRDMA";
/// without it, "via NET/IB/<dev>" and every transfer is staged through host memory).
enum class RequiredTransport { kAny, kNetIb, kNetIbGdr, kNetSocket, kP2P };

std::string_view ScopeName(Scope scope);
std::string_view PolicyName(Policy policy);
std::string_view RequiredTransportName(RequiredTransport transport);

inline constexpr int kDefaultRendezvousPort = 29650;

/// Everything one run of the check needs to know.
struct CheckConfig {
  Policy policy = Policy::kFail;  ///< HKIM_NCCL_CHECK (reported; exit code decides)
  Scope scope = Scope::kLocal;    ///< HKIM_NCCL_CHECK_SCOPE
  double min_busbw_gbps = 0;      ///< HKIM_NCCL_CHECK_MIN_BUSBW_GBPS; 0 = no minimum
  std::uint64_t at_bytes = 0;     ///< HKIM_NCCL_CHECK_AT_BYTES; 0 = max_bytes
  std::uint64_t min_bytes = std::uint64_t{1} << 20;       ///< smallest size tried (--min-bytes)
  std::uint64_t max_bytes = std::uint64_t{1} << 30;       ///< HKIM_NCCL_CHECK_MAX_BYTES
  RequiredTransport transport = RequiredTransport::kAny;  ///< HKIM_NCCL_CHECK_TRANSPORT
  // Job identity (scope job).
  int replicas = 1;                              ///< HKIM_REPLICAS
  std::string pod_name;                          ///< HKIM_POD_NAME
  int ordinal = 0;                               ///< numeric suffix of pod_name
  std::string master_addr;                       ///< MASTER_ADDR
  int rendezvous_port = kDefaultRendezvousPort;  ///< HKIM_RENDEZVOUS_PORT
  double rendezvous_timeout_s = 300;             ///< how long rank 0 / peers wait for each other
  // Measurement.
  int gpus = 0;                 ///< local GPUs to use; 0 = all visible
  int iterations = 0;           ///< timed calls per size; 0 = planned (PlanIterations)
  double size_budget_s = 0.25;  ///< planned timed calls of one size stay within this
  int warmup_iterations = 2;    ///< untimed calls per size
  std::string nccl_log_path;    ///< keep NCCL's debug log here; empty = temp, removed
};

/// A setting that could not be read: which variable or flag, what was wrong, how to fix it.
struct ConfigError {
  std::string name;
  std::string message;
  std::string fix;
};

/// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// Reads the contract's variables through `env` into `config` (which holds the defaults and is
/// changed only for variables that are set and valid). Appends one error per bad value.
void ReadEnvironment(const EnvLookup& env, CheckConfig& config, std::vector<ConfigError>& errors);

/// Cross-checks after environment and flags are applied (job scope needs replicas, a pod name
/// with an ordinal below replicas and MASTER_ADDR; sizes must be ordered). Fills at_bytes with
/// max_bytes when unset.
void FinishConfig(CheckConfig& config, std::vector<ConfigError>& errors);

/// The ordinal of a StatefulSet pod name: its numeric suffix after the last '-'
/// ("train-12" -> 12). nullopt when there is none.
std::optional<int> PodOrdinal(const std::string& pod_name);

/// The StatefulSet part of a pod name ("train-12" -> "train"); the whole name without a suffix.
std::string PodSet(const std::string& pod_name);

/// Timed iterations for a message size: 4 GiB worth of traffic, at least 10, at most 100.
/// Depends on the size only, so every rank of a job runs the same number of collectives.
int IterationsFor(std::uint64_t bytes);

/// Timed iterations for `bytes` on a link whose previous size (`previous_bytes`) took
/// `previous_seconds_per_call` (the slowest rank's, agreed by all ranks): IterationsFor(bytes),
/// cut so that the predicted time (per-call time scaled by the size ratio) stays within
/// `budget_s`, and at least 1. Without a previous measurement (previous_bytes == 0),
/// IterationsFor(bytes). Keeps a slow link (a TCP fallback) from stretching the check to minutes,
/// while every rank, given the same agreed time, plans the same number of collectives.
int PlanIterations(std::uint64_t bytes, std::uint64_t previous_bytes,
                   double previous_seconds_per_call, double budget_s);

/// "HKIM_NCCL_CHECK_MAX_BYTES='12Q' is not a byte count\nfix: ..." (one error per line pair).
std::string FormatConfigError(const ConfigError& error);

}  // namespace hkim::nccl_check
