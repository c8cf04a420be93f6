#include "localize_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>

#include "check_outcomes.h"
#include "child_run.h"
#include "exchange.h"
#include "json_fields.h"

namespace hkim::health {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// The pod with `ordinal`'s address: the template with {ordinal} replaced, else MASTER_ADDR with
// "<set>-0" replaced by "<set>-<ordinal>" (the gate's <job>-0.<service>... names), else
// MASTER_ADDR itself (every pod on one host).
std::string PeerAddress(const LocalizeSetup& setup, int ordinal) {
  std::string address = setup.peer_address;
  if (!address.empty()) {
    const size_t at = address.find("{ordinal}");
    if (at != std::string::npos) address.replace(at, 9, std::to_string(ordinal));
    return address;
  }
  const std::string zero = setup.pod_set + "-0";
  address = setup.master_addr;
  if (!setup.pod_set.empty() && address.rfind(zero, 0) == 0 &&
      (address.size() == zero.size() || address[zero.size()] == '.'))
    address.replace(0, zero.size(), setup.pod_set + "-" + std::to_string(ordinal));
  return address;
}

ExchangeResult Exchange(const LocalizeSetup& setup, const std::string& tag, int expect,
                        const json& mine, double timeout_s) {
  if (setup.ordinal == 0)
    return ServeExchange(tag, setup.replicas, expect, setup.base_port + 1, mine, timeout_s);
  return JoinExchange(tag, setup.ordinal, setup.master_addr, setup.base_port + 1, mine, timeout_s);
}

json ReportJson(const MemberReport& report) {
  json rails = json::array();
  for (const RailMeasure& rail : report.rails)
    rails.push_back({{"device", rail.device}, {"ok", rail.ok}, {"busbw_gbps", rail.busbw_gbps}});
  return {{"took_part", report.took_part},
          {"ran", report.ran},
          {"ok", report.ok},
          {"busbw_gbps", report.busbw_gbps},
          {"transport", report.transport},
          {"detail", report.detail},
          {"rails", rails},
          {"seconds", report.seconds}};
}

// One group's result from its members' reports. A member without a report, or one that could not
// take part, makes the group inconclusive: nothing about the fabric was measured.
GroupResult Combine(int round, const std::vector<int>& members, const std::vector<LocalizePod>& pods,
                    const std::map<int, json>& table) {
  GroupResult result;
  result.round = round;
  result.members = members;
  result.ran = true;
  result.ok = true;
  bool first = true;
  for (int member : members) {
    const auto found = table.find(pods[member].ordinal);
    json report;
    try {
      report = found == table.end() ? json() : found->second.value("report", json());
      if (!report.is_object()) {
        result.inconclusive = true;
        result.detail = pods[member].node + " sent no report";
        continue;
      }
      if (!report.value("took_part", true)) {
        result.inconclusive = true;
        result.detail =
            pods[member].node + " could not take part (" + report.value("detail", "") + ")";
        continue;
      }
      result.ran &= report.value("ran", false);
      result.ok &= report.value("ok", false);
      const double gbps = report.value("busbw_gbps", 0.0);
      result.busbw_gbps = first ? gbps : std::min(result.busbw_gbps, gbps);
      if (result.transport.empty()) result.transport = report.value("transport", "");
      if (result.detail.empty()) result.detail = report.value("detail", "");
      result.seconds = std::max(result.seconds, report.value("seconds", 0.0));
      const json rails = report.value("rails", json::array());
      for (size_t r = 0; r < rails.size(); ++r) {
        if (result.rails.size() <= r)
          result.rails.push_back({rails[r].value("device", ""), true, 0});
        RailMeasure& rail = result.rails[r];
        const double rail_gbps = rails[r].value("busbw_gbps", 0.0);
        rail.busbw_gbps =
            first || rail.busbw_gbps == 0 ? rail_gbps : std::min(rail.busbw_gbps, rail_gbps);
        rail.ok &= rails[r].value("ok", false);
      }
    } catch (const json::exception&) {  // a peer's report of the wrong shape measured nothing
      result.inconclusive = true;
      result.detail = pods[member].node + " sent a malformed report";
      continue;
    }
    first = false;
  }
  if (result.inconclusive) result.ran = result.ok = false;
  if (!result.ran) result.ok = false;
  return result;
}

}  // namespace

