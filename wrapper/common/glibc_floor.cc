// Keeps the pod programs' glibc floor at 2.34 (docs: README "Supported training images").
//
// libstdc++ is linked statically (training images carry any libstdc++, or none), and Debian 12's
// libstdc++.a was built against glibc 2.36: its std::random_device object (random.o, pulled in
// by the string instantiations even though nothing here uses random_device) refers to
// arc4random, which glibc only exports from 2.36 (arc4random@GLIBC_2.36). A program that names
// that version refuses to start on Ubuntu 22.04 (2.35) or UBI 9 (2.34). Defining arc4random in
// the program itself binds that reference here at link time, so no versioned reference is left.
// getrandom(2) (glibc 2.25) is the same kernel source glibc's own arc4random draws from.
//
// No glibc header that declares arc4random (stdlib.h) may be included here: its declaration
// would clash in exception specification.

#include <sys/random.h>

#include <cerrno>
#include <cstdint>

extern "C" std::uint32_t arc4random(void) {
  std::uint32_t value = 0;
  while (::getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
    // Only EINTR (a signal during the first call at boot) can get here for 4 bytes.
  }
  return value;
}
