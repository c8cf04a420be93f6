#include "startup_prefault.h"

#include <link.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace hkim {
namespace {

#ifdef MADV_POPULATE_WRITE

std::uintptr_t PageSize() { return static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)); }

/// Populates the whole pages of [begin, end) (best effort: the result is not needed).
void Populate(std::uintptr_t begin, std::uintptr_t end, int advice) {
  const std::uintptr_t page = PageSize();
  begin &= ~(page - 1);
  end = (end + page - 1) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

/// The first object dl_iterate_phdr reports is the executable: its loadable segments, read
/// for code and constants, written for data and bss (but read for the part made read-only
/// after relocation, where writing would fail).
int PopulateExecutable(dl_phdr_info* info, std::size_t, void*) {
  std::uintptr_t relro_begin = 0;
  std::uintptr_t relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_GNU_RELRO) {
      relro_begin = info->dlpi_addr + segment.p_vaddr;
      relro_end = relro_begin + segment.p_memsz;
    }
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    const std::uintptr_t end = begin + segment.p_memsz;
    if ((segment.p_flags & PF_W) == 0) {
      Populate(begin, end, MADV_POPULATE_READ);
      continue;
    }
    // Writable: the relocated read-only part (whole pages inside it) is read, the rest written.
    const std::uintptr_t page = PageSize();
    const std::uintptr_t read_end =
        std::clamp((relro_end & ~(page - 1)), begin & ~(page - 1), end);
    if (relro_begin != 0 && relro_begin <= begin + page) {
      Populate(begin, read_end, MADV_POPULATE_READ);
      Populate(read_end, end, MADV_POPULATE_WRITE);
    } else {
      Populate(begin, end, MADV_POPULATE_WRITE);
    }
  }
  return 1;  // the executable only: shared libraries' pages are shared and mostly resident
}

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;  // x86-64 and arm64 (4 KiB pages)

/// The block below the heap's huge page, kept reachable so that leak checkers do not report it.
void* volatile heap_filler = nullptr;

/// Grows the heap by M_TOP_PAD and populates it, 4 KiB pages.
void PopulateHeapSmallPages() {
  // Requests below the mmap threshold come from the heap; the first may still fit in what the
  // C library's start-up left of it, the second then grows it by itself plus the top pad.
  const void* const start = sbrk(0);
  void* probes[2] = {std::malloc(96 * 1024), nullptr};
  if (probes[0] && sbrk(0) == start) probes[1] = std::malloc(96 * 1024);
  if (probes[0]) {
    Populate(reinterpret_cast<std::uintptr_t>(probes[0]),
             reinterpret_cast<std::uintptr_t>(sbrk(0)), MADV_POPULATE_WRITE);
  }
  std::free(probes[1]);
  std::free(probes[0]);
}

/// Makes the heap's next `bytes` (rounded up to 2 MiB) transparent huge pages: a block that is
/// never used fills the heap up to a 2 MiB boundary (never touched, it costs address space
/// only), the heap grows past the huge pages, and they are populated after MADV_HUGEPAGE. False
/// (nothing populated; the block given back) when the heap is not laid out as expected.
bool PopulateHeapHugePage(std::size_t bytes) {
  const std::uintptr_t page = PageSize();
  if (page != 4096) return false;
  void* const probe = std::malloc(16);  // carved from the heap's free top at start-up
  if (!probe) return false;
  const auto top = reinterpret_cast<std::uintptr_t>(probe) + 16;
  const std::uintptr_t huge = (top + 4 * page + kHugePage - 1) & ~(kHugePage - 1);
  // Sized for glibc's chunks (a 16-byte header, 8 bytes of it in the next chunk's) so that the
  // next block starts at the boundary and its header lies below it.
  const std::size_t filler_bytes = huge - top - 24;
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(filler_bytes + kHugePage));  // from the heap
  const std::size_t huge_bytes = (bytes + kHugePage - 1) & ~(kHugePage - 1);
  mallopt(M_TOP_PAD, static_cast<int>(huge_bytes + 16 * page));
  void* const filler = std::malloc(filler_bytes);
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);  // glibc's default
  mallopt(M_TOP_PAD, static_cast<int>(bytes));
  std::free(probe);
  const auto filler_end = reinterpret_cast<std::uintptr_t>(filler) + filler_bytes;
  const auto heap_end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  if (!filler || filler_end > huge || filler_end + 2 * page < huge ||
      heap_end < huge + huge_bytes) {
    std::free(filler);
    return false;
  }
  madvise(reinterpret_cast<void*>(huge), huge_bytes, MADV_HUGEPAGE);
  Populate(filler_end, heap_end, MADV_POPULATE_WRITE);
  heap_filler = filler;  // stays allocated: freed, the heap would hand its pages out first
  return true;
}

void PopulateHeap(std::size_t bytes) {
  // The heap then grows `bytes` beyond each request, and memory freed at its top stays.
  mallopt(M_TOP_PAD, static_cast<int>(bytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(bytes * 4 + kHugePage));
  if (!PopulateHeapHugePage(bytes)) PopulateHeapSmallPages();
}

#endif

}  // namespace

void PrefaultStartup(std::size_t heap_bytes) {
#ifdef MADV_POPULATE_WRITE
  dl_iterate_phdr(PopulateExecutable, nullptr);
  // The stack grows down from here; at start-up its mapping reaches about 128 KiB below the
  // program's arguments (a range that reaches past it populates nothing).
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  Populate(here - (std::uintptr_t{96} << 10), here - PageSize(), MADV_POPULATE_WRITE);
  PopulateHeap(heap_bytes);
#else
  (void)heap_bytes;
#endif
}

}  // namespace hkim
