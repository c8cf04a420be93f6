#include "plan/describe.h"

namespace hkim {

std::string DescribeObject(const PlannedObject& o) {
  return o.kind + " " + (o.namespace_name.empty() ? "" : o.namespace_name + "/") + o.name;
}

}  // namespace hkim
