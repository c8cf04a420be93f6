// What startup_heap_test.cc checks, seen from inside a process that starts as hkimgen does
// (PadStartupHeap before the static constructors): prints how far the heap's end moved when
// the first allocation after start-up needed more heap.
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "support/startup_heap.h"

namespace {

__attribute__((constructor(101))) void PadLikeHkimgen() {
  hkim::PadStartupHeap(std::size_t{2} << 20);
}

}  // namespace

int main() {
  // Small blocks (below mmap's threshold, so from the heap) until the heap's end moves.
  std::vector<void*> blocks;
  const auto before = reinterpret_cast<std::uintptr_t>(sbrk(0));
  std::uintptr_t after = before;
  while (after == before && blocks.size() < 100000) {
    blocks.push_back(std::malloc(1024));
    after = reinterpret_cast<std::uintptr_t>(sbrk(0));
  }
  std::printf("grew %lu\n", static_cast<unsigned long>(after - before));
  for (void* block : blocks) std::free(block);
  return after > before ? 0 : 1;
}