std::vector<LocalizePod> PodsFromStartTable(const std::map<int, json>& table, bool* any_failed) {
  std::vector<LocalizePod> pods;
  for (const auto& [ordinal, value] : table) {  // each value is a peer's: any shape may come
    pods.push_back({ordinal, StringField(value, "node"), StringField(value, "pod"),
                    StringsField(value, "rails")});
    *any_failed |= StringField(value, "status") != "pass";
  }
  return pods;
}

GroupResult CombineReports(int round, const std::vector<int>& members,
                           const std::vector<LocalizePod>& pods, const std::map<int, json>& table) {
  return Combine(round, members, pods, table);
}

static MemberReport ReadRecord(const std::string& output, int exit_status, bool timed_out,
                               const std::string& error) {
  MemberReport report;
  const size_t brace = output.find('{');
  const json record = brace == std::string::npos ? json() : json::parse(output.substr(brace), nullptr, false);
  // Could not take part: the rendezvous failed before any traffic (exit 5, or the record says
  // so), no GPU or no NCCL (3, 4), killed by a signal we did not send (OOM, crash).
  const bool no_rendezvous =
      exit_status == kNcclExitRendezvous ||
      (record.is_object() && !BoolField(record, "took_part", true));
  if (!timed_out && (no_rendezvous || exit_status == 3 || exit_status == 4 || exit_status >= 128)) {
    report.took_part = false;
    std::string why = exit_status >= 128 ? "killed by signal " + std::to_string(exit_status - 128)
                      : exit_status == 3 ? std::string("no GPU")
                      : exit_status == 4 ? std::string("no usable NCCL")
                                         : std::string("rendezvous failed");
    const std::string rendezvous_error = StringField(Field(record, "rendezvous"), "error");
    if (!rendezvous_error.empty()) why += ": " + rendezvous_error;
    report.detail = "exit status " + std::to_string(exit_status) + ", " + why;
    return report;
  }
  if (timed_out || !record.is_object()) {
    report.detail = timed_out ? error : "exit status " + std::to_string(exit_status) + ", no record";
    return report;
  }
  report.ran = exit_status == 0 || exit_status == 1;
  report.ok = exit_status == 0;
  // A field of another type than expected reads as absent: the record still says the check ran.
  const std::vector<std::string> failures = StringsField(record, "failures");
  if (!failures.empty()) report.detail = failures[0];
  report.transport = StringField(Field(record, "transport"), "summary");
  if (record.contains("rails")) {  // per-rail record
    report.busbw_gbps = NumberField(Field(record, "together"), "busbw_gbps");
    const json& rails = Field(record, "rails");
    for (const json& rail : rails.is_array() ? rails : json::array()) {
      report.rails.push_back({StringField(rail, "device"), StringField(rail, "status") == "pass",
                              NumberField(rail, "busbw_gbps")});
    }
    return report;
  }
  const std::uint64_t at = CountField(Field(record, "threshold"), "at_bytes");
  const json& results = Field(record, "results");
  for (const json& row : results.is_array() ? results : json::array())
    if (CountField(row, "bytes") == at) report.busbw_gbps = NumberField(row, "busbw_gbps");
  return report;
}

MemberReport ReportFromRecord(const std::string& output, int exit_status, bool timed_out,
                              const std::string& error) {
  try {
    return ReadRecord(output, exit_status, timed_out, error);
  } catch (const json::exception& e) {  // a record of the wrong shape: nothing usable measured
    MemberReport report;
    report.took_part = false;
    report.detail = std::string("exit status ") + std::to_string(exit_status) +
                    ", unreadable record (" + e.what() + ")";
    return report;
  }
}

GroupCheck NcclGroupCheck(const std::string& nccl_check, const std::string& at_bytes, bool per_rail,
                          std::ostream& log) {
  return [nccl_check, at_bytes, per_rail, &log](const GroupRun& run) {
    std::vector<std::string> argv = {nccl_check, "--scope", "job", "--rendezvous-timeout-s",
                                     std::to_string(static_cast<int>(std::max(10.0, run.timeout_s / 2)))};
    if (!at_bytes.empty()) argv.insert(argv.end(), {"--min-bytes", at_bytes, "--max-bytes", at_bytes});
    if (per_rail) argv.push_back("--per-rail");
    argv.insert(argv.end(), {"--json", "-"});
    const std::vector<std::string> env = {
        "HKIM_REPLICAS=" + std::to_string(run.size), "HKIM_POD_NAME=" + run.pod_name,
        "MASTER_ADDR=" + run.leader_address, "HKIM_RENDEZVOUS_PORT=" + std::to_string(run.port),
        "HKIM_NCCL_CHECK_SCOPE=job"};
    log << "hkim-health: localize round " << run.round << " group " << run.group << " rank "
        << run.rank << "/" << run.size << ": " << run.leader_address << ":" << run.port << "\n"
        << std::flush;
    const Clock::time_point start = Clock::now();
    const ChildResult child = RunChild(argv, env, run.timeout_s);
    MemberReport report;
    if (child.started) {
      report = ReportFromRecord(child.output, child.status, child.timed_out, child.error);
    } else {
      report.took_part = false;
      report.detail = "not started: " + child.error;
    }
    report.seconds = Since(start);
    return report;
  };
}

