#include "localize.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace hkim::health {
namespace {

std::string Gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value >= 10 ? "%.0f" : "%.1f", value);
  return text;
}

// How one group did for `key` (-1 = all rails together, else the rail index).
struct Outcome {
  bool measured = false;  // false: this group says nothing about the key
  bool ok = false;
  double gbps = 0;
};

Outcome For(const GroupResult& group, int key) {
  if (group.inconclusive) return {};  // nothing was measured: no evidence either way
  if (key < 0) return {true, group.ok, group.busbw_gbps};
  if (!group.ran) return {true, false, 0};  // broken before any rail ran: every rail failed
  if (key >= static_cast<int>(group.rails.size())) return {};
  return {true, group.rails[key].ok, group.rails[key].busbw_gbps};
}

std::string RailName(const std::vector<LocalizePod>& pods, const std::vector<GroupResult>& results,
                     int pod, int key) {
  if (key < 0) return "";
  if (key < static_cast<int>(pods[pod].rails.size()) && !pods[pod].rails[key].empty())
    return pods[pod].rails[key];
  for (const GroupResult& group : results)
    if (key < static_cast<int>(group.rails.size()) && !group.rails[key].device.empty())
      return group.rails[key].device;
  return "rail " + std::to_string(key);
}

std::vector<Suspect> DecideKey(const std::vector<LocalizePod>& pods,
                               const std::vector<GroupResult>& results, double expected, int key,
                               std::vector<std::string>* notes) {
  const int n = static_cast<int>(pods.size());
  std::vector<int> passed(n, 0);
  std::vector<std::vector<const GroupResult*>> failed(n);
  for (const GroupResult& group : results) {
    const Outcome outcome = For(group, key);
    if (!outcome.measured) continue;
    for (int member : group.members) {
      if (member < 0 || member >= n) continue;
      if (outcome.ok) ++passed[member];
      else failed[member].push_back(&group);
    }
  }
  const std::string where = key < 0 ? "" : " on rail index " + std::to_string(key);
  std::vector<Suspect> suspects;
  std::set<int> named;
  for (int p = 0; p < n; ++p) {
    if (passed[p] > 0 || failed[p].empty()) continue;
    std::set<int> partners, fine;
    std::string groups;
    const GroupResult* best = nullptr;
    for (const GroupResult* group : failed[p]) {
      std::string with;
      for (int member : group->members) {
        if (member == p || member < 0 || member >= n) continue;
        partners.insert(member);
        if (passed[member] > 0) fine.insert(member);
        with += (with.empty() ? "" : "+") + pods[member].node;
      }
      const Outcome outcome = For(*group, key);
      groups += (groups.empty() ? "" : "; ") + std::string("round ") +
                std::to_string(group->round) + " with " + with + ": " +
                (group->ran ? Gbps(outcome.gbps) + " GB/s" +
                                  (group->transport.empty() ? "" : " " + group->transport)
                            : "broken (" + group->detail + ")");
      if (best == nullptr || For(*best, key).gbps < outcome.gbps) best = group;
    }
    if (fine.empty()) {
      std::string others;
      for (int q : partners) others += ", " + pods[q].node;
      notes->push_back("cannot tell apart" + where + ": " + pods[p].node + others +
                       " (measured only with each other or with failing nodes)");
      continue;
    }
    std::string fine_text;
    for (int q : fine) fine_text += (fine_text.empty() ? "" : ", ") + pods[q].node;
    Suspect suspect;
    suspect.ordinal = pods[p].ordinal;
    suspect.node = pods[p].node;
    suspect.pod = pods[p].pod;
    suspect.rail = RailName(pods, results, p, key);
    suspect.busbw_gbps = For(*best, key).gbps;
    suspect.expected_gbps = expected;
    suspect.transport = best->transport;
    suspect.evidence = std::to_string(failed[p].size()) + " of " +
                       std::to_string(failed[p].size()) + " group(s) failed (" + groups +
                       "); passed elsewhere: " + fine_text;
    suspects.push_back(suspect);
    named.insert(p);
  }
  // Failed groups no suspect explains: a flaky pod (passed once) or a fault between two nodes.
  for (const GroupResult& group : results) {
    const Outcome outcome = For(group, key);
    if (!outcome.measured || outcome.ok) continue;
    bool explained = false;
    std::string members;
    for (int member : group.members) {
      if (member < 0 || member >= n) continue;
      explained |= named.count(member) > 0 || passed[member] == 0;
      members += (members.empty() ? "" : "-") + pods[member].node;
    }
    if (!explained)
      notes->push_back("round " + std::to_string(group.round) + " " + members + " failed" + where +
                       " but each passed with another partner (flaky, or a fault between "
                       "these nodes only)");
  }
  return suspects;
}

}  // namespace

