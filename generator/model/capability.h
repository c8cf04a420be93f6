#pragma once

// A capability of the requirements model (plan/requirements.h says how each kind is named):
// here, before the plan stage, because an operator's definition (model/operator_catalog.h)
// says what its node agents provide.

#include <string>

namespace hkim {

enum class CapabilityKind {
  kCrd,
  kCniPlugin,
  kRdmaNetns,
  kResource,
  kNodeLabel,
  kMachineConfigPool,
  kToleration,
  kGpuDirect,
  kImage,
};

struct Capability {
  CapabilityKind kind = CapabilityKind::kCrd;
  std::string name;
};

}  // namespace hkim
