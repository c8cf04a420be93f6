#pragma once
// NCCL, loaded at run time from the training image's own libnccl.so.2, so the check measures the
// NCCL that the job will use (not one baked in at build time). nccl.h is used for its types only.
//
// Search order (docs/CONTRACTS.md, pod runtime contract):
//   1. HKIM_NCCL_LIBRARY: a path to the library; when set it is the only candidate.
//   2. libnccl.so.2 in each LD_LIBRARY_PATH folder, in order.
//   3. PyTorch wheels' NCCL (nvidia/nccl/lib/libnccl.so.2, then torch/lib/libnccl.so.2) under
//      each Python package folder: $VIRTUAL_ENV, $CONDA_PREFIX, the prefix of each PATH folder
//      that holds python3 (a venv on PATH), the PYTHONPATH entries, /opt/conda, /usr/local and
//      /usr (lib/python3*/site-packages and dist-packages), and
//      /usr/lib/python3/dist-packages: the NCCL a pip-installed PyTorch loads.
//   4. "libnccl.so.2" by the dynamic loader's own search (/etc/ld.so.cache, system folders),
//      where NGC images, whose PyTorch is built against it, install NCCL.
// The first candidate that loads, exports the NCCL API and is at least kMinNcclVersionCode wins.

#include <nccl.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hkim::nccl_check {

/// NCCL 2.12.0: ncclGetVersion's code is major*10000 + minor*100 + patch (2.9 on), and every
/// call below exists with this signature.
inline constexpr int kMinNcclVersionCode = 21200;

/// Function pointers into libnccl.so.2, each loaded from the symbol of the same name with the
/// "nccl" prefix (GetVersion = ncclGetVersion).
struct NcclApi {
  ncclResult_t (*GetVersion)(int* version);
  const char* (*GetErrorString)(ncclResult_t result);
  const char* (*GetLastError)(ncclComm_t comm);  ///< null before NCCL 2.13
  ncclResult_t (*GetUniqueId)(ncclUniqueId* id);
  ncclResult_t (*CommInitRank)(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank);
  ncclResult_t (*CommInitAll)(ncclComm_t* comms, int count, const int* devices);
  ncclResult_t (*CommDestroy)(ncclComm_t comm);
  ncclResult_t (*CommAbort)(ncclComm_t comm);
  ncclResult_t (*CommGetAsyncError)(ncclComm_t comm, ncclResult_t* async_error);
  ncclResult_t (*AllReduce)(const void* send, void* recv, size_t count, ncclDataType_t type,
                            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*GroupStart)();
  ncclResult_t (*GroupEnd)();

  std::string path;       ///< the file loaded (resolved by the loader when found by name)
  int version_code = 0;   ///< ncclGetVersion: 22809
  std::string version;    ///< "2.28.9"
};

/// The outcome of looking for NCCL.
struct NcclLoad {
  const NcclApi* api = nullptr;      ///< null when no candidate was usable
  std::vector<std::string> tried;    ///< each candidate with why it was not used, in order
  std::string error;                 ///< when `api` is null: what is wrong
  std::string fix;                   ///< when `api` is null: what to do
};

/// Reads an environment variable (injected so tests need not touch the process environment).
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
/// Expands a glob(3) pattern into existing paths, sorted (injected for tests).
using PathGlob = std::function<std::vector<std::string>(const std::string& pattern)>;

/// The candidates of the search order above, in order, duplicates removed. A bare
/// "libnccl.so.2" stands for the dynamic loader's own search.
std::vector<std::string> NcclCandidates(const EnvLookup& env, const PathGlob& glob);

/// "2.28.9" for 22809 (the code format of NCCL 2.9 and later).
std::string FormatNcclVersion(int code);

/// Searches with the process environment and the real file system, once per process; later calls
/// return the same result. The library loaded stays loaded.
NcclLoad LoadNcclApi();

}  // namespace hkim::nccl_check
