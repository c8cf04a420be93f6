#pragma once
// The profile the --set fuzzers apply their assignments to, loaded once per process:
// HKIM_FUZZ_SET_BASE, else fuzz/set_base.yaml relative to the working directory (the repository
// root, or the folder a campaign copies fuzz/ into). Small on purpose: every input starts from a
// copy of it, and ApplySetAssignments rebuilds and flattens the whole tree, so a large profile
// costs each input more than the parser does.

#include <cstdlib>

#include "layering/layering.h"

namespace hkim::fuzz {

/// The layered profile every input starts from; aborts when it does not load (a set-up error,
/// not a finding).
inline const LayeredProfile& BaseProfile() {
  static const LayeredProfile* base = [] {
    DiagnosticSink sink;
    const char* path = std::getenv("HKIM_FUZZ_SET_BASE");
    auto layered =
        LoadLayeredProfile(LayerInputs{path ? path : "fuzz/set_base.yaml", {}, {}}, sink);
    if (!layered) std::abort();
    return new LayeredProfile(std::move(*layered));
  }();
  return *base;
}

/// The input's lines, each one `--set` argument (as a shell would pass them one by one).
inline std::vector<std::string> SetArguments(const uint8_t* data, size_t size) {
  std::vector<std::string> arguments;
  size_t start = 0;
  for (size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == '\n') {
      if (i > start || i < size)
        arguments.emplace_back(reinterpret_cast<const char*>(data + start), i - start);
      start = i + 1;
    }
  }
  return arguments;
}

}  // namespace hkim::fuzz
