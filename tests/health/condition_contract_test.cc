// The node condition is a contract between two programs: the bundle's consumers, admission
// policy and doctor (generator/model/health_consumers.h) read what hkim-health writes
// (wrapper/health/node_condition.h). Each program keeps its own names; this holds them equal.

#include <gtest/gtest.h>

#include <string>

#include "model/health_consumers.h"
#include "node_condition.h"

namespace hkim {
namespace {

TEST(ConditionContract, TheWritersNamesAreTheOnesTheBundleReads) {
  EXPECT_EQ(std::string(health::kConditionType), kFabricConditionType);
  EXPECT_EQ(std::string(health::kReasonHasIssues), kFabricConditionIssues);
  EXPECT_EQ(std::string(health::kReasonHasNoIssues), kFabricConditionNoIssues);
  EXPECT_EQ(std::string(health::kReasonStale), kFabricConditionStale);
}

}  // namespace
}  // namespace hkim
