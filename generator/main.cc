// hkimgen: one validated profile per GPU cluster → a GitOps-ready bundle.
// The sub-commands live in generator/commands/ (registry.cc lists them); main only runs them.

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "commands/app.h"
#include "support/leave_to_exit.h"
#include "support/startup_heap.h"

// Before the libraries' static constructors (iostreams, CLI11) allocate (priority 101: the
// first a program may use).
__attribute__((constructor(101))) static void PadHeapBeforeStaticConstructors() {
  hkim::PadStartupHeap(std::size_t{2} << 20);  // a small render's heap (startup_heap.h)
}

int main(int argc, char** argv) {
  hkim::ProcessEndsAfterCommand();  // commands may leave what they built to the exit
  const int status = hkim::RunHkimgen(argc, argv, std::cout, std::cerr);
  // What lives until exit (the parsed schema and templates, every CLI11 validator) is left to
  // the system, which frees a process at once, instead of destroying it piece by piece.
  // Everything written goes out first.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}
