#pragma once

// How `diff` shows a changed file: its lines compared in linear space and near-linear time for
// the usual few changes (common head and tail trimmed, then Myers' O(ND) algorithm split at the
// middle snake), printed as `diff -u` hunks; and a manifest's multi-line quoted values shown as
// their own lines.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hkim {

/// The work cap of one comparison, in search steps (a few nanoseconds each): past it, what is
/// left is shown whole, so no pair of files can hold `diff` up.
inline constexpr uint64_t kDiffMaxWork = uint64_t{1} << 28;

/// Which lines of two texts an edit script from the old to the new deletes and inserts.
struct LineDiff {
  std::vector<bool> deleted;   ///< one per line of the old text
  std::vector<bool> inserted;  ///< one per line of the new text
  /// False when a region took more than a shortest-edit search's cost and was aligned by the
  /// furthest-reaching path instead (still a correct edit script, maybe not the shortest).
  bool minimal = true;
  /// Lines (old and new together) of the regions left unaligned because the whole comparison
  /// reached its work cap: each such region is shown as deleted whole, then inserted whole.
  size_t unaligned_lines = 0;
  /// Search steps taken (diagonals visited and equal lines followed): what the time grows with.
  uint64_t search_steps = 0;
  size_t changed_lines() const;  ///< deleted plus inserted
};

/// Compares `a` with `b` line by line: a shortest edit script (deletions before insertions
/// where both fit; each run of changed lines as late as equal lines allow), in memory linear
/// in the lines and time O((N+M)·D) up to a cost bound per region (then `minimal` is false)
/// and a total work cap (then `unaligned_lines` counts what was not aligned).
LineDiff DiffLines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                   uint64_t max_work = kDiffMaxWork);

/// The lines of `text` as views into it: each ends at a newline, which is not part of it; a
/// last line without one counts too (std::getline's split).
std::vector<std::string_view> SplitLines(std::string_view text);

/// `diff -u`-style text of two texts, three lines of context, or "" when equal. When the work
/// cap left regions unaligned, the first hunk's header says how many lines they hold.
std::string UnifiedDiff(const std::string& old_text, const std::string& new_text,
                        const std::string& old_label, const std::string& new_label,
                        uint64_t max_work = kDiffMaxWork);

/// `yaml_text` with every `key: "..."` line whose value holds a newline replaced by
/// `key: |` and the value's lines, indented two spaces deeper: for display only (the YAML
/// means the same up to the final newline; the file is compared byte for byte elsewhere). A NAD's
/// CNI config is such a value: shown as its lines, a change to one field is a one-line change.
std::string ExpandQuotedMultilineValues(const std::string& yaml_text);

}  // namespace hkim
