#pragma once

// Start-up: the pages a small render touches are made resident in a few calls instead of one
// page fault per page. On the virtual machines hkimgen was measured on (Firecracker), a page
// fault costs 15 µs (a fresh page) to 22 µs (a page of the executable, mapped 16 at a time),
// and populating a page 0.5 to 1.5 µs: Barcelona's render took 123 faults besides its heap
// (72 of them in the executable's code), a tenth of its time. On bare metal a fault costs
// about 1 µs and the calls about as much as the faults they save.
// The heap is only padded (mallopt), not populated: populating it as one huge page needed
// glibc's chunk layout, which another C library, a sanitizer or an allocator can change
// (docs/PERFORMANCE.md has the numbers).

#include <cstddef>

namespace hkim {

/// Populates (madvise MADV_POPULATE_READ/WRITE, Linux 5.14+; elsewhere nothing happens) the
/// executable's own segments (code and constants for reading, data and bss for writing) and
/// the stack's next 96 KiB, and lets the heap grow `heap_bytes` at a time (mallopt M_TOP_PAD).
/// Call it before the static constructors (a constructor of priority 101). Best effort: a call
/// that fails changes nothing but speed.
void PrefaultStartup(std::size_t heap_bytes);

}  // namespace hkim
