// diff's line comparison: the same hunks as a full longest-common-subsequence table on ordinary
// edits, a shortest edit script on any input, and linear memory with near-linear time on large
// files (a 1,000-namespace bundle's README is tens of thousands of lines).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "diff/diff_text.h"

namespace hkim {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::string_view line : SplitLines(text)) lines.emplace_back(line);
  return lines;
}

// The comparison diff used before the linear-space search: a full LCS table, keeping a line
// whenever both sides have it, a deletion before an insertion on ties. Quadratic, so only for
// small inputs; it is the reference the new search must reproduce on ordinary edits.
std::string TableDiff(const std::string& old_text, const std::string& new_text) {
  const std::vector<std::string> a = Lines(old_text), b = Lines(new_text);
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Edit {
    char op;
    size_t ai, bi;
  };
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({' ', i++, j++});
    } else if (j < m && (i == n || lcs[i][j + 1] > lcs[i + 1][j])) {
      edits.push_back({'+', i, j++});
    } else {
      edits.push_back({'-', i++, j});
    }
  }
  std::ostringstream out;
  out << "--- a/f\n+++ b/f\n";
  size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].op == ' ') ++k;
    if (k == edits.size()) break;
    size_t start = k >= 3 ? k - 3 : 0, end = k;
    while (end < edits.size()) {
      if (edits[end].op != ' ') {
        ++end;
        continue;
      }
      size_t run = end;
      while (run < edits.size() && edits[run].op == ' ') ++run;
      if (run == edits.size() || run - end > 6) {
        end = std::min(edits.size(), end + 3);
        break;
      }
      end = run;
    }
    size_t old_count = 0, new_count = 0;
    std::ostringstream body;
    for (size_t e = start; e < end; ++e) {
      if (edits[e].op != '+') ++old_count;
      if (edits[e].op != '-') ++new_count;
      body << edits[e].op << (edits[e].op == '+' ? b[edits[e].bi] : a[edits[e].ai]) << "\n";
    }
    out << "@@ -" << (old_count ? edits[start].ai + 1 : edits[start].ai) << "," << old_count << " +"
        << (new_count ? edits[start].bi + 1 : edits[start].bi) << "," << new_count << " @@\n"
        << body.str();
    k = end;
  }
  return old_text == new_text ? "" : out.str();
}

// Applies a unified diff to `old_text` as `patch` would, checking each context and deleted
// line; returns the new text, or a message starting with "MISMATCH".
std::string Patch(const std::string& old_text, const std::string& diff) {
  const std::vector<std::string> a = Lines(old_text);
  std::vector<std::string> lines = Lines(diff), out;
  size_t next = 0;  // next line of a to copy
  for (size_t k = 2; k < lines.size();) {
    size_t old_start = 0, old_count = 0;
    if (std::sscanf(lines[k].c_str(), "@@ -%zu,%zu", &old_start, &old_count) != 2)
      return "MISMATCH: no hunk header: " + lines[k];
    const size_t first = old_count ? old_start - 1 : old_start;
    if (first < next) return "MISMATCH: hunks overlap";
    while (next < first) out.push_back(a[next++]);
    for (++k; k < lines.size() && lines[k].rfind("@@", 0) != 0; ++k) {
      const char op = lines[k][0];
      const std::string text = lines[k].substr(1);
      if (op == '+') {
        out.push_back(text);
      } else if (next >= a.size() || a[next] != text) {
        return "MISMATCH at old line " + std::to_string(next + 1);
      } else {
        if (op == ' ') out.push_back(text);
        ++next;
      }
    }
  }
  while (next < a.size()) out.push_back(a[next++]);
  std::string text;
  for (const std::string& line : out) text += line + "\n";
  return text;
}

