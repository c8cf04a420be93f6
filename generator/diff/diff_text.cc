#include "diff/diff_text.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace hkim {
namespace {

using Index = std::ptrdiff_t;

// Regions whose shortest edit script costs more than this many steps are split at the
// furthest-reaching path instead (GNU diff's bound: about twice the square root of the lines,
// at least 4096), so a file of N lines costs about N^1.5 at worst rather than N^2.
Index CostBound(size_t lines) {
  Index bound = 1;
  for (size_t diagonals = lines + 3; diagonals != 0; diagonals >>= 2) bound <<= 1;
  return std::max<Index>(4096, bound);
}

/// Myers' middle-snake search over two sequences of line numbers (equal lines, equal
/// numbers), marking the lines that are not on the path in `out`. Memory: two arrays of one
/// entry per diagonal, whatever the distance.
class MiddleSnakeSearch {
 public:
  MiddleSnakeSearch(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y,
                    uint64_t max_work, LineDiff& out)
      : max_work_(max_work),
        x_(x),
        y_(y),
        out_(out),
        forward_(x.size() + y.size() + 3),
        backward_(x.size() + y.size() + 3),
        offset_(static_cast<Index>(y.size()) + 1),
        cost_bound_(CostBound(x.size() + y.size())) {}

  void Run() {
    // Regions are independent once split (each marks its own lines), so a stack replaces the
    // recursion and its depth.
    std::vector<Region> todo{{0, Size(x_), 0, Size(y_), false}};
    while (!todo.empty()) {
      Region r = todo.back();
      todo.pop_back();
      while (r.xoff < r.xlim && r.yoff < r.ylim && x_[r.xoff] == y_[r.yoff]) ++r.xoff, ++r.yoff;
      while (r.xoff < r.xlim && r.yoff < r.ylim && x_[r.xlim - 1] == y_[r.ylim - 1])
        --r.xlim, --r.ylim;
      if (r.xoff == r.xlim || r.yoff == r.ylim) {
        Mark(r);
        continue;
      }
      const std::optional<Split> split = work_ > max_work_ ? std::nullopt : Diagonal(r);
      if (!split) {
        out_.unaligned_lines += static_cast<size_t>((r.xlim - r.xoff) + (r.ylim - r.yoff));
        Mark(r);
        continue;
      }
      todo.push_back({split->x, r.xlim, split->y, r.ylim, split->hi_minimal});
      todo.push_back({r.xoff, split->x, r.yoff, split->y, split->lo_minimal});
    }
    out_.search_steps = work_;
  }

 private:
  struct Region {
    Index xoff, xlim, yoff, ylim;
    bool find_minimal;  // its distance is known to be small: no heuristic split
  };
  struct Split {
    Index x, y;
    bool lo_minimal, hi_minimal;
  };

  static Index Size(const std::vector<uint32_t>& v) { return static_cast<Index>(v.size()); }
  Index& F(Index diagonal) { return forward_[static_cast<size_t>(diagonal + offset_)]; }
  Index& B(Index diagonal) { return backward_[static_cast<size_t>(diagonal + offset_)]; }

  void Mark(const Region& r) {
    for (Index i = r.xoff; i < r.xlim; ++i) out_.deleted[static_cast<size_t>(i)] = true;
    for (Index j = r.yoff; j < r.ylim; ++j) out_.inserted[static_cast<size_t>(j)] = true;
  }

