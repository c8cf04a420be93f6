#pragma once
// The localization's small all-gather over TCP (no MPI, no API): every pod sends one JSON value
// to the pod with ordinal 0, which answers each of them with all values it got, keyed by
// ordinal. Between the rounds it is also the barrier, so every pod plans the next round from the
// same table. One line of JSON each way ({"magic":"hkim-localize/1","tag",...}); a connection
// with another tag or magic is answered with an error and dropped. Bounded: lines of at most
// 1 MiB, a deadline for the whole exchange.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hkim::health {

struct ExchangeResult {
  bool ok = false;
  std::map<int, nlohmann::json> values;  ///< by ordinal; the missing ones never reported
  std::string error;
};

/// Why rank 0 refuses a pod's value ("" = accepted); a refused pod counts as absent.
using ExchangeFilter = std::function<std::string(const nlohmann::json& value)>;

/// What rank 0 makes of one peer's hello line (without its newline): the peer's ordinal and
/// value, or why it is refused (`refusal` not empty; sent back to the peer).
struct ExchangeHello {
  int ordinal = -1;
  nlohmann::json value;
  std::string refusal;
};
ExchangeHello ReadExchangeHello(std::string_view line, const std::string& tag, int replicas);

/// What a peer makes of rank 0's answer line (without its newline): the values by ordinal
/// (`ok`), or the error; `where` ("host:port") names rank 0 in it.
ExchangeResult ReadExchangeAnswer(std::string_view line, const std::string& where);

/// The pod with ordinal 0: listens on `port`, takes one value from each of `expect` pods of
/// ordinals 1..replicas-1 (or until `timeout_s`), then answers all of them. Its own value is
/// `mine`. A pod that disconnects before the table goes out is absent from it; the same ordinal
/// connecting again replaces its older connection. `accept` may refuse a value.
ExchangeResult ServeExchange(const std::string& tag, int replicas, int expect, int port,
                             const nlohmann::json& mine, double timeout_s,
                             const ExchangeFilter& accept = nullptr);

/// Any other pod: connects to `host`:`port` (retrying until `timeout_s`), sends `mine` as
/// `ordinal` and waits for the table (at most `timeout_s` + 10 s after it connected: rank 0
/// answers by its own deadline). A refusal ends the exchange with an error, or with
/// `retry_refused` is retried until `timeout_s` (rank 0 may be another revision's, about to go).
ExchangeResult JoinExchange(const std::string& tag, int ordinal, const std::string& host, int port,
                            const nlohmann::json& mine, double timeout_s,
                            bool retry_refused = false);

}  // namespace hkim::health
