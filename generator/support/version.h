#pragma once

// What this hkimgen is: `hkimgen --version`, `hkimgen version` and the bundle's record of the
// hkimgen that wrote it. The text is generated at build time (generator/version_info.cmake) into
// an object linked only into the hkimgen program; the test binaries link one whose commit is
// "tests" (generator/CMakeLists.txt), so a commit relinks the program alone.

#include <string>

namespace hkim {

struct BuildInfo {
  std::string version;        ///< CMake's project(hkimgen VERSION ...), e.g. "0.1.0"
  std::string commit;         ///< git commit of the source tree (12 hex), "unknown", or "tests"
  std::string schema_sha256;  ///< SHA-256 of schemas/profile.schema.json as embedded
};

/// This binary's build information.
const BuildInfo& BuildVersion();

/// "hkimgen 0.1.0 (commit 0123456789ab, schema sha256:abcd...)" on three lines, ending in "\n".
std::string VersionText();

}  // namespace hkim
