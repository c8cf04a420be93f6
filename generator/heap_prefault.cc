#include "heap_prefault.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace hkim {

void PrefaultHeap(std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  // The heap then grows `bytes` beyond each request, and memory freed at its top stays.
  mallopt(M_TOP_PAD, static_cast<int>(bytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(bytes * 4));
  // Below the mmap threshold, so that it comes from the heap, which grows by it plus `bytes`.
  void* probe = std::malloc(96 * 1024);
  if (!probe) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(probe) + page - 1) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(page - 1);
  if (end > begin) {
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);  // best effort
  }
  std::free(probe);
#else
  (void)bytes;
#endif
}

}  // namespace hkim
