#include "assemble.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>

#include "exchange.h"

namespace hkim::health {
namespace {

using nlohmann::json;

// A value's revision as text ("" when absent or not a string: not checked).
std::string RevisionOf(const json& value) {
  if (!value.is_object()) return "";
  const auto it = value.find("revision");
  return it != value.end() && it->is_string() ? it->get<std::string>() : "";
}

bool SameRevision(const std::string& mine, const std::string& theirs) {
  return mine.empty() || theirs.empty() || mine == theirs;
}

}  // namespace

AssembleResult AssemblePodSet(const AssembleSetup& setup, std::ostream& log) {
  const auto start = std::chrono::steady_clock::now();
  AssembleResult result;
  const json mine = {{"node", setup.node}, {"pod", setup.pod}, {"revision", setup.revision}};
  log << "hkim-health: assemble: waiting up to " << setup.timeout_s << " s for " << setup.replicas
      << " pod(s)" << (setup.revision.empty() ? "" : " of revision " + setup.revision) << " ("
      << (setup.ordinal == 0 ? "serving" : "joining " + setup.master_addr) << " on port "
      << setup.port << ")\n"
      << std::flush;
  ExchangeResult table;
  if (setup.ordinal == 0) {
    const std::string revision = setup.revision;
    table = ServeExchange("assemble", setup.replicas, setup.replicas - 1, setup.port, mine,
                          setup.timeout_s, [revision](const json& value) -> std::string {
                            const std::string theirs = RevisionOf(value);
                            if (SameRevision(revision, theirs)) return "";
                            return "revision " + theirs + ", this pod set is revision " + revision;
                          });
  } else {
    table = JoinExchange("assemble", setup.ordinal, setup.master_addr, setup.port, mine,
                         setup.timeout_s, /*retry_refused=*/true);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!table.ok) {
    result.present = 1;
    result.detail = table.error;
    return result;
  }
  std::string missing;
  for (int ordinal = 0; ordinal < setup.replicas; ++ordinal) {
    const auto it = table.values.find(ordinal);
    if (it != table.values.end() && SameRevision(setup.revision, RevisionOf(it->second))) {
      ++result.present;
    } else {
      missing += (missing.empty() ? "" : ", ") + std::to_string(ordinal);
    }
  }
  result.complete = result.present == setup.replicas;
  if (!result.complete) result.detail = "ordinal(s) " + missing + " absent";
  return result;
}

}  // namespace hkim::health
