#include "support/startup_heap.h"

#include <malloc.h>

namespace hkim {

void PadStartupHeap(std::size_t bytes) {
  mallopt(M_TOP_PAD, static_cast<int>(bytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(bytes * 4));
}

}  // namespace hkim
