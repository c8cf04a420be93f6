#pragma once
// Rank 0 hands the NCCL unique id to every other pod of the job over TCP (no MPI): the pod with
// ordinal 0 listens on HKIM_RENDEZVOUS_PORT, the others connect to MASTER_ADDR. Each peer says
// who it is (job, ordinal, replicas, local GPUs) so a mismatched or foreign peer is refused with
// a clear error instead of hanging NCCL's bootstrap. Everything has a deadline.
// The bytes on the wire are built and parsed in rendezvous_wire.{h,cc}.

#include <string>
#include <vector>

#include "rendezvous_wire.h"

namespace hkim::nccl_check {

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

  /// Hands `id` to each of the replicas-1 peers, checking each hello against `self`. Serves
  /// its connections concurrently (an idle one, a scanner or a stuck peer, delays nobody and is
  /// dropped after 5 s); a peer counts as served only when it acknowledged the id, and a hello
  /// from an ordinal seen before is answered again (the same pod retrying). Returns when every
  /// peer acknowledged, on a mismatched peer (which is told why), or after `timeout_s` (naming
  /// the ordinals that never got it). Connections that do not speak the protocol are ignored
  /// with a warning.
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
