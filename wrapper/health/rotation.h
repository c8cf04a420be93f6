#pragma once
// The periodic check's rotation: the CronJob puts one pod on every node of the pool
// each night, but only one slice of the pool runs the NCCL checks, so a large pool is covered
// over `nights` nights instead of spending every idle GPU on NCCL every night. The slice is
// deterministic from the UTC date alone: node i of the group's sorted names runs on the nights
// whose day number (days since 1970-01-01) is i mod nights. Any `nights` consecutive days take
// every residue once, so every node is reached within `nights` nights while the group's names
// stay the same. A node joining or leaving shifts the index of every node sorted after it, which
// moves their turns: while the pool changes, a node can wait longer than `nights` nights.

#include <cstdint>
#include <string>
#include <vector>

namespace hkim::health {

/// Days since 1970-01-01 (UTC) of a Unix time in seconds.
int64_t UtcDayNumber(int64_t unix_seconds);

/// The night of the rotation `day` falls on: 0 .. nights-1.
int RotationNight(int64_t day, int nights);

/// Whether `node` runs the NCCL checks on `day`: its index among the sorted, deduplicated
/// `group` (the node itself is added when the list missed it) mod `nights` is `day`'s night.
/// nights <= 1: every night.
bool InTonightsSlice(std::vector<std::string> group, const std::string& node, int64_t day,
                     int nights);

/// Nights from `day` until `node`'s next turn (0 = tonight).
int NightsUntilTurn(const std::vector<std::string>& group, const std::string& node, int64_t day,
                    int nights);

}  // namespace hkim::health
