// Start-up prefault (startup_prefault.h), seen from a process that starts as hkimgen does
// (tests/generator/probes/startup_prefault_probe.cc): the heap a render allocates from is
// resident before it is used, as one transparent huge page where the kernel allows them, and the
// block that fills the heap up to the huge page's boundary is never made resident.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace hkim {
namespace {

struct HeapMapping {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  long rss_kb = 0;
  long huge_kb = 0;
};

struct ProbeReport {
  std::uintptr_t block = 0;
  long fallbacks_before = -1;
  long fallbacks_after = -1;
  std::vector<HeapMapping> heap;
};

ProbeReport RunProbe() {
  ProbeReport report;
  FILE* out = popen(HKIM_PREFAULT_PROBE, "r");
  if (!out) return report;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, out)) {
    std::istringstream line(buffer);
    std::string word;
    line >> word;
    if (word == "block") {
      line >> std::hex >> report.block;
    } else if (word == "fallbacks") {
      line >> report.fallbacks_before >> report.fallbacks_after;
    } else if (word == "heap") {
      HeapMapping m;
      line >> std::hex >> m.begin >> m.end;
      report.heap.push_back(m);
    } else if (word == "Rss:" && !report.heap.empty()) {
      line >> report.heap.back().rss_kb;
    } else if (word == "AnonHugePages:" && !report.heap.empty()) {
      line >> report.heap.back().huge_kb;
    }
  }
  EXPECT_EQ(pclose(out), 0) << "the probe failed";
  return report;
}

/// The kernel's transparent huge page mode: "always", "madvise", "never", or "" without THP.
std::string ThpMode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t open = text.find('[');
  const size_t close = text.find(']', open);
  return open == std::string::npos || close == std::string::npos
             ? ""
             : text.substr(open + 1, close - open - 1);
}

const HeapMapping* Holding(const ProbeReport& report, std::uintptr_t address) {
  for (const HeapMapping& m : report.heap) {
    if (m.begin <= address && address < m.end) return &m;
  }
  return nullptr;
}

TEST(StartupPrefault, HeapABlockComesFromIsResidentBeforeUse) {
  const ProbeReport report = RunProbe();
  ASSERT_NE(report.block, 0u);
  // The block's last byte: where the heap was not laid out as expected, the first block after
  // start-up may begin just below the huge page.
  const HeapMapping* holding = Holding(report, report.block + 255);
  ASSERT_NE(holding, nullptr) << "the block is not in the heap";
  EXPECT_GE(holding->rss_kb, 2048) << "the heap's first 2 MiB were not populated";
}

TEST(StartupPrefault, HeapIsOneHugePageWhereTheKernelAllowsThem) {
  const std::string mode = ThpMode();
  if (mode != "always" && mode != "madvise") {
    GTEST_SKIP() << "transparent huge pages are '" << mode << "' here";
  }
  const ProbeReport report = RunProbe();
  const HeapMapping* holding = Holding(report, report.block + 255);
  ASSERT_NE(holding, nullptr) << "the block is not in the heap";
  if (holding->huge_kb == 0 && report.fallbacks_after > report.fallbacks_before) {
    GTEST_SKIP() << "the kernel had no free huge page (thp_fault_fallback rose)";
  }
  EXPECT_EQ(holding->begin % (2 << 20), 0u) << "the huge range is not 2 MiB aligned";
  EXPECT_GE(holding->huge_kb, 2048) << "the block's heap range is not a huge page";
  // The block filling the heap up to the boundary is address space only.
  const HeapMapping* below = Holding(report, holding->begin - 1);
  ASSERT_NE(below, nullptr) << "no heap below the huge page";
  EXPECT_LE(below->rss_kb, 64) << "the filler block was made resident";
}

}  // namespace
}  // namespace hkim
