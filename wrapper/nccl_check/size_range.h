#pragma once
// Message sizes for the all-reduce sweep: parsing "64M"-style byte counts and building the
// doubling sweep that nccl-tests uses (-b MIN -e MAX -f 2).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hkim::nccl_check {

/// Parses a byte count: a plain integer ("1048576") or an integer with a binary unit
/// ("64K", "64KiB", "1M", "1MiB", "1G", "1GiB"; case-insensitive, "B" alone allowed).
/// Returns nullopt for anything else (empty, negative, fractions, unknown units, overflow).
std::optional<std::uint64_t> ParseByteCount(std::string_view text);

/// Formats a byte count the way the table prints it: "1 MiB", "64 MiB", "1 GiB", or "1000 B"
/// when it is not a whole number of KiB.
std::string FormatByteCount(std::uint64_t bytes);

/// Builds the sweep min, 2*min, 4*min, ... up to and including max (max itself is added when it
/// is not on the doubling ladder), plus `extra` when non-zero and within [min, max]. Sorted,
/// without duplicates. Every size must be a multiple of `element_bytes`; sizes that are not are
/// rounded down to one (never below one element). Returns an empty vector when min > max or
/// min == 0.
std::vector<std::uint64_t> MakeSizeSweep(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                         std::uint64_t extra_bytes, std::uint64_t element_bytes);

}  // namespace hkim::nccl_check
