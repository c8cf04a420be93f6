#pragma once

// How an image reference is spelled from its parts, in one place: the operators' CRs and charts
// hold images as repository / image / version fields (ClusterPolicy, NicClusterPolicy, chart
// values), and the bundle, `hkimgen images`, the digest pins and the preconditions all need the
// one string the container runtime pulls. The parsing and the mirror rewrite of a whole
// reference are model/image_mirror.h's; this joins the parts (and applies the mirror to them).

#include <string>

namespace hkim {

/// Whether `version` is a digest ("sha256:<hex>") rather than a tag.
bool IsDigest(const std::string& version);

/// repository "/" image, then ":" version for a tag or "@" version for a digest, the way the
/// operators join their image fields (Mellanox/network-operator pkg/render imagePath; the GPU
/// Operator's ImagePath). An empty image means repository is the whole name (a chart's
/// image.repository); an empty version adds nothing.
std::string ComposeImage(const std::string& repository, const std::string& image,
                         const std::string& version);

/// ComposeImage with the repository under `mirror` (model/image_mirror.h MirroredRepository);
/// the repository unchanged where the mirror is empty or the repository cannot be read.
std::string ComposeImage(const std::string& mirror, const std::string& repository,
                         const std::string& image, const std::string& version);

/// `reference` pinned to `digest`: any digest it had replaced, its tag kept (a tag beside a
/// digest stays readable; the runtime pulls by the digest).
std::string WithDigest(const std::string& reference, const std::string& digest);

}  // namespace hkim
