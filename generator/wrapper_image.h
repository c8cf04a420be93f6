#pragma once

// How a profile's wrapper image relates to the image this source tree builds
// (scripts/build-image.sh tags it with the project version).

#include <string>

namespace hkim {

/// The project version this hkimgen was built from (version.h): the tag scripts/build-image.sh
/// gives the image whose programs implement the pod contract this hkimgen renders.
const char* WrapperImageVersion();

/// The tag of an image reference: "" when it has none, "@" when it is pinned by digest.
std::string ImageTag(const std::string& image);

}  // namespace hkim
