#include "plan/pod_images.h"

#include "model/wrapper_image.h"
#include "plan/requirements.h"

namespace hkim {

void NeedPodSpecImages(const Profile& profile, PlannedObject& object) {
  // Where the object's kind holds its pod template (templates/common/pod-spec.mustache).
  const std::string pod = object.kind == "CronJob" ? "spec.jobTemplate.spec.template.spec."
                                                   : "spec.template.spec.";
  NeedImage(object, profile.workload.image, profile.workload.pointer + "/image",
            "its containers run it", pod + "containers[0].image");
  NeedImage(object, WrapperImageReference(profile.wrapper), profile.wrapper.pointer + "/image",
            "its init container installs hkim-wrapper from it", pod + "initContainers[0].image");
}

}  // namespace hkim
