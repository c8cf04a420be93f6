#include "support/object_id.h"

namespace hkim {

std::string_view ApiGroupOf(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

ObjectId ObjectId::FromApiVersion(std::string_view api_version, std::string kind,
                                  std::string namespace_name, std::string name) {
  return ObjectId{std::string(ApiGroupOf(api_version)), std::move(kind),
                  std::move(namespace_name), std::move(name)};
}

}  // namespace hkim
