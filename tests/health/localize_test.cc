// Pairwise localization without a GPU: a fake check (which pods are slow, which one is flaky)
// drives the real pairing and verdict (localize.h), for 4, 5 and 64 pods; then the real
// exchange (localhost TCP, one thread per pod) with the fake measurement (localize_run.h).

#include "localize.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <unistd.h>
#include <set>
#include <sstream>
#include <thread>

#include "localize_run.h"

namespace hkim::health {
namespace {

// A fake fabric: a group is slow when it holds a bad pod (or a flaky one outside its good round).
struct FakeFabric {
  std::set<int> bad;
  int flaky = -1;
  int flaky_good_round = -1;
  int bad_rail = -1;  // when set, only that rail is slow for the bad pods
  int rails = 0;
  bool GroupOk(const std::vector<int>& members, int round) const {
    for (int m : members) {
      if (bad.count(m) && bad_rail < 0) return false;
      if (m == flaky && round != flaky_good_round) return false;
    }
    return true;
  }
  GroupResult Measure(const std::vector<int>& members, int round) const {
    GroupResult r;
    r.round = round;
    r.members = members;
    r.ran = true;
    r.ok = GroupOk(members, round);
    for (int rail = 0; rail < rails; ++rail) {
      bool ok = r.ok;
      for (int m : members) ok &= !(bad.count(m) && rail == bad_rail);
      r.rails.push_back({"mlx5_" + std::to_string(rail), ok, ok ? 45.0 : 12.0});
    }
    if (bad_rail >= 0) {
      bool any_bad_rail = false;
      for (const RailMeasure& m : r.rails) any_bad_rail |= !m.ok;
      r.ok = !any_bad_rail && r.ok;
    }
    r.busbw_gbps = r.ok ? 180 : 12;
    r.transport = r.ok ? "NET/IB" : "NET/Socket";
    return r;
  }
};

struct Drive {
  LocalizeVerdict verdict;
  int rounds = 0;
  std::vector<GroupResult> results;
};

Drive Localize(int n, const FakeFabric& fabric) {
  Drive drive;
  std::vector<LocalizePod> pods;
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> rails;
    for (int r = 0; r < fabric.rails; ++r) rails.push_back("mlx5_" + std::to_string(r + 10));
    pods.push_back({i, "gpu-n" + std::to_string(i), "gate-" + std::to_string(i), rails});
  }
  for (int round = 0; round < kLocalizeRounds; ++round) {
    const auto groups = PlanRound(n, round, KnownGood(n, drive.results));
    if (groups.empty()) break;
    // every pod in at most one group of a round
    std::set<int> seen;
    for (const auto& g : groups) {
      EXPECT_TRUE(g.size() == 2 || g.size() == 3);
      for (int m : g) EXPECT_TRUE(seen.insert(m).second) << "pod " << m << " twice in round " << round;
    }
    for (const auto& g : groups) drive.results.push_back(fabric.Measure(g, round));
    drive.rounds = round + 1;
  }
  drive.verdict = DecideSuspects(pods, drive.results, 45);
  return drive;
}

std::vector<std::string> Nodes(const LocalizeVerdict& verdict) {
  std::vector<std::string> nodes;
  for (const Suspect& s : verdict.suspects) nodes.push_back(s.node + (s.rail.empty() ? "" : "/" + s.rail));
  return nodes;
}

TEST(LocalizePlan, FourPodsRoundsAreNeighboursRotatedAndFar) {
  EXPECT_EQ(PlanRound(4, 0, {}), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(PlanRound(4, 1, {}), (std::vector<std::vector<int>>{{0, 3}, {1, 2}}));
  EXPECT_EQ(PlanRound(4, 2, {}), (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  EXPECT_TRUE(PlanRound(4, 3, {}).empty());
}

TEST(LocalizePlan, OddOneOutSitsOutRoundZeroThenJoinsAKnownGoodPair) {
  EXPECT_EQ(PlanRound(5, 0, {}), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  const std::vector<bool> good = {true, true, true, true, false};
  EXPECT_EQ(PlanRound(5, 1, good), (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4}}));
  EXPECT_EQ(PlanRound(5, 1, {false, true, false, false, false}),
            (std::vector<std::vector<int>>{{1, 2}, {3, 4}}));  // no known-good pair: sits out
}

TEST(LocalizePlan, TwoAndThreePods) {
  EXPECT_EQ(PlanRound(2, 0, {}), (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_TRUE(PlanRound(2, 1, {}).empty());
  EXPECT_EQ(PlanRound(3, 2, {}), (std::vector<std::vector<int>>{{0, 2}}));
}

TEST(Localize, FourPodsOneBadNodeIsNamed) {
  for (int bad = 0; bad < 4; ++bad) {
    const Drive d = Localize(4, {{bad}});
    EXPECT_EQ(Nodes(d.verdict), std::vector<std::string>{"gpu-n" + std::to_string(bad)});
    EXPECT_LE(d.rounds, kLocalizeRounds);
  }
}

TEST(Localize, FivePodsEveryBadNodeIsNamedIncludingTheOddOne) {
  for (int bad = 0; bad < 5; ++bad) {
    const Drive d = Localize(5, {{bad}});
    EXPECT_EQ(Nodes(d.verdict), std::vector<std::string>{"gpu-n" + std::to_string(bad)}) << bad;
  }
}

TEST(Localize, SixtyFourPodsTwoBadNodesInThreeRounds) {
  for (const auto& bad : std::vector<std::set<int>>{{5, 40}, {10, 12}, {20, 21}, {0, 63}}) {
    const Drive d = Localize(64, {bad});
    EXPECT_EQ(d.rounds, 3);
    std::vector<std::string> want;
    for (int b : bad) want.push_back("gpu-n" + std::to_string(b));
    EXPECT_EQ(Nodes(d.verdict), want) << *bad.begin();
    EXPECT_EQ(d.results.size(), 96u);  // 32 pairs a round, in parallel
  }
}

TEST(Localize, SuspectCarriesNumbersAndEvidence) {
  const Drive d = Localize(4, {{2}});
  ASSERT_EQ(d.verdict.suspects.size(), 1u);
  const Suspect& s = d.verdict.suspects[0];
  EXPECT_EQ(s.pod, "gate-2");
  EXPECT_EQ(s.busbw_gbps, 12);
  EXPECT_EQ(s.expected_gbps, 45);
  EXPECT_EQ(s.transport, "NET/Socket");
  EXPECT_NE(s.evidence.find("3 of 3"), std::string::npos) << s.evidence;
  EXPECT_EQ(SuspectLine(s), "node gpu-n2: 12 GB/s vs >= 45 expected (NET/Socket)");
}

TEST(Localize, FlakyNodeThatPassesOnceIsNotNamedButNoted) {
  const Drive d = Localize(8, {{}, 3, 1});
  EXPECT_TRUE(d.verdict.suspects.empty());
  bool noted = false;
  for (const std::string& note : d.verdict.notes) noted |= note.find("flaky") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Localize, TwoBadNodesWithOnlyEachOtherCannotBeToldApart) {
  const Drive d = Localize(2, {{0, 1}});
  EXPECT_TRUE(d.verdict.suspects.empty());
  ASSERT_FALSE(d.verdict.notes.empty());
  EXPECT_NE(d.verdict.notes[0].find("cannot tell apart"), std::string::npos);
  // a healthy group names nobody
  EXPECT_TRUE(Localize(64, {}).verdict.suspects.empty());
  EXPECT_TRUE(Localize(64, {}).verdict.notes.empty());
}

TEST(Localize, PerRailNamesTheRail) {
  FakeFabric fabric{{1}};
  fabric.rails = 4;
  fabric.bad_rail = 2;
  const Drive d = Localize(4, fabric);
  EXPECT_EQ(Nodes(d.verdict), std::vector<std::string>{"gpu-n1/mlx5_12"});
  EXPECT_EQ(SuspectLine(d.verdict.suspects[0]), "node gpu-n1 rail mlx5_12: 12 GB/s vs >= 45 expected (NET/Socket)");
}

// The whole run: one thread per pod, the real exchange on 127.0.0.1, a fake measurement.
TEST(LocalizeRun, FivePodsOverTheRealExchangeNameTheSlowPod) {
  const int n = 5, slow = 3;
  const int base = 20000 + static_cast<int>(::getpid() % 20000);
  std::vector<LocalizeOutcome> outcomes(n);
  std::vector<std::ostringstream> logs(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      LocalizeSetup setup;
      setup.ordinal = i;
      setup.replicas = n;
      setup.node = "gpu-n" + std::to_string(i);
      setup.pod = "gate-" + std::to_string(i);
      setup.pod_set = "gate";
      setup.master_addr = "127.0.0.1";
      setup.base_port = base;
      setup.pair_timeout_s = 10;
      setup.exchange_timeout_s = 10;
      setup.expected_gbps = 45;
      const GroupCheck fake = [&](const GroupRun& run) {
        MemberReport report;
        report.ran = true;
        report.ok = std::find(run.ordinals.begin(), run.ordinals.end(), slow) == run.ordinals.end();
        report.busbw_gbps = report.ok ? 180 : 4.3;
        report.transport = report.ok ? "P2P/CUMEM" : "NET/Socket";
        EXPECT_EQ(run.port, base + 2 + run.round * 3 + run.group);
        return report;
      };
      outcomes[i] = RunLocalization(setup, "fail", {}, fake, logs[i]);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(outcomes[i].ran) << logs[i].str() << outcomes[i].error;
    EXPECT_EQ(outcomes[i].rounds, 3);
    ASSERT_EQ(outcomes[i].verdict.suspects.size(), 1u) << logs[i].str();
    EXPECT_EQ(outcomes[i].verdict.suspects[0].node, "gpu-n3");
    EXPECT_EQ(outcomes[i].verdict.suspects[0].transport, "NET/Socket");
  }
  EXPECT_NE(logs[0].str().find("SUSPECT node gpu-n3: 4.3 GB/s vs >= 45 expected"), std::string::npos)
      << logs[0].str();
}

TEST(LocalizeRun, EveryPodPassedMeansNoRounds) {
  const int n = 3;
  const int base = 40000 + static_cast<int>(::getpid() % 20000);
  std::vector<LocalizeOutcome> outcomes(n);
  std::vector<std::thread> threads;
  std::atomic<int> measured{0};
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      LocalizeSetup setup;
      setup.ordinal = i;
      setup.replicas = n;
      setup.pod_set = "gate";
      setup.master_addr = "127.0.0.1";
      setup.base_port = base;
      setup.exchange_timeout_s = 10;
      std::ostringstream log;
      outcomes[i] = RunLocalization(setup, "pass", {}, [&](const GroupRun&) {
        ++measured;
        return MemberReport{};
      }, log);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(measured, 0);
  for (const LocalizeOutcome& o : outcomes) EXPECT_EQ(o.skipped, "the job check passed");
}

TEST(LocalizeRun, RecordOfAPairCheckBecomesAReport) {
  const MemberReport slow = ReportFromRecord(
      R"({"passed":false,"failures":["bus bandwidth 4.30 GB/s"],"results":[{"bytes":1024,"busbw_gbps":4.3}],
          "threshold":{"at_bytes":1024},"transport":{"summary":"NET/Socket x2"}})", 1, false, "");
  EXPECT_TRUE(slow.ran);
  EXPECT_FALSE(slow.ok);
  EXPECT_DOUBLE_EQ(slow.busbw_gbps, 4.3);
  EXPECT_EQ(slow.transport, "NET/Socket x2");
  const MemberReport rails = ReportFromRecord(
      R"({"mode":"per-rail","passed":false,"together":{"busbw_gbps":90},"rails":[
          {"device":"mlx5_10","status":"pass","busbw_gbps":45},{"device":"mlx5_11","status":"slow","busbw_gbps":12}]})",
      1, false, "");
  ASSERT_EQ(rails.rails.size(), 2u);
  EXPECT_FALSE(rails.rails[1].ok);
  EXPECT_EQ(rails.rails[1].device, "mlx5_11");
  EXPECT_FALSE(ReportFromRecord("", 137, true, "killed").ran);
}

// The device run's "port taken" case: pod 3 is slow; pod 2's groups of rounds 1 and 2 could
// not take part (their leader's port was in use). Pod 2's only measured group is the slow one
// with pod 3, so it must not be named; counted as failures, those groups named it.
std::vector<GroupResult> PortTakenResults(bool inconclusive) {
  auto group = [](int round, std::vector<int> members, bool ok) {
    GroupResult g;
    g.round = round;
    g.members = members;
    g.ran = ok;
    g.ok = ok;
    g.busbw_gbps = ok ? 300 : 2.5;
    g.transport = ok ? "P2P" : "NET/Socket";
    return g;
  };
  std::vector<GroupResult> results = {group(0, {0, 1}, true), group(0, {2, 3}, false),
                                      group(1, {0, 3}, false), group(1, {1, 2}, false),
                                      group(2, {0, 2}, false), group(2, {1, 3}, false)};
  for (GroupResult* g : {&results[3], &results[4]}) {
    g->ran = false;
    g->inconclusive = inconclusive;
    g->detail = "gpu-n1 could not take part (exit status 5, rendezvous failed: cannot listen on "
                "port 29657 for the rendezvous: Address already in use)";
  }
  return results;
}

std::vector<LocalizePod> FourPods() {
  std::vector<LocalizePod> pods;
  for (int i = 0; i < 4; ++i) pods.push_back({i, "gpu-n" + std::to_string(i), "train-" + std::to_string(i), {}});
  return pods;
}

TEST(Localize, AGroupInWhichAPodCouldNotTakePartIsNotEvidenceAgainstItsPeer) {
  const LocalizeVerdict verdict = DecideSuspects(FourPods(), PortTakenResults(true), 45);
  EXPECT_EQ(Nodes(verdict), std::vector<std::string>{"gpu-n3"});
  bool noted = false;
  for (const std::string& note : verdict.notes)
    noted |= note.rfind("round 1 gpu-n1-gpu-n2 inconclusive: gpu-n1 could not take part", 0) == 0;
  EXPECT_TRUE(noted) << ::testing::PrintToString(verdict.notes);
  // The same results with the broken groups counted as failures name the healthy gpu-n2 too.
  EXPECT_EQ(Nodes(DecideSuspects(FourPods(), PortTakenResults(false), 45)),
            (std::vector<std::string>{"gpu-n2", "gpu-n3"}));
}

TEST(Localize, AnInconclusiveGroupDoesNotMakeItsMembersKnownGood) {
  std::vector<GroupResult> results = PortTakenResults(true);
  results[0].inconclusive = true;  // 0-1 measured nothing
  const std::vector<bool> good = KnownGood(4, results);
  EXPECT_FALSE(good[0]);
  EXPECT_FALSE(good[1]);
}

MemberReport FakeMeasure(const GroupRun& run, int slow) {
  MemberReport report;
  report.ran = true;
  report.ok = std::find(run.ordinals.begin(), run.ordinals.end(), slow) == run.ordinals.end();
  report.busbw_gbps = report.ok ? 180 : 4.3;
  report.transport = report.ok ? "P2P/CUMEM" : "NET/Socket";
  return report;
}

// Four pods, one thread each, the real exchange, pod 3 slow; round 0's group 0-1 cannot take part
// on its first port, and with `retry_fails` on its retry port either.
std::vector<LocalizeOutcome> RunWithTakenPort(int base, bool retry_fails, std::vector<int>* ports) {
  const int n = 4, slow = 3;
  std::vector<LocalizeOutcome> outcomes(n);
  std::vector<std::ostringstream> logs(n);
  std::vector<std::thread> threads;
  std::mutex mutex;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      LocalizeSetup setup;
      setup.ordinal = i;
      setup.replicas = n;
      setup.node = "gpu-n" + std::to_string(i);
      setup.pod = "train-" + std::to_string(i);
      setup.pod_set = "train";
      setup.master_addr = "127.0.0.1";
      setup.base_port = base;
      setup.pair_timeout_s = 10;
      setup.exchange_timeout_s = 10;
      setup.expected_gbps = 45;
      const GroupCheck fake = [&](const GroupRun& run) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (run.rank == 0) ports->push_back(run.port);
        }
        const bool taken = run.round == 0 && run.group == 0 &&
                           (run.port == base + 2 || retry_fails);
        if (taken) {
          MemberReport report;
          report.took_part = false;
          report.detail = "exit status 5, rendezvous failed";
          return report;
        }
        return FakeMeasure(run, slow);
      };
      outcomes[i] = RunLocalization(setup, "fail", {}, fake, logs[i]);
    });
  }
  for (std::thread& t : threads) t.join();
  return outcomes;
}

