// What startup_prefault_test.cc checks, seen from inside a process that starts as hkimgen does
// (PrefaultStartup before the static constructors): prints the size and resident size of each
// of the executable's code mappings as /proc/self/smaps shows them, before main has run any of
// the code they hold.
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include "support/startup_prefault.h"

namespace {

__attribute__((constructor(101))) void PrefaultLikeHkimgen() {
  hkim::PrefaultStartup(std::size_t{2} << 20);
}

}  // namespace

int main() {
  char exe[4096] = {};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return 1;
  FILE* smaps = std::fopen("/proc/self/smaps", "r");
  if (!smaps) return 1;
  char line[4608];
  bool code = false;
  while (std::fgets(line, sizeof line, smaps)) {
    unsigned long begin = 0;
    unsigned long end = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%lx-%lx %7s ", &begin, &end, perms) == 3) {
      std::string text(line);
      if (!text.empty() && text.back() == '\n') text.pop_back();
      code = std::strchr(perms, 'x') != nullptr && text.size() >= std::strlen(exe) &&
             text.compare(text.size() - std::strlen(exe), std::string::npos, exe) == 0;
      if (code) std::printf("code %lu\n", (end - begin) / 1024);
    } else if (code && std::strncmp(line, "Rss:", 4) == 0) {
      std::fputs(line, stdout);
    }
  }
  std::fclose(smaps);
  return 0;
}
