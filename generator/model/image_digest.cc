#include "model/image_digest.h"

#include <cctype>

#include "model/image_mirror.h"
#include "model/checks.h"
#include "model/image_reference.h"
#include "model/operator_versions.h"
#include "model/operators.h"
#include "schema/profile_schema.h"
#include "support/json_pointer.h"

namespace hkim {
namespace {

// The image fields of `profile`, mutable or not: one list for the lint rule, the digest flag
// and its error message, so that they cannot disagree on what the profile names.
template <typename P, typename F>
void ForEachImageField(P& profile, F&& visit) {
  visit(profile.workload.image, profile.workload.pointer + "/image", "workload image");
  visit(profile.wrapper.image, profile.wrapper.pointer + "/image", "wrapper image");
  if (!profile.operators) return;
  auto& ops = *profile.operators;
  if (ops.vf_config && ops.vf_config->managed())
    visit(ops.vf_config->image, ops.vf_config->pointer + "/image", "VF DaemonSet image");
  if (ops.nfd && ops.nfd->managed())
    visit(ops.nfd->operand_image, ops.nfd->pointer + "/operand_image", "NFD operand image");
}

std::string WithoutDigest(const std::string& image) { return image.substr(0, image.find('@')); }

// The NicClusterPolicy's components with a profile section, as PlanNicClusterPolicy
// (plan/operators/oke.cc) renders them: not when another profile renders the policy (install:
// shared), nv-ipam only where a rail uses it. `visit(component, release image, what)`.
template <typename P, typename F>
void ForEachPolicyImage(P& profile, F&& visit) {
  auto& network = profile.network;
  if (profile.workload.mode != WorkloadMode::kRdma || !network.sriov_device_plugin) return;
  const auto& ops = profile.operators;
  if (ops && ops->network_operator && ops->network_operator->install == OperatorInstall::kShared)
    return;
  const std::optional<NetworkOperatorRelease> release = FindNetworkOperatorRelease(
      ops && ops->network_operator ? ops->network_operator->version : NetworkOperator{}.version);
  if (!release) return;  // lint.operator-version reports it
  visit(*network.sriov_device_plugin, release->sriov_device_plugin, "SR-IOV device plugin image");
  bool nv_ipam = false;
  for (const Rail& rail : network.rails) nv_ipam |= rail.ipam.type == IpamType::kNvIpam;
  if (nv_ipam && network.nv_ipam) visit(*network.nv_ipam, release->nv_ipam, "nv-ipam image");
}

// repository/image:version (or @version for a digest, as Mellanox/network-operator v25.10.0
// pkg/render/render.go imagePath joins a NicClusterPolicy image), the release's parts where the
// profile leaves them empty.
template <typename C>
std::string PolicyReference(const C& component, const ComponentImage& table) {
  return ComposeImage(component.repository.empty() ? table.repository : component.repository,
                      component.image.empty() ? table.image : component.image,
                      component.version.empty() ? table.version : component.version);
}

}  // namespace

std::vector<ProfileImage> ProfileImages(const Profile& profile) {
  std::vector<ProfileImage> images;
  ForEachImageField(
      profile, [&](const std::string& image, const std::string& pointer, const char* what) {
        if (image.empty()) return;
        const bool wrapper = pointer == profile.wrapper.pointer + "/image";
        images.push_back(
            {image, pointer, what,
             image.find('@') != std::string::npos || (wrapper && !profile.wrapper.digest.empty()),
             wrapper ? "wrapper.digest: sha256:<64 hex>"
                     : "write " + WithoutDigest(image) + "@sha256:<64 hex> at " + pointer});
      });
  ForEachPolicyImage(profile, [&](const auto& component, const ComponentImage& table,
                                  const char* what) {
    const std::string reference = PolicyReference(component, table);
    images.push_back({reference, component.pointer + "/version", what,
                      reference.find('@') != std::string::npos,
                      "set version: sha256:<64 hex> at " + component.pointer +
                          " (the NicClusterPolicy pulls repository/image@version for a digest)"});
  });
  return images;
}

int ApplyImageDigests(Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink) {
  int errors = 0;
  for (const auto& pin : profile.images.digests) {
    // Named, not structured bindings: lambdas capture them (clang before 16 cannot).
    const std::string& key = pin.first;
    const std::string& digest = pin.second;
    bool found = false;
    ForEachImageField(profile, [&](std::string& image, const std::string& pointer, const char*) {
      if (image.empty() || (image != key && WithoutDigest(image) != key)) return;
      found = true;
      // The wrapper keeps its own field, which WrapperImageReference appends (the tag stays
      // readable there too).
      if (pointer == profile.wrapper.pointer + "/image") {
        profile.wrapper.digest = digest;
      } else {
        image = WithDigest(image, digest);
      }
    });
    ForEachPolicyImage(profile, [&](auto& component, const ComponentImage& table, const char*) {
      const std::string reference = PolicyReference(component, table);
      if (reference != key && WithoutDigest(reference) != key) return;
      found = true;
      component.version = digest;  // the tag gives way: the policy has one version field
    });
    if (found) continue;
    ++errors;
    std::vector<std::string> named;
    std::string listed;
    for (const ProfileImage& image : ProfileImages(profile)) {
      named.push_back(WithoutDigest(image.reference));
      listed += (listed.empty() ? "" : ", ") + named.back();
    }
    const std::string closest = ClosestMatch(key, named);
    ReportModelError(loaded, sink, "/images/digests/" + EscapeJsonPointerToken(key),
                     "model.image-digest",
                     "a digest is given for '" + key +
                         "', an image this profile does not name (--image-digest or "
                         "images.digests)",
                     (closest.empty() ? std::string() : "did you mean " + closest + "? ") +
                         "name one of the profile's images as written: " + listed);
  }
  return errors;
}

int CheckImageReferences(const Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink) {
  int errors = 0;
  for (const ProfileImage& image : ProfileImages(profile)) {
    if (ParseImageReference(image.reference)) continue;
    // The usual slip is upper case in the repository path (a registry host may have it).
    std::string suggestion = image.reference;
    const size_t slash = suggestion.find('/');
    const size_t tag = suggestion.find_first_of(":@", slash == std::string::npos ? 0 : slash);
    for (size_t i = slash == std::string::npos ? 0 : slash + 1;
         i < (tag == std::string::npos ? suggestion.size() : tag); ++i) {
      suggestion[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(suggestion[i])));
    }
    const bool lower_fixes = ParseImageReference(suggestion).has_value();
    ++errors;
    ReportModelError(loaded, sink, image.pointer, "model.image-reference",
                     std::string(image.what) + " '" + image.reference +
                         "' is not a valid image reference: no registry can serve it, and the "
                         "kubelet refuses it (InvalidImageName)",
                     lower_fixes
                         ? "write the repository path in lower case: '" + suggestion + "'"
                         : "write REGISTRY/PATH[:TAG][@sha256:DIGEST]: the path in lower case "
                           "letters, digits and . _ -, a tag of letters, digits and . _ - (at "
                           "most 128)");
  }
  return errors;
}

}  // namespace hkim
