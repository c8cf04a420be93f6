#include "support/startup_prefault.h"

#include <link.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

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

/// The heap grows `bytes` beyond each request and keeps memory freed at its top (mallopt's
/// documented M_TOP_PAD and M_TRIM_THRESHOLD): a render asks the kernel for heap a few times
/// instead of once per growth. Nothing here depends on how malloc lays its chunks out.
void PadHeap(std::size_t bytes) {
  mallopt(M_TOP_PAD, static_cast<int>(bytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(bytes * 4));
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
  PadHeap(heap_bytes);
#else
  (void)heap_bytes;
#endif
}

}  // namespace hkim
