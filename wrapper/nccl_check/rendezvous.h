#pragma once
// Rank 0 hands the NCCL unique id to every other pod of the job over TCP (no MPI): the pod with
// ordinal 0 listens on HKIM_RENDEZVOUS_PORT, the others connect to MASTER_ADDR. Each peer says
// who it is (job, ordinal, replicas, local GPUs) so a mismatched or foreign peer is refused with
// a clear error instead of hanging NCCL's bootstrap. Everything has a deadline.
//
// Wire format (integers are 32-bit big-endian):
//   hello  peer -> rank 0 : "HKIMRDV1" version ordinal replicas local_gpus job_len job[job_len]
//   answer rank 0 -> peer : "HKIMRDV1" status(0) id[128]    |   "HKIMRDV1" status(1) len msg[len]

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hkim::nccl_check {

/// The opaque bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES = 128).
inline constexpr std::size_t kUniqueIdBytes = 128;
using UniqueIdBytes = std::array<char, kUniqueIdBytes>;

/// Who a process is within the job; both sides must agree on job, replicas and local_gpus.
struct RendezvousIdentity {
  std::string job;  ///< the StatefulSet name (pod name without its ordinal)
  int ordinal = 0;
  int replicas = 1;
  int local_gpus = 1;
};

/// Success, or an error message and the fix.
struct RendezvousStatus {
  bool ok = true;
  std::string error;
  std::string fix;
  std::vector<std::string> warnings;  ///< foreign connections that were ignored, etc.
};

/// Rank 0's listening side. Listen first (so a test can learn the port), then Serve.
class RendezvousServer {
 public:
  RendezvousServer() = default;
  RendezvousServer(const RendezvousServer&) = delete;
  RendezvousServer& operator=(const RendezvousServer&) = delete;
  ~RendezvousServer();

  /// Binds `bind_address`:`port` (port 0 picks a free one) and listens.
  RendezvousStatus Listen(const std::string& bind_address, int port);

  /// The bound port (after a successful Listen).
  int port() const { return port_; }

  /// Hands `id` to each of the replicas-1 peers once, checking each hello against `self`.
  /// Returns when all have it, on a mismatched peer (which is told why), or after `timeout_s`
  /// (naming the ordinals that never came). Connections that do not speak the protocol are
  /// ignored with a warning.
  RendezvousStatus Serve(const RendezvousIdentity& self, const UniqueIdBytes& id, double timeout_s);

 private:
  int fd_ = -1;
  int port_ = 0;
};

/// A peer's side: connects to `host`:`port` (retrying refused connections and unresolvable names
/// until `timeout_s`), says hello as `self` and returns the id in `id`.
RendezvousStatus FetchUniqueId(const RendezvousIdentity& self, const std::string& host, int port,
                               double timeout_s, UniqueIdBytes& id);

}  // namespace hkim::nccl_check
