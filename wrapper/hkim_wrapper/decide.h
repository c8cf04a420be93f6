#pragma once

#include <map>
#include <string>
#include <vector>

#include "detect.h"
#include "common/finding.h"
#include "memlock.h"
#include "verbs_probe.h"

namespace hkim::wrapper {

/// What to do when RDMA cannot be used (`--on-no-rdma`, HKIM_ON_NO_RDMA).
enum class Policy { kFail, kTcp };

enum class Outcome {
  kRdma,         ///< RDMA devices found and usable: NCCL_IB_* set for them
  kTcpMode,      ///< HKIM_MODE=tcp: detection skipped, socket transport by design
  kTcpFallback,  ///< no usable RDMA and policy tcp: socket transport, loudly
  kFail,         ///< no usable RDMA and policy fail: the pod must not start
};

const char* OutcomeName(Outcome outcome);
const char* PolicyName(Policy policy);

/// Everything the pure decision needs; nothing here touches the system.
struct DecideInput {
  const Detection* detection = nullptr;
  const VerbsProbe* verbs = nullptr;       ///< nullptr when the verbs check was skipped
  std::string verbs_skipped_reason;        ///< why, when skipped
  const MemlockResult* memlock = nullptr;  ///< nullptr in tcp mode
  bool memlock_enforced = true;            ///< false on fixture trees (limits are this machine's)
  bool peermem_loaded = false;
  std::vector<std::string> net_interfaces;  ///< /sys/class/net entries (may be empty)
  std::map<std::string, std::string> vars;  ///< the current environment
  Policy policy = Policy::kFail;
  bool tcp_mode = false;  ///< HKIM_MODE=tcp
};

/// The verdict on one candidate device.
struct DeviceVerdict {
  std::string name;
  std::string pci_address;
  std::string resource_var;
  std::string name_source;
  bool is_vf = false;
  bool usable = false;
  std::string reason;     ///< why not usable ("" when usable)
  int port = 0;           ///< port used
  std::string transport;  ///< "RoCE" or "InfiniBand"
  std::string state;      ///< of the first port
  std::string rate;
  std::string netdev;
  int gid_index = -1;
  std::string gid_ipv4;
  int numa_node = -1;
  std::string iommu_group;
  std::string iommu_type;
};

/// The decision: which variables to set, which user values were kept, and whether the pod may
/// start. Maps are sorted by name, so every output built from them is deterministic.
struct Decision {
  Outcome outcome = Outcome::kFail;
  Policy policy = Policy::kFail;
  std::string allocation_source;              ///< AllocationSourceName of the detection
  std::map<std::string, std::string> wanted;  ///< every variable decided
  std::map<std::string, std::string> set;     ///< wanted and not already set: the job gains these
  std::map<std::string, std::string> kept;    ///< wanted but already set: the user's value stays
  std::vector<DeviceVerdict> devices;
  std::vector<std::string> ignored_devices;  ///< visible, not allocated
  std::string gid_decision;                  ///< why NCCL_IB_GID_INDEX is (not) set
  std::string iommu_mode;                    ///< passthrough | translation | none | mixed | unknown
  std::string gpudirect;                     ///< peermem / DMA-BUF verdict
  bool peermem_loaded = false;
  std::string verbs;          ///< verbs check summary
  std::string reason;         ///< why RDMA is not used (fallback / fail)
  bool fully_usable = false;  ///< `--check` exits 0 only when true
  int exit_code = 0;          ///< 0: the job may start; 1: it must not
  Findings findings;          ///< detection's, memlock's and the decision's own
};

/// Pure: detection + probes + environment + policy → decision.
Decision Decide(const DecideInput& input);

}  // namespace hkim::wrapper
