#include "verdict.h"

#include <algorithm>
#include <cstdio>

#include "size_range.h"

namespace hkim::nccl_check {
namespace {

std::string Fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

}  // namespace

bool RequiredTransportSatisfied(RequiredTransport required, const TransportReport& report) {
  switch (required) {
    case RequiredTransport::kAny:
      return true;
    case RequiredTransport::kNetIb:
      return report.Uses(Transport::kNetIb) && !report.Uses(Transport::kNetSocket);
    case RequiredTransport::kNetIbGdr:
      if (!RequiredTransportSatisfied(RequiredTransport::kNetIb, report)) return false;
      for (const Connection& c : report.connections)
        if (c.transport == Transport::kNetIb && c.via.find("/GDRDMA") == std::string::npos) return false;
      return true;
    case RequiredTransport::kNetSocket:
      return report.Uses(Transport::kNetSocket);
    case RequiredTransport::kP2P:
      return report.Uses(Transport::kP2P) && !report.Uses(Transport::kShm) &&
             !report.Uses(Transport::kNetIb) && !report.Uses(Transport::kNetSocket) &&
             !report.Uses(Transport::kNetOther);
  }
  return false;
}

Verdict Decide(const CheckConfig& config, const std::vector<SizeResult>& results, int ranks,
               const TransportReport& transport) {
  Verdict verdict;
  const auto fail = [&verdict](std::string message) {
    verdict.passed = false;
    verdict.failures.push_back(std::move(message));
  };

  for (const SizeResult& result : results) {
    if (result.wrong_elements == 0) continue;
    fail(FormatByteCount(result.bytes) + ": " + std::to_string(result.wrong_elements) + " of " +
         std::to_string(result.bytes / sizeof(float)) +
         " result elements differ from the exact sum (first at element " +
         std::to_string(result.first_wrong_index) + ")");
  }

  if (ranks <= 1) {
    verdict.notes.push_back(
        "one rank: no link is crossed, bus bandwidth and transport are not "
        "measured");
    // A job-scope check exists to prove the fabric (the sync gate): with one rank and a
    // threshold it would pass without measuring anything, so it fails and says why.
    if (config.scope == Scope::kJob &&
        (config.min_busbw_gbps > 0 || config.transport != RequiredTransport::kAny)) {
      fail("one rank in job scope: nothing crosses the fabric, so the minimum bus bandwidth and "
           "the required transport cannot be proven; the gate needs at least two ranks "
           "(replicas x GPUs per pod), or no threshold");
    }
    return verdict;
  }

  if (config.min_busbw_gbps > 0) {
    const auto at = std::find_if(results.begin(), results.end(),
                                 [&](const SizeResult& r) { return r.bytes == config.at_bytes; });
    if (at == results.end()) {
      fail("no measurement at " + FormatByteCount(config.at_bytes) +
           ", where the minimum bus bandwidth applies");
    } else if (at->busbw_gbps < config.min_busbw_gbps) {
      fail("bus bandwidth " + Fixed(at->busbw_gbps, 2) + " GB/s at " + FormatByteCount(at->bytes) +
           " is below the minimum " + Fixed(config.min_busbw_gbps, 2) + " GB/s (" +
           std::to_string(ranks) + " ranks, " + transport.Summary() + ")");
    }
  }

  if (transport.connections.empty()) {
    const std::string message =
        "NCCL's debug output named no connection ('Channel .. via ..' lines), so the transport "
        "is unknown";
    if (config.transport == RequiredTransport::kAny) {
      verdict.notes.push_back(message);
    } else {
      fail(message + "; " + std::string(RequiredTransportName(config.transport)) + " is required");
    }
  } else if (!RequiredTransportSatisfied(config.transport, transport)) {
    fail("transport " + std::string(RequiredTransportName(config.transport)) +
         " is required but NCCL used " + transport.Summary());
  }
  if (transport.Uses(Transport::kNetSocket) && config.transport != RequiredTransport::kNetSocket) {
    verdict.notes.push_back("NCCL used TCP sockets (NET/Socket) for some connections");
  }
  return verdict;
}

}  // namespace hkim::nccl_check