LocalizeOutcome RunLocalization(const LocalizeSetup& setup, const std::string& job_status,
                                const std::vector<std::string>& rails, const GroupCheck& check,
                                std::ostream& log) {
  LocalizeOutcome outcome;
  const Clock::time_point start = Clock::now();
  if (setup.when == "off") {
    outcome.skipped = "HKIM_HEALTH_LOCALIZE=off";
    return outcome;
  }
  if (setup.replicas < 2) {
    outcome.skipped = "one pod: nothing to localize";
    return outcome;
  }
  // A passing pod costs the gate nothing: its peers measured the same collective, so they passed
  // too (they then skip as well), or they localize among themselves without it after the first
  // exchange's deadline.
  if (setup.when == "fail" && job_status == "pass") {
    outcome.skipped = "the job check passed";
    return outcome;
  }
  // 1. Every pod's status, so that all decide alike (one pod may pass a threshold that its
  // peers missed by a hair, or never have reached the job check).
  const json mine = {{"status", job_status}, {"node", setup.node}, {"pod", setup.pod}, {"rails", rails}};
  const ExchangeResult start_table = Exchange(setup, "start", setup.replicas - 1, mine, setup.exchange_timeout_s);
  if (!start_table.ok) {
    outcome.error = "localization exchange: " + start_table.error;
    return outcome;
  }
  bool any_failed = setup.when == "always";
  outcome.pods = PodsFromStartTable(start_table.values, &any_failed);
  any_failed |= static_cast<int>(start_table.values.size()) < setup.replicas;
  if (!any_failed) {
    outcome.skipped = "the job check passed on every pod that reported";
    return outcome;
  }
  const int n = static_cast<int>(outcome.pods.size());
  int self = -1;
  for (int i = 0; i < n; ++i)
    if (outcome.pods[i].ordinal == setup.ordinal) self = i;
  if (n < 2 || self < 0) {
    outcome.skipped = std::to_string(n) + " pod(s) reported: nothing to pair";
    return outcome;
  }
  log << "hkim-health: localize: " << n << " pod(s), up to " << kLocalizeRounds
      << " rounds of pairs\n" << std::flush;
  outcome.ran = true;
  const int stride = (n + 1) / 2;
  size_t most_rails = 0;
  for (const LocalizePod& pod : outcome.pods) most_rails = std::max(most_rails, pod.rails.size());
  const int ports_per_group = 1 + static_cast<int>(most_rails);
  // Measures this pod's group among `groups` (first_slot + g picks the ports), then gathers every
  // pod's report: false when the exchange broke (outcome.error says why).
  const auto measure = [&](int round, const std::vector<std::vector<int>>& groups,
                           const std::vector<int>& slots, const std::string& tag,
                           std::vector<GroupResult>* results) {
    json report = nullptr;
    for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
      const auto& members = groups[g];
      const auto at = std::find(members.begin(), members.end(), self);
      if (at == members.end()) continue;
      GroupRun run;
      run.round = round;
      run.group = g;
      run.rank = static_cast<int>(at - members.begin());
      run.size = static_cast<int>(members.size());
      for (int m : members) run.ordinals.push_back(outcome.pods[m].ordinal);
      run.leader_address = PeerAddress(setup, outcome.pods[members[0]].ordinal);
      run.port = setup.base_port + 2 + slots[g] * ports_per_group;
      run.pod_name = setup.pod_set + "-" + tag + "g" + std::to_string(g) + "-" +
                     std::to_string(run.rank);
      run.timeout_s = setup.pair_timeout_s;
      report = ReportJson(check(run));
    }
    const ExchangeResult table = Exchange(setup, tag, n - 1, {{"report", report}},
                                          setup.pair_timeout_s + setup.exchange_timeout_s);
    if (!table.ok) {
      outcome.error = "localization exchange after " + tag + ": " + table.error;
      return false;
    }
    for (const auto& members : groups)
      results->push_back(CombineReports(round, members, outcome.pods, table.values));
    return true;
  };
  const auto print = [&](const GroupResult& r, const std::string& what) {
    std::string names;
    for (int m : r.members) names += (names.empty() ? "" : "-") + outcome.pods[m].node;
    log << "hkim-health: localize " << what << " " << names << ": "
        << (r.ok ? "pass" : r.inconclusive ? "INCONCLUSIVE" : r.ran ? "FAIL" : "BROKEN") << " "
        << Fixed(r.busbw_gbps) << " GB/s" << (r.transport.empty() ? "" : " " + r.transport)
        << (r.ok || r.detail.empty() ? "" : " (" + r.detail + ")") << ", " << Fixed(r.seconds)
        << " s\n";
  };
  for (int round = 0; round < kLocalizeRounds; ++round) {
    const auto groups = PlanRound(n, round, KnownGood(n, outcome.results));
    if (groups.empty()) break;
    std::vector<int> slots;
    for (int g = 0; g < static_cast<int>(groups.size()); ++g) slots.push_back(round * stride + g);
    std::vector<GroupResult> results;
    if (!measure(round, groups, slots, "r" + std::to_string(round), &results)) break;
    for (const GroupResult& r : results) print(r, "round " + std::to_string(round));
    // Groups in which a pod could not take part: once more, on ports of their own. Every pod
    // sees the same table, so all agree on which groups these are.
    std::vector<std::vector<int>> again;
    std::vector<int> again_slots, again_at;
    for (int g = 0; g < static_cast<int>(results.size()); ++g) {
      if (!results[g].inconclusive) continue;
      again.push_back(groups[g]);
      again_slots.push_back((kLocalizeRounds + round) * stride + g);
      again_at.push_back(g);
    }
    if (!again.empty()) {
      log << "hkim-health: localize round " << round << ": " << again.size()
          << " group(s) could not measure, retrying on other ports\n";
      std::vector<GroupResult> retried;
      const std::string tag = "r" + std::to_string(round) + "retry";
      if (!measure(round, again, again_slots, tag, &retried)) break;
      for (size_t i = 0; i < retried.size(); ++i) {
        print(retried[i], "round " + std::to_string(round) + " retry");
        results[again_at[i]] = retried[i];
      }
    }
    outcome.rounds = round + 1;
    for (GroupResult& r : results) outcome.results.push_back(std::move(r));
    log << std::flush;
  }
  outcome.verdict = DecideSuspects(outcome.pods, outcome.results, setup.expected_gbps);
  outcome.seconds = Since(start);
  for (const Suspect& s : outcome.verdict.suspects)
    log << "hkim-health: SUSPECT " << SuspectLine(s) << "; " << s.evidence << "\n";
  for (const std::string& note : outcome.verdict.notes) log << "hkim-health: localize: " << note << "\n";
  if (outcome.verdict.suspects.empty()) log << "hkim-health: localize: no suspect\n";
  log << "hkim-health: localize: " << outcome.rounds << " round(s) in " << Fixed(outcome.seconds)
      << " s\n" << std::flush;
  return outcome;
}

