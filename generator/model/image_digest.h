#pragma once

// Digest pinning of the images the profile names: `images.digests`, which
// `render --image-digest IMAGE=sha256:...` sets, replaces the tag's mutable meaning with a
// manifest digest wherever the bundle uses that image. Applied by the model before the mirror
// (image_mirror.h), so that a mirrored reference keeps the digest.

#include <string>
#include <vector>

#include "load/load.h"
#include "model/model.h"
#include "support/diagnostics.h"

namespace hkim {

/// One image the profile names (written or defaulted): the workload, the wrapper, the VF
/// DaemonSet (managed), the NFD operand (managed), and the NicClusterPolicy's SR-IOV device
/// plugin and nv-ipam where this bundle renders that policy (repository/image/version, the
/// Network Operator release's where the profile leaves them; a digest goes into `version`,
/// which the Network Operator joins as repository/image@digest).
struct ProfileImage {
  std::string reference;  ///< as the profile names it (a mirror applied, if any)
  std::string pointer;    ///< e.g. "/workload/image", "/network/nv_ipam/version"
  std::string what;       ///< "workload image", for messages
  bool pinned = false;    ///< by a digest in the reference (or wrapper.digest)
  std::string pin;        ///< how to pin it in the profile, for fixes
};

/// Every image `profile` names, in a fixed order.
std::vector<ProfileImage> ProfileImages(const Profile& profile);

/// Pins each image of `profile.images.digests` (reference as the profile names it -> digest):
/// the wrapper through wrapper.digest, the others as repository[:tag]@digest. A key that names
/// no image of the profile is an error ("model.image-digest") listing the ones it does name.
/// Returns the error count.
int ApplyImageDigests(Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink);

/// Reports each image of ProfileImages that is not a valid reference (model/image_mirror's
/// ParseImageReference: upper case in the path, an empty component, a bad tag or digest) as
/// "model.image-reference" at its field, with the lower-case spelling as the fix where that is
/// the slip. Such an image would otherwise surface later as a registry nothing provides
/// (closure.image). Returns the error count.
int CheckImageReferences(const Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink);

}  // namespace hkim
