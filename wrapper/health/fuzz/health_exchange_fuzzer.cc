// libFuzzer target over the localization's exchange (wrapper/health/exchange.h): arbitrary bytes
// as one line a peer sends rank 0 (ReadExchangeHello) and as rank 0's answer a peer reads
// (ReadExchangeAnswer). An accepted answer's table then goes where the pods use it: as the
// first exchange (PodsFromStartTable) and as a round's reports (CombineReports for that round's
// groups), then the verdict (DecideSuspects) and the summary's JSON. Nothing may crash, throw or
// hang; a refused hello says why, an accepted one has an ordinal in range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "exchange.h"
#include "localize.h"
#include "localize_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hkim::health;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const ExchangeHello hello = ReadExchangeHello(line, "start", 8);
  if (hello.refusal.empty() && (hello.ordinal < 1 || hello.ordinal >= 8)) std::abort();
  (void)nlohmann::json{{"error", hello.refusal}}.dump();  // rank 0 sends the refusal back
  const ExchangeResult answer = ReadExchangeAnswer(line, "gate-0:29651");
  if (!answer.ok) {
    if (answer.error.empty()) std::abort();
    return 0;
  }
  LocalizeOutcome outcome;
  bool any_failed = false;
  outcome.pods = PodsFromStartTable(answer.values, &any_failed);
  const int n = static_cast<int>(outcome.pods.size());
  for (int round = 0; round < kLocalizeRounds && n >= 2; ++round) {
    for (const std::vector<int>& members : PlanRound(n, round, KnownGood(n, outcome.results)))
      outcome.results.push_back(CombineReports(round, members, outcome.pods, answer.values));
  }
  outcome.ran = !outcome.results.empty();
  outcome.verdict = DecideSuspects(outcome.pods, outcome.results, 45);
  (void)LocalizationJson(outcome).dump();
  (void)SuspectsJson(outcome.verdict).dump();
  return 0;
}
