#include "localize_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>

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
  return {{"ran", report.ran},         {"ok", report.ok},           {"busbw_gbps", report.busbw_gbps},
          {"transport", report.transport}, {"detail", report.detail}, {"rails", rails},
          {"seconds", report.seconds}};
}

}  // namespace

std::vector<LocalizePod> PodsFromStartTable(const std::map<int, json>& table, bool* any_failed) {
  std::vector<LocalizePod> pods;
  for (const auto& [ordinal, value] : table) {
    pods.push_back({ordinal, StringField(value, "node"), StringField(value, "pod"),
                    StringsField(value, "rails")});
    *any_failed |= StringField(value, "status") != "pass";
  }
  return pods;
}

GroupResult CombineReports(int round, const std::vector<int>& members,
                           const std::vector<LocalizePod>& pods, const std::map<int, json>& table) {
  GroupResult result;
  result.round = round;
  result.members = members;
  result.ran = true;
  result.ok = true;
  bool first = true;
  for (int member : members) {
    const auto found = table.find(pods[member].ordinal);
    const json& report = found == table.end() ? Field(json(), "report") : Field(found->second, "report");
    if (!report.is_object()) {
      result.ran = result.ok = false;
      result.detail = pods[member].node + " did not report";
      continue;
    }
    result.ran &= BoolField(report, "ran");
    result.ok &= BoolField(report, "ok");
    const double gbps = NumberField(report, "busbw_gbps");
    result.busbw_gbps = first ? gbps : std::min(result.busbw_gbps, gbps);
    if (result.transport.empty()) result.transport = StringField(report, "transport");
    if (result.detail.empty()) result.detail = StringField(report, "detail");
    result.seconds = std::max(result.seconds, NumberField(report, "seconds"));
    const json& rails = Field(report, "rails");
    for (size_t r = 0; rails.is_array() && r < rails.size(); ++r) {
      if (result.rails.size() <= r) result.rails.push_back({StringField(rails[r], "device"), true, 0});
      RailMeasure& rail = result.rails[r];
      const double rail_gbps = NumberField(rails[r], "busbw_gbps");
      rail.busbw_gbps = first || rail.busbw_gbps == 0 ? rail_gbps : std::min(rail.busbw_gbps, rail_gbps);
      rail.ok &= BoolField(rails[r], "ok");
    }
    first = false;
  }
  if (!result.ran) result.ok = false;
  return result;
}

MemberReport ReportFromRecord(const std::string& output, int exit_status, bool timed_out,
                              const std::string& error) {
  MemberReport report;
  const size_t brace = output.find('{');
  const json record = brace == std::string::npos ? json() : json::parse(output.substr(brace), nullptr, false);
  if (timed_out || !record.is_object()) {
    report.detail = timed_out ? error : "exit status " + std::to_string(exit_status) + ", no record";
    return report;
  }
  report.ran = exit_status == 0 || exit_status == 1;
  report.ok = exit_status == 0;
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
    MemberReport report = ReportFromRecord(child.output, child.status, child.timed_out || !child.started,
                                           child.error);
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
  for (int round = 0; round < kLocalizeRounds; ++round) {
    const auto groups = PlanRound(n, round, KnownGood(n, outcome.results));
    if (groups.empty()) break;
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
      run.port = setup.base_port + 2 + round * stride + g;
      run.pod_name = setup.pod_set + "-r" + std::to_string(round) + "g" + std::to_string(g) + "-" +
                     std::to_string(run.rank);
      run.timeout_s = setup.pair_timeout_s;
      report = ReportJson(check(run));
    }
    const ExchangeResult table =
        Exchange(setup, "round-" + std::to_string(round), n - 1, {{"report", report}},
                 setup.pair_timeout_s + setup.exchange_timeout_s);
    if (!table.ok) {
      outcome.error = "localization exchange after round " + std::to_string(round) + ": " + table.error;
      break;
    }
    outcome.rounds = round + 1;
    for (const auto& members : groups) {
      outcome.results.push_back(CombineReports(round, members, outcome.pods, table.values));
      const GroupResult& r = outcome.results.back();
      std::string names;
      for (int m : members) names += (names.empty() ? "" : "-") + outcome.pods[m].node;
      log << "hkim-health: localize round " << round << " " << names << ": "
          << (r.ok ? "pass" : r.ran ? "FAIL" : "BROKEN") << " " << Fixed(r.busbw_gbps) << " GB/s"
          << (r.transport.empty() ? "" : " " + r.transport)
          << (r.ok || r.detail.empty() ? "" : " (" + r.detail + ")") << ", " << Fixed(r.seconds)
          << " s\n";
    }
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
    groups.push_back({{"round", g.round}, {"nodes", nodes}, {"ok", g.ok}, {"ran", g.ran},
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