  // Where a shortest path through `r` crosses its middle: the forward and the backward search
  // advance one edit at a time on every diagonal (x - y) until they overlap. Ties prefer a
  // deletion, so deletions come before insertions. nullopt once the work cap is passed.
  std::optional<Split> Diagonal(const Region& r) {
    const Index dmin = r.xoff - r.ylim, dmax = r.xlim - r.yoff;
    const Index fmid = r.xoff - r.yoff, bmid = r.xlim - r.ylim;
    Index fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
    const bool odd = ((fmid - bmid) & 1) != 0;
    constexpr Index kNone = std::numeric_limits<Index>::max();
    F(fmid) = r.xoff;
    B(bmid) = r.xlim;
    for (Index cost = 1;; ++cost) {
      // One more edit reaches one more diagonal on each side, unless the region's edge stops
      // it (then the range steps inward); the diagonal beyond is a sentinel no path takes.
      if (fmin > dmin)
        F(--fmin - 1) = -1;
      else
        ++fmin;
      if (fmax < dmax)
        F(++fmax + 1) = -1;
      else
        --fmax;
      for (Index d = fmax; d >= fmin; d -= 2) {
        const Index lo = F(d - 1), hi = F(d + 1);
        const Index x0 = lo >= hi ? lo + 1 : hi;
        Index x = x0, y = x0 - d;
        while (x < r.xlim && y < r.ylim && x_[x] == y_[y]) ++x, ++y;
        work_ += static_cast<uint64_t>(1 + x - x0);
        F(d) = x;
        if (odd && bmin <= d && d <= bmax && B(d) <= x) return Split{x, y, true, true};
      }
      if (bmin > dmin)
        B(--bmin - 1) = kNone;
      else
        ++bmin;
      if (bmax < dmax)
        B(++bmax + 1) = kNone;
      else
        --bmax;
      for (Index d = bmax; d >= bmin; d -= 2) {
        const Index lo = B(d - 1), hi = B(d + 1);
        const Index x0 = lo < hi ? lo : hi - 1;
        Index x = x0, y = x0 - d;
        while (x > r.xoff && y > r.yoff && x_[x - 1] == y_[y - 1]) --x, --y;
        work_ += static_cast<uint64_t>(1 + x0 - x);
        B(d) = x;
        if (!odd && fmin <= d && d <= fmax && x <= F(d)) return Split{x, y, true, true};
      }
      if (work_ > max_work_) return std::nullopt;
      if (r.find_minimal || cost < cost_bound_) continue;
      return FurthestReaching(r, fmin, fmax, bmin, bmax);
    }
  }

  // Past the cost bound: split where the forward or the backward search got furthest; the
  // half it covered costs at most the bound, so that half is searched exactly.
  Split FurthestReaching(const Region& r, Index fmin, Index fmax, Index bmin, Index bmax) {
    out_.minimal = false;
    Index forward_sum = -1, forward_x = r.xoff;
    for (Index d = fmax; d >= fmin; d -= 2) {
      Index x = std::min(F(d), r.xlim), y = x - d;
      if (r.ylim < y) x = r.ylim + d, y = r.ylim;
      if (forward_sum < x + y) forward_sum = x + y, forward_x = x;
    }
    Index backward_sum = std::numeric_limits<Index>::max(), backward_x = r.xlim;
    for (Index d = bmax; d >= bmin; d -= 2) {
      Index x = std::max(r.xoff, B(d)), y = x - d;
      if (y < r.yoff) x = r.yoff + d, y = r.yoff;
      if (x + y < backward_sum) backward_sum = x + y, backward_x = x;
    }
    if ((r.xlim + r.ylim) - backward_sum < forward_sum - (r.xoff + r.yoff))
      return Split{forward_x, forward_sum - forward_x, true, false};
    return Split{backward_x, backward_sum - backward_x, false, true};
  }

  const uint64_t max_work_;
  const std::vector<uint32_t>& x_;
  const std::vector<uint32_t>& y_;
  LineDiff& out_;
  std::vector<Index> forward_, backward_;  // furthest x on each diagonal
  const Index offset_;                     // diagonal -> index (diagonals run from -M-1)
  const Index cost_bound_;
  uint64_t work_ = 0;
};

// Moves each run of changed lines down while the line after it equals its first line: the
// same edit script, with a change placed after the equal lines it could stand before (as a
// search from the top keeps the first equal line).
void SlideRunsDown(const std::vector<uint32_t>& lines, std::vector<bool>& changed) {
  const size_t n = lines.size();
  size_t i = 0;
  while (i < n) {
    if (!changed[i]) {
      ++i;
      continue;
    }
    size_t start = i, end = i;
    while (end < n && changed[end]) ++end;
    while (end < n && lines[start] == lines[end]) {
      changed[start++] = false;
      changed[end++] = true;
      while (end < n && changed[end]) ++end;
    }
    i = end;
  }
}

struct Edit {
  char op;  // ' ' keep, '-' delete, '+' insert
  uint32_t ai, bi;
};

}  // namespace

size_t LineDiff::changed_lines() const {
  return static_cast<size_t>(std::count(deleted.begin(), deleted.end(), true) +
                             std::count(inserted.begin(), inserted.end(), true));
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  return lines;
}

