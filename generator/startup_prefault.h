#pragma once

// Start-up: the pages a small render touches are made resident in a few calls instead of one
// page fault per page. On the virtual machines hkimgen was measured on (Firecracker), a page
// fault costs 15 µs (a fresh page) to 22 µs (a page of the executable, mapped 16 at a time),
// and populating a page 0.5 to 1.5 µs: Barcelona's render took 123 faults besides its heap
// (72 of them in the executable's code), a tenth of its time. On bare metal a fault costs
// about 1 µs and the calls about as much as the faults they save.
// On the virtual machines the first touch of a populated 4 KiB page still costs 5 to 7 µs (the
// hypervisor maps it then), once per page; a 2 MiB huge page is mapped once. Barcelona's render
// touches about 380 heap pages, so its heap is one huge page where the kernel allows them
// (its render 15% faster).

#include <cstddef>

namespace hkim {

/// Populates (madvise MADV_POPULATE_READ/WRITE, Linux 5.14+; elsewhere nothing happens):
/// the executable's own segments (code and constants for reading, data and bss for writing),
/// the stack's next 96 KiB, and the main heap grown by `heap_bytes` (kept, not trimmed back):
/// transparent huge pages (MADV_HUGEPAGE) from a 2 MiB boundary where the kernel allows them,
/// else 4 KiB pages. Call it before anything else allocates (a constructor of priority 101).
/// Best effort: a call that fails changes nothing but speed.
void PrefaultStartup(std::size_t heap_bytes);

}  // namespace hkim
