// What the catalogue's operators provide (operator_capabilities.h).

#include "plan/operator_capabilities.h"

namespace hkim {

std::vector<Capability> OperatorCrdCapabilities(const OperatorFacts& facts) {
  std::vector<Capability> out;
  for (const std::string& group : facts.crd_groups)
    out.push_back(Capability{CapabilityKind::kCrd, group + "/*"});
  return out;
}

std::vector<Capability> OperatorAgentCapabilities(const Profile& p, const OperatorFacts& facts) {
  return facts.agent_capabilities ? facts.agent_capabilities(p) : std::vector<Capability>{};
}

}  // namespace hkim
