// hkimgen: one validated profile per GPU cluster → a GitOps-ready bundle.
// The sub-commands live in generator/commands/ (registry.cc lists them); main only runs them.

#include <cstddef>
#include <iostream>

#include "commands/app.h"
#include "heap_prefault.h"

int main(int argc, char** argv) {
  hkim::PrefaultHeap(size_t{2} << 20);  // a small render's heap (heap_prefault.h)
  return hkim::RunHkimgen(argc, argv, std::cout, std::cerr);
}
