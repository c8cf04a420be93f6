#pragma once

// Start-up: the heap grows in steps of a small render's size instead of page by page.
// (Until 2026-11-27 start-up also populated the executable's pages with madvise; on the
// current 2-core VMs that cost more than the page faults it saved: Barcelona's render 5.6 ms
// with it, 4.4 ms without, docs/PERFORMANCE.md.)

#include <cstddef>

namespace hkim {

/// Lets the heap grow `bytes` beyond each request and keep that much freed at its top
/// (mallopt's documented M_TOP_PAD and M_TRIM_THRESHOLD): a render asks the kernel for heap a
/// few times instead of once per growth. Call it before the static constructors (a
/// constructor of priority 101). Best effort: a call that fails changes nothing but speed.
void PadStartupHeap(std::size_t bytes);

}  // namespace hkim