TEST(LocalizeRun, AGroupThatCouldNotTakePartIsRetriedOnceOnAPortOfItsOwn) {
  const int base = 21000 + static_cast<int>(::getpid() % 9000) * 2;
  std::vector<int> ports;
  const std::vector<LocalizeOutcome> outcomes = RunWithTakenPort(base, false, &ports);
  // 4 pods: ceil(4/2) = 2 groups a round; the retry of round 0 group 0 is slot (3 + 0) * 2 + 0.
  EXPECT_NE(std::find(ports.begin(), ports.end(), base + 2 + 6), ports.end())
      << ::testing::PrintToString(ports);
  for (const LocalizeOutcome& o : outcomes) {
    ASSERT_TRUE(o.ran) << o.error;
    ASSERT_GE(o.results.size(), 1u);
    EXPECT_TRUE(o.results[0].ok);  // the retry measured 0-1 and it passed
    EXPECT_FALSE(o.results[0].inconclusive);
    EXPECT_EQ(Nodes(o.verdict), std::vector<std::string>{"gpu-n3"});
  }
}

TEST(LocalizeRun, AGroupThatCannotTakePartTwiceStaysInconclusive) {
  const int base = 41000 + static_cast<int>(::getpid() % 9000) * 2;
  std::vector<int> ports;
  const std::vector<LocalizeOutcome> outcomes = RunWithTakenPort(base, true, &ports);
  for (const LocalizeOutcome& o : outcomes) {
    ASSERT_TRUE(o.ran) << o.error;
    EXPECT_TRUE(o.results[0].inconclusive);
    EXPECT_EQ(LocalizationJson(o)["groups"][0]["status"], "inconclusive");
    EXPECT_EQ(Nodes(o.verdict), std::vector<std::string>{"gpu-n3"});
  }
}