std::string Text(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

LineDiff DiffTexts(const std::string& a, const std::string& b) {
  return DiffLines(SplitLines(a), SplitLines(b));
}

size_t TableChangedLines(const std::string& old_text, const std::string& new_text) {
  const std::vector<std::string> a = Lines(old_text), b = Lines(new_text);
  std::vector<std::vector<int>> lcs(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;)
    for (size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  return a.size() + b.size() - 2 * static_cast<size_t>(lcs[0][0]);
}

// A manifest-like file of distinct lines, the kind every bundle file is.
std::vector<std::string> Manifest(size_t lines, const std::string& tag = "") {
  std::vector<std::string> out;
  for (size_t i = 0; i < lines; ++i)
    out.push_back("  key" + std::to_string(i) + ": value" + std::to_string(i) + tag);
  return out;
}

TEST(LineDiff, OrdinaryEditsGiveTheSameHunksAsTheFullTable) {
  std::mt19937 random(7);
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> a = Manifest(5 + random() % 120);
    // YAML repeats lines ("  - name: x", blank lines, "---"): some of those too.
    for (size_t i = 0; i < a.size(); i += 7 + random() % 9) a[i] = random() % 2 ? "" : "spec:";
    std::vector<std::string> b = a;
    const int edits = 1 + static_cast<int>(random() % 6);
    for (int e = 0; e < edits && !b.empty(); ++e) {
      const size_t at = random() % b.size();
      switch (random() % 3) {
        case 0:
          b[at] += " changed";
          break;
        case 1:
          b.insert(b.begin() + static_cast<long>(at), "  added" + std::to_string(e) + ": 1");
          break;
        default:
          b.erase(b.begin() + static_cast<long>(at));
      }
    }
    const std::string old_text = Text(a), new_text = Text(b);
    EXPECT_EQ(UnifiedDiff(old_text, new_text, "a/f", "b/f"), TableDiff(old_text, new_text))
        << "round " << round;
  }
}

TEST(LineDiff, AnyInputGetsAShortestEditScriptThatPatchesOldIntoNew) {
  // Few distinct lines, so that many alignments tie: the script may differ from the table's,
  // never in length or in what it produces.
  std::mt19937 random(11);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> a, b;
    const size_t alphabet = 1 + random() % 4;
    for (size_t i = random() % 30; i > 0; --i)
      a.push_back(std::string(1, 'a' + random() % alphabet));
    for (size_t i = random() % 30; i > 0; --i)
      b.push_back(std::string(1, 'a' + random() % alphabet));
    const std::string old_text = Text(a), new_text = Text(b);
    const LineDiff diff = DiffTexts(old_text, new_text);
    EXPECT_TRUE(diff.minimal);
    EXPECT_EQ(diff.unaligned_lines, 0u);
    EXPECT_EQ(diff.changed_lines(), TableChangedLines(old_text, new_text)) << "round " << round;
    EXPECT_EQ(Patch(old_text, UnifiedDiff(old_text, new_text, "a/f", "b/f")), new_text)
        << "round " << round;
  }
}

