#pragma once

// The wrapper image reference the bundle renders, and how a profile's wrapper image relates to
// the image this source tree builds (scripts/build-image.sh tags it with the project version).

#include <string>

#include "model/model.h"

namespace hkim {

/// The project version this hkimgen was built from (support/version.h): the tag scripts/build-image.sh
/// gives the image whose programs implement the pod contract this hkimgen renders.
const char* WrapperImageVersion();

/// quay.io/hkim/hkim-wrapper:<WrapperImageVersion()>: what `init` and `discover` write into a
/// new profile, so that a new profile names the image this source tree builds.
std::string DefaultWrapperImage();

/// The tag of an image reference: "" when it has none, "@" when it is pinned by digest.
std::string ImageTag(const std::string& image);

/// What every init container runs: `wrapper.image`, or, when `wrapper.digest` is set (by the
/// profile or `render --wrapper-digest`), its repository and tag followed by "@" and that digest
/// (a digest already in the image is replaced): the tag stays readable, the digest pins.
std::string WrapperImageReference(const Wrapper& wrapper);

}  // namespace hkim
