#pragma once

// Start-up: the heap's first megabytes are made resident in one call instead of one page fault
// per page touched. On the virtual machines hkimgen was measured on (Firecracker), a page fault
// costs about 12 µs and populating a page about 1 µs, so a small render spent a third of its
// time faulting its heap in; on bare metal the call costs about 0.1 ms.

#include <cstddef>

namespace hkim {

/// Grows the main heap by `bytes` (kept, not trimmed back) and populates its pages
/// (madvise MADV_POPULATE_WRITE, Linux 5.14+; elsewhere nothing happens).
void PrefaultHeap(std::size_t bytes);

}  // namespace hkim
