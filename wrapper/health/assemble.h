#pragma once
// Pod mode's first step: do all HKIM_REPLICAS pods of this revision run the in-pod check now?
// The workload's pods start together (podManagementPolicy Parallel), but a pod also restarts
// alone while the others train: then nobody answers on rank 0's port (refused), or rank 0 waits
// for peers that never come. Each pod says hello to the pod with ordinal 0 over the
// localization's exchange (exchange.h, tag "assemble", HKIM_RENDEZVOUS_PORT + 1) with its node,
// pod and revision; rank 0 answers everyone with the table when all came or at the deadline.
// A pod of another revision counts as absent (rank 0 refuses it; a refused pod keeps trying
// until its deadline). The set is complete when the table holds every ordinal. Bounded: rank 0
// answers by `timeout_s` after it started listening; a pod gives up `timeout_s` after it began
// when rank 0 never listened, or `timeout_s` + 10 s after it connected.

#include <iosfwd>
#include <string>

namespace hkim::health {

struct AssembleSetup {
  int ordinal = 0;
  int replicas = 1;
  std::string master_addr;  ///< the pod with ordinal 0
  int port = 0;             ///< HKIM_RENDEZVOUS_PORT + 1
  std::string revision;     ///< HKIM_POD_REVISION; "" = not checked
  std::string node;
  std::string pod;
  double timeout_s = 300;
};

struct AssembleResult {
  bool complete = false;
  int present = 0;     ///< pods in the table (this one included)
  std::string detail;  ///< who was missing, or why no table came
  double seconds = 0;
};

/// Assembles the pod set (see above); progress to `log`.
AssembleResult AssemblePodSet(const AssembleSetup& setup, std::ostream& log);

}  // namespace hkim::health