TEST(LineDiff, IdenticalEmptyAndAllDifferentFiles) {
  const std::string text = Text(Manifest(50));
  EXPECT_EQ(UnifiedDiff(text, text, "a/f", "b/f"), "");
  EXPECT_EQ(UnifiedDiff("", "", "a/f", "b/f"), "");
  EXPECT_EQ(UnifiedDiff("", "x\ny\n", "a/f", "b/f"), "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  EXPECT_EQ(UnifiedDiff("x\ny\n", "", "a/f", "b/f"), "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n");
  // All different: every old line deleted, then every new one inserted, in one hunk.
  const std::string other = Text(Manifest(50, "'"));
  const std::string shown = UnifiedDiff(text, other, "a/f", "b/f");
  EXPECT_EQ(shown, TableDiff(text, other));
  EXPECT_EQ(shown.rfind("@@ -1,50 +1,50 @@\n-  key0: value0\n", 0 + 16), 16u);
  EXPECT_EQ(DiffTexts(text, other).changed_lines(), 100u);
}

TEST(LineDiff, ALargeFileWithOneChangedLineIsFastAndExact) {
  std::vector<std::string> a = Manifest(400000), b = a;
  b[200000] = "  replicas: 4";
  const std::string old_text = Text(a), new_text = Text(b);
  EXPECT_EQ(UnifiedDiff(old_text, new_text, "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -199998,7 +199998,7 @@\n"
            "   key199997: value199997\n   key199998: value199998\n   key199999: value199999\n"
            "-  key200000: value200000\n+  replicas: 4\n"
            "   key200001: value200001\n   key200002: value200002\n   key200003: value200003\n");
  // The common head and tail are trimmed first: one step, where the table needs 400,000^2 cells.
  EXPECT_LE(DiffTexts(old_text, new_text).search_steps, 4u);
}

TEST(LineDiff, ALargeFileWithAChangeInEverySectionIsExactAndPatches) {
  // A 1,000-namespace README's shape: one section per namespace, a line of each changed.
  std::vector<std::string> a, b;
  for (int ns = 0; ns < 2000; ++ns) {
    for (int line = 0; line < 12; ++line) {
      a.push_back("team-" + std::to_string(ns) + " line " + std::to_string(line));
      b.push_back(line == 5 ? "team-" + std::to_string(ns) + " replicas 4" : a.back());
    }
    a.push_back("");
    b.push_back("");
  }
  const std::string old_text = Text(a), new_text = Text(b);
  const LineDiff diff = DiffTexts(old_text, new_text);
  EXPECT_EQ(diff.changed_lines(), 4000u);
  EXPECT_TRUE(diff.minimal);
  // O((N+M)·D) at worst, with D = 4,000 here.
  EXPECT_LT(diff.search_steps, (a.size() + b.size()) * 4000 / 10);
  EXPECT_EQ(Patch(old_text, UnifiedDiff(old_text, new_text, "a/f", "b/f")), new_text);
}

TEST(LineDiff, LargeAllDifferentFilesStayCorrectWithinTheCostBound) {
  // 30,000 lines against 30,000 others: a shortest script (delete all, insert all) costs
  // 60,000 edits, past the exact search's bound; what is shown still patches old into new.
  const std::string old_text = Text(Manifest(30000)), new_text = Text(Manifest(30000, "'"));
  const std::string shown = UnifiedDiff(old_text, new_text, "a/f", "b/f");
  EXPECT_EQ(Patch(old_text, shown), new_text);
  const LineDiff diff = DiffTexts(old_text, new_text);
  EXPECT_EQ(diff.changed_lines(), 60000u);
  EXPECT_LT(diff.search_steps, uint64_t{60000} * 60000 / 20);  // a small part of the table
}

TEST(LineDiff, ScatteredChangesPastTheCostBoundAreAlignedByTheFurthestPath) {
  // Every third line differs in a large file: 20,000 edits, split past the bound (4,096); the
  // script is correct and close to the shortest.
  std::vector<std::string> a = Manifest(30000), b = a;
  for (size_t i = 0; i < b.size(); i += 3) b[i] += " changed";
  const std::string old_text = Text(a), new_text = Text(b);
  const LineDiff diff = DiffTexts(old_text, new_text);
  EXPECT_EQ(Patch(old_text, UnifiedDiff(old_text, new_text, "a/f", "b/f")), new_text);
  EXPECT_GE(diff.changed_lines(), 20000u);
  EXPECT_LE(diff.changed_lines(), 22000u);
  EXPECT_FALSE(diff.minimal);
  EXPECT_EQ(diff.unaligned_lines, 0u);
}

TEST(LineDiff, RandomLinesOfTwoKindsStayCorrectAndBounded) {
  // Two long files of the same two lines in random orders: every diagonal has snakes, the
  // worst case for the search.
  std::mt19937 random(3);
  std::vector<std::string> a, b;
  for (int i = 0; i < 100000; ++i) a.push_back(random() % 2 ? "x" : "y");
  for (int i = 0; i < 100000; ++i) b.push_back(random() % 2 ? "x" : "y");
  const std::string old_text = Text(a), new_text = Text(b);
  EXPECT_EQ(Patch(old_text, UnifiedDiff(old_text, new_text, "a/f", "b/f")), new_text);
  // Bounded by the work cap (checked after each round of one edit on every diagonal).
  const LineDiff diff = DiffTexts(old_text, new_text);
  EXPECT_LT(diff.search_steps, kDiffMaxWork + 2 * (a.size() + b.size()));
  EXPECT_GT(diff.unaligned_lines, 0u);  // this pair is past the cap
}

TEST(LineDiff, TheWorkCapShowsTheRestWholeAndSaysHowManyLines) {
  std::vector<std::string> a = Manifest(1000), b = a;
  for (size_t i = 0; i < b.size(); i += 2) b[i] += " changed";
  const std::string old_text = Text(a), new_text = Text(b);
  const LineDiff capped = DiffLines(SplitLines(old_text), SplitLines(new_text), 100);
  EXPECT_EQ(capped.unaligned_lines, 2u * 999u);  // all but the last line, equal in both
  const std::string shown = UnifiedDiff(old_text, new_text, "a/f", "b/f", 100);
  EXPECT_EQ(Patch(old_text, shown), new_text);
  EXPECT_EQ(shown.substr(0, shown.find('\n', shown.find("@@"))),
            "--- a/f\n+++ b/f\n@@ -1,1000 +1,1000 @@ " + std::to_string(capped.changed_lines()) +
                " lines changed; " + std::to_string(capped.unaligned_lines) +
                " of them too far apart to align line by line, shown deleted, then inserted");
  // Without the cap the same files align line by line.
  EXPECT_EQ(DiffTexts(old_text, new_text).changed_lines(), 1000u);
}

TEST(LineDiff, SplitLinesKeepsALastLineWithoutANewline) {
  EXPECT_EQ(SplitLines("a\nb"), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(SplitLines("a\n\n"), (std::vector<std::string_view>{"a", ""}));
  EXPECT_TRUE(SplitLines("").empty());
}

}  // namespace
}  // namespace hkim
