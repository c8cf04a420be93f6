// What startup_prefault_test.cc checks, seen from inside a process that starts as hkimgen does
// (PrefaultStartup before the static constructors): prints the heap's mappings as
// /proc/self/smaps shows them, which one holds a block allocated afterwards, and the kernel's
// count of huge-page faults that fell back to small pages, before and after.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "startup_prefault.h"

namespace {

long ThpFallbacks() {
  long count = -1;
  if (FILE* f = std::fopen("/proc/vmstat", "r")) {
    char line[128];
    while (std::fgets(line, sizeof line, f)) {
      if (std::sscanf(line, "thp_fault_fallback %ld", &count) == 1) break;
    }
    std::fclose(f);
  }
  return count;
}

long fallbacks_before = -1;

__attribute__((constructor(101))) void PrefaultLikeHkimgen() {
  fallbacks_before = ThpFallbacks();
  hkim::PrefaultStartup(std::size_t{2} << 20);
}

}  // namespace

int main() {
  // A block of the kind a render allocates first (small, from the heap).
  const auto block = reinterpret_cast<std::uintptr_t>(std::malloc(256));
  std::printf("block %lx\nfallbacks %ld %ld\n", static_cast<unsigned long>(block),
              fallbacks_before, ThpFallbacks());
  FILE* smaps = std::fopen("/proc/self/smaps", "r");
  if (!smaps) return 1;
  char line[512];
  bool heap = false;
  while (std::fgets(line, sizeof line, smaps)) {
    unsigned long begin = 0;
    unsigned long end = 0;
    if (std::sscanf(line, "%lx-%lx ", &begin, &end) == 2) {
      heap = std::strstr(line, "[heap]") != nullptr;
      if (heap) std::printf("heap %lx %lx\n", begin, end);
    } else if (heap && (std::strncmp(line, "Rss:", 4) == 0 ||
                        std::strncmp(line, "AnonHugePages:", 14) == 0)) {
      std::fputs(line, stdout);
    }
  }
  std::fclose(smaps);
  return 0;
}
