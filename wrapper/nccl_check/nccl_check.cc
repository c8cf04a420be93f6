#include "nccl_check.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "allreduce_runner.h"
#include "common/read_file.h"
#include "rendezvous.h"
#include "size_range.h"
#include "verdict.h"

namespace hkim::nccl_check {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int Error(const std::string& message, const std::string& fix) {
  std::cerr << "hkim-nccl-check: error: " << message << "\nfix: " << fix << "\n";
  return kExitError;
}

// A temporary folder for NCCL's log, removed with its file when the check ends.
class TempLog {
 public:
  explicit TempLog(const std::string& keep_path) {
    if (!keep_path.empty()) {
      path_ = keep_path;
      return;
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/hkim-nccl-check.XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) {
      dir_ = pattern;
      path_ = dir_ + "/nccl.log";
    }
  }
  TempLog(const TempLog&) = delete;
  TempLog& operator=(const TempLog&) = delete;
  ~TempLog() {
    if (dir_.empty()) return;
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

int NoNccl(const NcclLoad& load) {
  std::cerr << "hkim-nccl-check: error: " << load.error << "\n";
  for (const std::string& tried : load.tried) std::cerr << "  tried " << tried << "\n";
  std::cerr << "fix: " << load.fix << "\n";
  return kExitNoNccl;
}

}  // namespace

int WhichNccl() {
  const NcclLoad load = LoadNcclApi();
  if (load.api == nullptr) return NoNccl(load);
  std::cout << "NCCL " << load.api->version << " " << load.api->path << "\n";
  return kExitPass;
}

void PrepareNcclEnvironment(const std::string& log_path) {
  ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  // The transport is read from NCCL's INFO lines, so these override a quieter setting; the job's
  // own environment is untouched (the check runs as the wrapper's child).
  ::setenv("NCCL_DEBUG", "INFO", 1);
  ::setenv("NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH", 1);
  if (!log_path.empty()) ::setenv("NCCL_DEBUG_FILE", log_path.c_str(), 1);
}

namespace {

// What the report says about this pod before any traffic: the GPUs taking part, the ranks they
// are in the job (or in this pod alone), the NCCL library and the CUDA driver.
void DescribeRun(const CheckConfig& config, const CudaApi& cuda, const NcclApi& nccl, int visible,
                 bool job, CheckReport& report) {
  report.local_gpus = config.gpus > 0 ? config.gpus : visible;
  report.ranks = job ? config.replicas * report.local_gpus : report.local_gpus;
  report.first_rank = job ? config.ordinal * report.local_gpus : 0;
  report.nccl_version = nccl.version;
  report.nccl_library = nccl.path;
  report.cuda_driver = std::to_string(cuda.driver_version / 1000) + "." +
                       std::to_string(cuda.driver_version % 1000 / 10);
  for (int i = 0; i < report.local_gpus; ++i) report.gpus.push_back(DescribeGpu(cuda, i));
}

// The job's NCCL unique id, the same in every pod: ordinal 0 makes it and serves it to the
// others, which fetch it. Warnings are printed here; the caller stops on a status that is not ok.
RendezvousStatus ShareUniqueId(const CheckConfig& config, const NcclApi& nccl, int local_gpus,
                               UniqueIdBytes& id) {
  RendezvousIdentity self{PodSet(config.pod_name), config.ordinal, config.replicas, local_gpus};
  RendezvousStatus status;
  if (config.ordinal == 0) {
    id = NewUniqueId(nccl);
    if (config.replicas > 1) {
      RendezvousServer server;
      status = server.Listen("", config.rendezvous_port);
      if (status.ok) status = server.Serve(self, id, config.rendezvous_timeout_s);
    }
  } else {
    status = FetchUniqueId(self, config.master_addr, config.rendezvous_port,
                           config.rendezvous_timeout_s, id);
  }
  for (const std::string& warning : status.warnings) {
    std::cerr << "hkim-nccl-check: warning: " << warning << "\n";
  }
  return status;
}

// One all-reduce per size. Without --iterations each size gets as many as fit its time budget,
// planned from the previous size's slowest rank (AgreeMax) so every rank runs the same count.
void RunSizeSweep(const CheckConfig& config, const std::vector<std::uint64_t>& sizes,
                  AllReduceRunner& runner, CheckReport& report) {
  std::uint64_t previous_bytes = 0;
  double previous_seconds = 0;
  for (const std::uint64_t bytes : sizes) {
    const int iterations =
        config.iterations > 0
            ? config.iterations
            : PlanIterations(bytes, previous_bytes, previous_seconds, config.size_budget_s);
    const SizeResult result =
        runner.Run(bytes, iterations, std::min(config.warmup_iterations, iterations));
    report.results.push_back(result);
    if (config.iterations == 0) {
      previous_bytes = bytes;
      previous_seconds = runner.AgreeMax(result.time_us * 1e-6);
    }
  }
}

// The table on stderr, the JSON where --json asks; the exit code follows the verdict.
int WriteReport(const CheckReport& report, const std::string& json_path) {
  std::cerr << FormatTable(report);
  if (!json_path.empty()) {
    const std::string json = FormatJson(report);
    if (json_path == "-") {
      std::cout << json << std::flush;
    } else {
      std::ofstream out(json_path);
      out << json;
      if (!out) return Error("cannot write " + json_path, "give a writable --json path");
    }
  }
  return report.verdict.passed ? kExitPass : kExitFail;
}

// The rendezvous failed: this pod never measured anything. A distinct exit status and record,
// so a caller (hkim-health's localization) does not take it for a slow or broken fabric.
int NoRendezvous(const CheckConfig& config, const RendezvousStatus& status,
                 const std::string& json_path) {
  std::cerr << "hkim-nccl-check: error: rendezvous: " << status.error << "\nfix: " << status.fix
            << "\n";
  if (!json_path.empty()) {
    const std::string json = NoRendezvousJson(config, status.error, status.fix);
    if (json_path == "-") {
      std::cout << json << std::flush;
    } else {
      std::ofstream(json_path) << json;
    }
  }
  return kExitRendezvous;
}

}  // namespace

int RunCheck(const CheckConfig& config, const std::string& json_path) {
  const Clock::time_point start = Clock::now();
  TempLog log(config.nccl_log_path);
  PrepareNcclEnvironment(log.path());

  CheckReport report;
  report.config = config;
  const CudaLoad cuda_load = LoadCudaApi();
  const int visible = cuda_load.api ? VisibleGpuCount(*cuda_load.api) : 0;
  if (visible == 0) {
    std::cerr << "hkim-nccl-check: error: no CUDA device is visible"
              << (cuda_load.api ? "" : " (" + cuda_load.error + ")")
              << "\nfix: request nvidia.com/gpu in the pod, or set HKIM_NCCL_CHECK=off\n";
    return kExitNoGpu;
  }
  const CudaApi& cuda = *cuda_load.api;
  const NcclLoad nccl_load = LoadNcclApi();
  if (nccl_load.api == nullptr) return NoNccl(nccl_load);
  const NcclApi& nccl = *nccl_load.api;
  if (config.gpus > visible) {
    return Error("--gpus " + std::to_string(config.gpus) + " but only " + std::to_string(visible) +
                     " GPU(s) are visible",
                 "ask for at most " + std::to_string(visible));
  }
  const bool job = config.scope == Scope::kJob;
  DescribeRun(config, cuda, nccl, visible, job, report);

  const std::vector<std::uint64_t> sizes =
      MakeSizeSweep(config.min_bytes, config.max_bytes, config.at_bytes, sizeof(float));

  try {
    const Clock::time_point init_start = Clock::now();
    RunnerSetup setup;
    setup.local_gpus = report.local_gpus;
    setup.first_rank = report.first_rank;
    setup.world = report.ranks;
    setup.max_bytes = sizes.empty() ? sizeof(float) : sizes.back();
    if (job) {
      UniqueIdBytes id{};
      const RendezvousStatus status = ShareUniqueId(config, nccl, report.local_gpus, id);
      if (!status.ok) return NoRendezvous(config, status, json_path);
      setup.id = id;
    }
    AllReduceRunner runner(cuda, nccl, setup);
    report.init_seconds = Since(init_start);
    RunSizeSweep(config, sizes, runner, report);
  } catch (const GpuError& error) {
    return Error(error.what(),
                 "see NCCL's warnings above; check the GPUs (nvidia-smi) and the NCCL_* settings");
  }

  report.transport = ParseNcclLog(wrapper::ReadWholeFile(log.path()).value_or(""));
  report.verdict = Decide(config, report.results, report.ranks, report.transport);
  report.total_seconds = Since(start);
  return WriteReport(report, json_path);
}

}  // namespace hkim::nccl_check
