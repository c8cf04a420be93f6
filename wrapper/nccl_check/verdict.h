#pragma once
// The threshold decision: exact results at every size, minimum bus bandwidth at the profile's
// size, and the transport the profile requires.

#include <string>
#include <vector>

#include "bandwidth.h"
#include "check_config.h"
#include "transport_log.h"

namespace hkim::nccl_check {

/// The outcome of the check and why.
struct Verdict {
  bool passed = true;
  std::vector<std::string> failures;  ///< each a sentence with the numbers, e.g. busbw too low
  std::vector<std::string> notes;     ///< things worth saying that do not fail the check
};

/// Decides pass/fail for `results` (one per size) measured over `ranks` ranks, with the
/// transports seen in `transport`. Rules:
///  - any size with wrong elements fails;
///  - with min_busbw_gbps > 0 and ranks > 1, the busbw at at_bytes must reach it (a missing
///    measurement at at_bytes fails);
///  - a required transport must be met by NCCL's connection lines (RequiredTransportSatisfied);
///    with no connection line at all the transport is unknown, which fails only when one is
///    required.
/// With one rank no link is crossed: bandwidth and transport are noted as not applicable.
Verdict Decide(const CheckConfig& config, const std::vector<SizeResult>& results, int ranks,
               const TransportReport& transport);

/// True when the connections in `report` meet `required`: kAny always; kNetIb when NET/IB is
/// used and NET/Socket is not; kNetSocket when NET/Socket is used; kP2P when P2P is used and no
/// connection went over a network or shared memory.
bool RequiredTransportSatisfied(RequiredTransport required, const TransportReport& report);

}  // namespace hkim::nccl_check
