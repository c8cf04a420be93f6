// Start-up prefault (startup_prefault.h), seen from a process that starts as hkimgen does
// (tests/generator/probes/startup_prefault_probe.cc): the executable's code is resident before
// main runs it, where the kernel has MADV_POPULATE_READ (Linux 5.14+).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace hkim {
namespace {

struct CodeMapping {
  long size_kb = 0;
  long rss_kb = 0;
};

std::vector<CodeMapping> RunProbe() {
  std::vector<CodeMapping> code;
  FILE* out = popen(HKIM_PREFAULT_PROBE, "r");
  if (!out) return code;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, out)) {
    std::istringstream line(buffer);
    std::string word;
    line >> word;
    if (word == "code") {
      code.push_back({});
      line >> code.back().size_kb;
    } else if (word == "Rss:" && !code.empty()) {
      line >> code.back().rss_kb;
    }
  }
  EXPECT_EQ(pclose(out), 0) << "the probe failed";
  return code;
}

TEST(StartupPrefault, ExecutableCodeIsResidentBeforeMainRunsIt) {
#ifndef MADV_POPULATE_READ
  GTEST_SKIP() << "this system's headers have no MADV_POPULATE_READ";
#endif
  const std::vector<CodeMapping> code = RunProbe();
  ASSERT_FALSE(code.empty()) << "the probe saw no code mapping of its own executable";
  long size = 0;
  long rss = 0;
  for (const CodeMapping& m : code) {
    size += m.size_kb;
    rss += m.rss_kb;
  }
  if (rss == 0) GTEST_SKIP() << "this kernel reports no resident pages for the code";
  // main has run a few pages of code by the time smaps is read; populated, all of it is there.
  EXPECT_GE(rss * 10, size * 9) << rss << " KiB of " << size << " KiB of code are resident";
}

}  // namespace
}  // namespace hkim
