// Pod mode's assembly of the pod set over the real exchange on 127.0.0.1 (one thread per pod):
// a whole set of one revision assembles; a pod of another revision is absent; a pod alone
// (rank 0 never listens, or its peers never come) gives up within its bound.

#include "assemble.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>
#include <vector>

namespace hkim::health {
namespace {

AssembleSetup Pod(int ordinal, int replicas, int port, std::string revision, double timeout_s) {
  AssembleSetup setup;
  setup.ordinal = ordinal;
  setup.replicas = replicas;
  setup.master_addr = "127.0.0.1";
  setup.port = port;
  setup.revision = std::move(revision);
  setup.node = "gpu-n" + std::to_string(ordinal);
  setup.pod = "train-" + std::to_string(ordinal);
  setup.timeout_s = timeout_s;
  return setup;
}

std::vector<AssembleResult> Assemble(const std::vector<AssembleSetup>& pods) {
  std::vector<AssembleResult> results(pods.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < pods.size(); ++i)
    threads.emplace_back([&, i] {
      std::ostringstream log;
      results[i] = AssemblePodSet(pods[i], log);
    });
  for (std::thread& t : threads) t.join();
  return results;
}

int Port(int offset) { return 22000 + static_cast<int>(::getpid() % 8000) * 4 + offset; }

TEST(Assemble, AWholeSetOfOneRevisionAssembles) {
  const int port = Port(0);
  const auto results = Assemble(
      {Pod(0, 3, port, "rev-a", 10), Pod(1, 3, port, "rev-a", 10), Pod(2, 3, port, "rev-a", 10)});
  for (const AssembleResult& r : results) {
    EXPECT_TRUE(r.complete) << r.detail;
    EXPECT_EQ(r.present, 3);
    EXPECT_LT(r.seconds, 5);
  }
}

TEST(Assemble, APodOfAnotherRevisionCountsAsAbsent) {
  const int port = Port(1);
  const auto results = Assemble(
      {Pod(0, 3, port, "rev-a", 2), Pod(1, 3, port, "rev-a", 2), Pod(2, 3, port, "rev-b", 2)});
  for (const AssembleResult& r : results) EXPECT_FALSE(r.complete);
  EXPECT_EQ(results[0].present, 2);
  EXPECT_EQ(results[0].detail, "ordinal(s) 2 absent");
  EXPECT_EQ(results[1].present, 2);
}

TEST(Assemble, AnEmptyRevisionIsNotChecked) {
  const int port = Port(2);
  const auto results = Assemble({Pod(0, 2, port, "", 10), Pod(1, 2, port, "rev-b", 10)});
  for (const AssembleResult& r : results) EXPECT_TRUE(r.complete) << r.detail;
}

TEST(Assemble, APeerAloneGivesUpWithinItsBound) {
  const auto start = std::chrono::steady_clock::now();
  const auto results = Assemble({Pod(2, 4, Port(3), "rev-a", 2)});  // rank 0 never listens
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(results[0].complete);
  EXPECT_LT(seconds, 4);
  EXPECT_NE(results[0].detail.find("no table from rank 0"), std::string::npos) << results[0].detail;
}

TEST(Assemble, RankZeroAloneGivesUpWithinItsBound) {
  const auto results = Assemble({Pod(0, 4, Port(3), "rev-a", 2)});  // its peers never come
  EXPECT_FALSE(results[0].complete);
  EXPECT_EQ(results[0].present, 1);
  EXPECT_EQ(results[0].detail, "ordinal(s) 1, 2, 3 absent");
  EXPECT_LT(results[0].seconds, 3);
}

}  // namespace
}  // namespace hkim::health
