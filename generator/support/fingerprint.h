#pragma once

// A short, stable fingerprint of a text (FNV-1a 64, its low 32 bits as 8 hex digits): for names
// that must change exactly when what they stand for changes (the parts of the pods' fabric
// checksum, plan/fabric_check.cc; a cut namespace name, model/health.cc). Not a secret and not collision-proof against an adversary; it only has to
// change with its input.

#include <cstdint>
#include <cstdio>
#include <string>

namespace hkim {

inline std::string Fingerprint(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ULL;
  char out[16];
  std::snprintf(out, sizeof out, "%08llx", static_cast<unsigned long long>(hash & 0xffffffffULL));
  return out;
}

}  // namespace hkim
