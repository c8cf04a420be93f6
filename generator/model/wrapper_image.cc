#include "model/wrapper_image.h"

#include "model/image_reference.h"
#include "support/version.h"

namespace hkim {

const char* WrapperImageVersion() { return BuildVersion().version.c_str(); }

std::string DefaultWrapperImage() {
  return ComposeImage("quay.io/hkim", "hkim-wrapper", WrapperImageVersion());
}

std::string ImageTag(const std::string& image) {
  if (image.find('@') != std::string::npos) return "@";
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return "";
  return image.substr(colon + 1);
}

std::string WrapperImageReference(const Wrapper& wrapper) {
  if (wrapper.digest.empty()) return wrapper.image;
  return WithDigest(wrapper.image, wrapper.digest);
}

}  // namespace hkim