TEST(LocalizeRun, ARunThatCouldNotTakePartIsToldApartFromASlowOne) {
  const MemberReport bind = ReportFromRecord(
      R"({"tool":"hkim-nccl-check","passed":false,"took_part":false,
          "rendezvous":{"error":"cannot listen on port 29657 for the rendezvous: Address already in use"},
          "failures":["rendezvous: cannot listen"]})", 5, false, "");
  EXPECT_FALSE(bind.took_part);
  EXPECT_EQ(bind.detail, "exit status 5, rendezvous failed: cannot listen on port 29657 for the "
                         "rendezvous: Address already in use");
  EXPECT_FALSE(ReportFromRecord("", 5, false, "").took_part);      // exit 5 without a record
  EXPECT_FALSE(ReportFromRecord("", 137, false, "").took_part);    // killed for memory
  EXPECT_FALSE(ReportFromRecord("", 3, false, "").took_part);      // no GPU
  const MemberReport hung = ReportFromRecord("", 137, true, "did not finish within 30 s");
  EXPECT_TRUE(hung.took_part);  // our own kill after the rendezvous: NCCL hung on the fabric
  EXPECT_FALSE(hung.ran);
  const MemberReport slow = ReportFromRecord(R"({"passed":false,"failures":["slow"]})", 1, false, "");
  EXPECT_TRUE(slow.took_part);
  EXPECT_TRUE(slow.ran);
}

TEST(LocalizeRun, ARecordOfAnyShapeNeverThrows) {
  for (const char* record :
       {R"({"failures":[1],"results":[{"bytes":"x","busbw_gbps":"fast"}],"threshold":{"at_bytes":"1G"}})",
        R"({"transport":{"summary":7}})", R"({"rails":"none"})", R"({"rails":[1,2]})",
        R"({"together":{"busbw_gbps":"x"},"rails":[{"device":3,"status":null}]})", "[1,2]", "{"}) {
    EXPECT_NO_THROW(ReportFromRecord(record, 1, false, "")) << record;
  }
}

}  // namespace
}  // namespace hkim::health
