// The periodic check's rotation: which nodes run NCCL tonight (see rotation.h).

#include "rotation.h"

#include <algorithm>

namespace hkim::health {
namespace {

// The node's place in the sorted group; the node is counted even when the list missed it (a
// node listed late), so that every pod gets an answer.
int64_t IndexInGroup(std::vector<std::string> group, const std::string& node) {
  if (std::find(group.begin(), group.end(), node) == group.end()) group.push_back(node);
  std::sort(group.begin(), group.end());
  group.erase(std::unique(group.begin(), group.end()), group.end());
  return std::find(group.begin(), group.end(), node) - group.begin();
}

}  // namespace

int64_t UtcDayNumber(int64_t unix_seconds) {
  // Floor division: a time before 1970 still falls on the day it is in.
  return unix_seconds >= 0 ? unix_seconds / 86400 : -((-unix_seconds + 86399) / 86400);
}

int RotationNight(int64_t day, int nights) {
  if (nights <= 1) return 0;
  const int64_t night = day % nights;
  return static_cast<int>(night < 0 ? night + nights : night);
}

bool InTonightsSlice(std::vector<std::string> group, const std::string& node, int64_t day,
                     int nights) {
  return NightsUntilTurn(group, node, day, nights) == 0;
}

int NightsUntilTurn(const std::vector<std::string>& group, const std::string& node, int64_t day,
                    int nights) {
  if (nights <= 1) return 0;
  const int turn = static_cast<int>(IndexInGroup(group, node) % nights);
  const int tonight = RotationNight(day, nights);
  return (turn - tonight + nights) % nights;
}

}  // namespace hkim::health
