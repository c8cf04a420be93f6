#pragma once
// The localization's small all-gather over TCP (no MPI, no API): every pod sends one JSON value
// to the pod with ordinal 0, which answers each of them with all values it got, keyed by
// ordinal. Between the rounds it is also the barrier, so every pod plans the next round from the
// same table. One line of JSON each way ({"magic":"hkim-localize/1","tag",...}); a connection
// with another tag or magic is answered with an error and dropped. Bounded: lines of at most
// 1 MiB, a deadline for the whole exchange.

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace hkim::health {

struct ExchangeResult {
  bool ok = false;
  std::map<int, nlohmann::json> values;  ///< by ordinal; the missing ones never reported
  std::string error;
};

/// The pod with ordinal 0: listens on `port`, takes one value from each of `expect` pods of
/// ordinals 1..replicas-1 (or until `timeout_s`), then answers all of them. Its own value is
/// `mine`.
ExchangeResult ServeExchange(const std::string& tag, int replicas, int expect, int port,
                             const nlohmann::json& mine, double timeout_s);

/// Any other pod: connects to `host`:`port` (retrying until `timeout_s`), sends `mine` as
/// `ordinal` and waits for the table.
ExchangeResult JoinExchange(const std::string& tag, int ordinal, const std::string& host, int port,
                            const nlohmann::json& mine, double timeout_s);

}  // namespace hkim::health