std::vector<std::vector<int>> PlanRound(int pods, int round, const std::vector<bool>& known_good) {
  std::vector<std::vector<int>> groups;
  if (pods < 2 || round < 0 || round >= kLocalizeRounds) return groups;
  if (pods == 2) {
    if (round == 0) groups.push_back({0, 1});
    return groups;
  }
  if (pods == 3) {
    std::vector<int> pair = {round, (round + 1) % 3};
    std::sort(pair.begin(), pair.end());
    groups.push_back(pair);
    return groups;
  }
  std::vector<bool> used(pods, false);
  auto add = [&](int a, int b) {
    if (used[a] || used[b] || a == b) return;
    used[a] = used[b] = true;
    groups.push_back({std::min(a, b), std::max(a, b)});
  };
  if (round == 0) {
    for (int i = 0; i + 1 < pods; i += 2) add(i, i + 1);
  } else if (round == 1) {
    for (int i = 1; i < pods; i += 2) add(i, (i + 1) % pods);
  } else {
    for (int i = 0; i < pods; ++i) add(i, (i + pods / 2) % pods);
  }
  for (int i = 0; i < pods; ++i) {
    if (used[i]) continue;
    // The odd one out: with a pair that is known to be good, so a failure is its own.
    for (std::vector<int>& group : groups) {
      const bool good = std::all_of(group.begin(), group.end(), [&](int m) {
        return m < static_cast<int>(known_good.size()) && known_good[m];
      });
      if (!good || group.size() != 2) continue;
      group.push_back(i);
      std::sort(group.begin(), group.end());
      used[i] = true;
      break;
    }
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

std::vector<bool> KnownGood(int pods, const std::vector<GroupResult>& results) {
  std::vector<int> passed(pods, 0), failed(pods, 0);
  for (const GroupResult& group : results) {
    if (group.inconclusive) continue;
    for (int member : group.members)
      if (member >= 0 && member < pods) ++(group.ok ? passed : failed)[member];
  }
  std::vector<bool> good(pods);
  for (int i = 0; i < pods; ++i) good[i] = passed[i] > 0 && failed[i] == 0;
  return good;
}

LocalizeVerdict DecideSuspects(const std::vector<LocalizePod>& pods,
                               const std::vector<GroupResult>& results, double expected_gbps) {
  LocalizeVerdict verdict;
  for (const GroupResult& group : results) {
    if (!group.inconclusive) continue;
    std::string members;
    for (int member : group.members)
      if (member >= 0 && member < static_cast<int>(pods.size()))
        members += (members.empty() ? "" : "-") + pods[member].node;
    verdict.notes.push_back("round " + std::to_string(group.round) + " " + members +
                            " inconclusive: " + group.detail +
                            " (a pod could not take part: not evidence against either node)");
  }
  std::vector<Suspect> together = DecideKey(pods, results, expected_gbps, -1, &verdict.notes);
  size_t rails = 0;
  for (const GroupResult& group : results) rails = std::max(rails, group.rails.size());
  std::map<int, std::vector<Suspect>> by_rail;  // plan ordinal -> rail suspects
  for (size_t r = 0; r < rails; ++r)
    for (Suspect& s : DecideKey(pods, results, expected_gbps, static_cast<int>(r), &verdict.notes))
      by_rail[s.ordinal].push_back(std::move(s));
  // A node named on a rail is reported per rail (more precise); otherwise as a whole.
  for (Suspect& s : together)
    if (!by_rail.count(s.ordinal)) verdict.suspects.push_back(std::move(s));
  for (auto& [ordinal, list] : by_rail)
    for (Suspect& s : list) verdict.suspects.push_back(std::move(s));
  std::stable_sort(verdict.suspects.begin(), verdict.suspects.end(),
                   [](const Suspect& a, const Suspect& b) { return a.ordinal < b.ordinal; });
  return verdict;
}

std::string SuspectLine(const Suspect& suspect) {
  return "node " + suspect.node + (suspect.rail.empty() ? "" : " rail " + suspect.rail) + ": " +
         Gbps(suspect.busbw_gbps) + " GB/s vs >= " + Gbps(suspect.expected_gbps) + " expected" +
         (suspect.transport.empty() ? "" : " (" + suspect.transport + ")");
}

}  // namespace hkim::health