json SuspectsJson(const LocalizeVerdict& verdict) {
  json out = json::array();
  for (const Suspect& s : verdict.suspects)
    out.push_back({{"node", s.node},
                   {"pod", s.pod},
                   {"rail", s.rail},
                   {"busbw_gbps", s.busbw_gbps},
                   {"expected_gbps", s.expected_gbps},
                   {"transport", s.transport},
                   {"evidence", s.evidence}});
  return out;
}

json LocalizationJson(const LocalizeOutcome& outcome) {
  json groups = json::array();
  for (const GroupResult& g : outcome.results) {
    json nodes = json::array();
    for (int m : g.members) nodes.push_back(outcome.pods[m].node);
    groups.push_back({{"round", g.round}, {"nodes", nodes},
                      {"status", g.ok ? "pass" : g.inconclusive ? "inconclusive" : "fail"},
                      {"ok", g.ok}, {"ran", g.ran},
                      {"busbw_gbps", g.busbw_gbps}, {"transport", g.transport},
                      {"seconds", g.seconds}, {"detail", g.detail}});
  }
  json out = {{"ran", outcome.ran}, {"rounds", outcome.rounds}, {"seconds", outcome.seconds},
              {"groups", groups}, {"notes", outcome.verdict.notes}};
  if (!outcome.skipped.empty()) out["skipped"] = outcome.skipped;
  if (!outcome.error.empty()) out["error"] = outcome.error;
  return out;
}

}  // namespace hkim::health
