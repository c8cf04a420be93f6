#include "plan/pod_images.h"

#include "model/wrapper_image.h"
#include "plan/requirements.h"

namespace hkim {

void NeedPodSpecImages(const Profile& profile, PlannedObject& object) {
  NeedImage(object, profile.workload.image, profile.workload.pointer + "/image",
            "its containers run it");
  NeedImage(object, WrapperImageReference(profile.wrapper), profile.wrapper.pointer + "/image",
            "its init container installs hkim-wrapper from it");
}

}  // namespace hkim
