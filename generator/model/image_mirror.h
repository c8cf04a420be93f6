#pragma once

// The profile's `images` section: a mirror registry every image reference of the bundle is
// rewritten to (repository path kept under it, as `oc-mirror ... docker://MIRROR` stores what it
// copies), the mirrored Helm chart repository and the CatalogSources oc-mirror generated.
// ApplyImageMirror rewrites the typed profile once, after the model has read it, so that every
// later stage sees only mirrored references.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "load/load.h"
#include "support/diagnostics.h"

namespace hkim {

struct ImageMirror {
  std::string mirror;        ///< HOST[:PORT][/PATH]; empty: images are pulled as named
  std::string chart_mirror;  ///< the mirrored Helm repository every chart Application uses
  std::map<std::string, std::string> catalog_sources;  ///< default source -> mirrored source
  /// images.digests (render --image-digest): image as the profile names it -> sha256 digest;
  /// applied before the mirror (model/image_digest.h)
  std::map<std::string, std::string> digests;
  std::string pointer = "/images";

  bool enabled() const { return !mirror.empty(); }
};

/// An image reference parsed as the container tools read one (docker/distribution's grammar,
/// simplified): a name without a registry host is Docker Hub's (docker.io, "library/" for a
/// single component).
struct ImageReference {
  std::string registry;  ///< e.g. nvcr.io, docker.io, mirror:5000
  std::string path;      ///< e.g. nvidia/mellanox/plugins, library/oraclelinux
  std::string tag;       ///< empty when none
  std::string digest;    ///< "sha256:..."; empty when none
};

/// Parses `reference`; nullopt when it is not one (upper-case path, empty component, bad tag
/// or digest).
std::optional<ImageReference> ParseImageReference(const std::string& reference);

/// `reference` under `mirror`: MIRROR/path[:tag][@digest]; unchanged when it is already under
/// the mirror; nullopt when it cannot be parsed. `mirror` empty: unchanged.
std::optional<std::string> MirroredImage(const std::string& mirror, const std::string& reference);

/// The image `kubectl debug node` runs for the checks on a node (a shell and chroot): busybox at
/// a release tag, so that every check runs the same build (`hkimgen images` lists it).
inline constexpr char kNodeDebugImage[] = "docker.io/library/busybox:1.37.0";

/// A repository without tag (NicClusterPolicy `repository`) under `mirror`: MIRROR/path.
std::optional<std::string> MirroredRepository(const std::string& mirror,
                                              const std::string& repository);

/// Registries the OLM operators of an OpenShift bundle pull their own images from (their
/// bundles, operator and operand images): an ImageDigestMirrorSet and ImageTagMirrorSet
/// redirect them to the mirror, since the bundle cannot rewrite what the operators choose.
struct Operators;
std::vector<std::string> OperatorImageRegistries(const Operators& operators);

struct Profile;
/// Rewrites every image reference, chart repository and catalog source of `profile` to the
/// mirror (nothing when none is set). A reference that cannot be rewritten, a chart without
/// images.chart_mirror and a catalog source images.catalog_sources does not map are errors
/// ("model.image-mirror") naming them at the profile's images.mirror. Returns the error count.
int ApplyImageMirror(Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink);

}  // namespace hkim
