#pragma once

// Digest pinning of the images the profile names (issue 31 item 4): `images.digests`, which
// `render --image-digest IMAGE=sha256:...` sets, replaces the tag's mutable meaning with a
// manifest digest wherever the bundle uses that image. Applied by the model before the mirror
// (image_mirror.h), so that a mirrored reference keeps the digest.

#include <string>
#include <vector>

#include "load/load.h"
#include "model/model.h"
#include "support/diagnostics.h"

namespace hkim {

/// One image reference the profile names as a whole (written or defaulted): the workload, the
/// wrapper, the VF DaemonSet (managed), the NFD operand (managed). The NicClusterPolicy's
/// components are split into repository/image/version and follow the operator release, so
/// they are not here.
struct ProfileImage {
  std::string reference;  ///< as the profile names it (a mirror applied, if any)
  std::string pointer;    ///< e.g. "/workload/image"
  std::string what;       ///< "workload image", for messages
  bool pinned = false;    ///< by a digest in the reference (or wrapper.digest)
};

/// Every image `profile` names, in a fixed order.
std::vector<ProfileImage> ProfileImages(const Profile& profile);

/// Pins each image of `profile.images.digests` (reference as the profile names it -> digest):
/// the wrapper through wrapper.digest, the others as repository[:tag]@digest. A key that names
/// no image of the profile is an error ("model.image-digest") listing the ones it does name.
/// Returns the error count.
int ApplyImageDigests(Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink);

}  // namespace hkim
