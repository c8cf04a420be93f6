#include "model/image_digest.h"

#include "model/checks.h"
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

}  // namespace

std::vector<ProfileImage> ProfileImages(const Profile& profile) {
  std::vector<ProfileImage> images;
  ForEachImageField(profile, [&](const std::string& image, const std::string& pointer,
                                 const char* what) {
    if (image.empty()) return;
    const bool wrapper = pointer == profile.wrapper.pointer + "/image";
    images.push_back({image, pointer, what,
                      image.find('@') != std::string::npos ||
                          (wrapper && !profile.wrapper.digest.empty())});
  });
  return images;
}

int ApplyImageDigests(Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink) {
  int errors = 0;
  for (const auto& [key, digest] : profile.images.digests) {
    bool found = false;
    ForEachImageField(profile, [&](std::string& image, const std::string& pointer,
                                   const char*) {
      if (image.empty() || (image != key && WithoutDigest(image) != key)) return;
      found = true;
      // The wrapper keeps its own field, which WrapperImageReference appends (the tag stays
      // readable there too).
      if (pointer == profile.wrapper.pointer + "/image") {
        profile.wrapper.digest = digest;
      } else {
        image = WithoutDigest(image) + "@" + digest;
      }
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

}  // namespace hkim
