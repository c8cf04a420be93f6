#include "model/image_reference.h"

#include "model/image_mirror.h"

namespace hkim {

bool IsDigest(const std::string& version) { return version.rfind("sha256:", 0) == 0; }

std::string ComposeImage(const std::string& repository, const std::string& image,
                         const std::string& version) {
  std::string out = repository;
  if (!image.empty()) out += (out.empty() || out.back() == '/' ? "" : "/") + image;
  if (!version.empty()) out += (IsDigest(version) ? "@" : ":") + version;
  return out;
}

std::string ComposeImage(const std::string& mirror, const std::string& repository,
                         const std::string& image, const std::string& version) {
  return ComposeImage(MirroredRepository(mirror, repository).value_or(repository), image,
                      version);
}

std::string WithDigest(const std::string& reference, const std::string& digest) {
  return reference.substr(0, reference.find('@')) + "@" + digest;
}

}  // namespace hkim
