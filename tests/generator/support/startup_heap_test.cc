// Start-up heap padding (startup_heap.h), seen from a process that starts as hkimgen does
// (tests/generator/probes/startup_heap_probe.cc): the heap grows by the padding at once, not
// by the few KiB the allocation needed.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace hkim {
namespace {

TEST(StartupHeap, HeapGrowsByThePaddingAtOnce) {
  FILE* out = popen(HKIM_STARTUP_HEAP_PROBE, "r");
  ASSERT_NE(out, nullptr);
  unsigned long grew = 0;
  const int read = std::fscanf(out, "grew %lu", &grew);
  ASSERT_EQ(pclose(out), 0) << "the probe's heap never grew";
  ASSERT_EQ(read, 1);
  EXPECT_GE(grew, 2ul << 20) << "the heap grew by " << grew << " bytes, not the 2 MiB padding";
}

}  // namespace
}  // namespace hkim