LineDiff DiffLines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                   uint64_t max_work) {
  LineDiff diff;
  diff.deleted.assign(a.size(), false);
  diff.inserted.assign(b.size(), false);
  // Equal lines get equal numbers (the numbers are compared, never ordered or printed).
  std::unordered_map<std::string_view, uint32_t> numbers;
  numbers.reserve(a.size() + b.size());
  std::vector<uint32_t> x, y;
  x.reserve(a.size());
  y.reserve(b.size());
  for (std::string_view line : a)
    x.push_back(numbers.emplace(line, static_cast<uint32_t>(numbers.size())).first->second);
  for (std::string_view line : b)
    y.push_back(numbers.emplace(line, static_cast<uint32_t>(numbers.size())).first->second);
  MiddleSnakeSearch(x, y, max_work, diff).Run();
  SlideRunsDown(x, diff.deleted);
  SlideRunsDown(y, diff.inserted);
  return diff;
}

std::string UnifiedDiff(const std::string& old_text, const std::string& new_text,
                        const std::string& old_label, const std::string& new_label,
                        uint64_t max_work) {
  if (old_text == new_text) return "";
  const std::vector<std::string_view> a = SplitLines(old_text);
  const std::vector<std::string_view> b = SplitLines(new_text);
  const LineDiff diff = DiffLines(a, b, max_work);
  std::vector<Edit> edits;
  edits.reserve(std::max(a.size(), b.size()));
  for (size_t i = 0, j = 0; i < a.size() || j < b.size();) {
    if (i < a.size() && diff.deleted[i]) {
      edits.push_back({'-', static_cast<uint32_t>(i++), static_cast<uint32_t>(j)});
    } else if (j < b.size() && diff.inserted[j]) {
      edits.push_back({'+', static_cast<uint32_t>(i), static_cast<uint32_t>(j++)});
    } else {
      edits.push_back({' ', static_cast<uint32_t>(i++), static_cast<uint32_t>(j++)});
    }
  }
  constexpr size_t kContext = 3;
  std::string out = "--- " + old_label + "\n+++ " + new_label + "\n";
  std::string note;
  if (diff.unaligned_lines > 0) {
    note = " " + std::to_string(diff.changed_lines()) + " lines changed; " +
           std::to_string(diff.unaligned_lines) +
           " of them too far apart to align line by line, shown deleted, then inserted";
  }
  size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].op == ' ') ++k;
    if (k == edits.size()) break;
    const size_t start = k >= kContext ? k - kContext : 0;
    size_t end = k;
    // Extend the hunk while the next change is within 2 × context lines.
    while (end < edits.size()) {
      if (edits[end].op != ' ') {
        ++end;
        continue;
      }
      size_t run = end;
      while (run < edits.size() && edits[run].op == ' ') ++run;
      if (run == edits.size() || run - end > 2 * kContext) {
        end = std::min(edits.size(), end + kContext);
        break;
      }
      end = run;
    }
    const size_t old_start = edits[start].ai, new_start = edits[start].bi;
    size_t old_count = 0, new_count = 0;
    std::string body;
    for (size_t e = start; e < end; ++e) {
      const Edit& edit = edits[e];
      if (edit.op != '+') ++old_count;
      if (edit.op != '-') ++new_count;
      body += edit.op;
      body += edit.op == '+' ? b[edit.bi] : a[edit.ai];
      body += '\n';
    }
    // diff -u numbers an empty range by the line before it.
    out += "@@ -" + std::to_string(old_count ? old_start + 1 : old_start) + "," +
           std::to_string(old_count) + " +" +
           std::to_string(new_count ? new_start + 1 : new_start) + "," + std::to_string(new_count) +
           " @@" + note + "\n" + body;
    note.clear();
    k = end;
  }
  return out;
}

std::string ExpandQuotedMultilineValues(const std::string& yaml_text) {
  std::istringstream in(yaml_text);
  std::string out, line;
  while (std::getline(in, line)) {
    const size_t indent = line.find_first_not_of(' ');
    const size_t colon = line.find(": \"", indent == std::string::npos ? 0 : indent);
    // Only a line that is `key: "...\n..."` whole: the escape \n marks a multi-line value.
    if (indent == std::string::npos || colon == std::string::npos || line.back() != '"' ||
        line.find("\\n", colon) == std::string::npos || line[indent] == '-') {
      out += line + "\n";
      continue;
    }
    std::string value;
    try {
      value = YAML::Load("v: " + line.substr(colon + 2))["v"].as<std::string>();
    } catch (const YAML::Exception&) {
      out += line + "\n";  // not one scalar after all: shown as it is
      continue;
    }
    out += line.substr(0, colon + 1) + " |\n";
    std::istringstream lines(value);
    std::string part;
    while (std::getline(lines, part)) out += std::string(indent + 2, ' ') + part + "\n";
  }
  return out;
}

}  // namespace hkim
