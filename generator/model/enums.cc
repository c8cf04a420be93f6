// Model part: the stable spelling of every enum value (schema spelling, for output and messages).

#include "model/model.h"

namespace hkim {

const char* ToString(Platform value) {
  switch (value) {
    case Platform::kOpenShift:
      return "openshift";
    case Platform::kOke:
      return "oke";
    case Platform::kKubernetes:
      return "kubernetes";
  }
  return "?";
}
const char* ToString(Fabric value) { return value == Fabric::kRoceV2 ? "roce-v2" : "infiniband"; }
const char* ToString(RdmaNetns value) {
  switch (value) {
    case RdmaNetns::kShared: return "shared";
    case RdmaNetns::kExclusive: return "exclusive";
    case RdmaNetns::kAlreadyExclusive: return "already-exclusive";
  }
  return "exclusive";
}
const char* ToString(IpamType value) {
  return value == IpamType::kWhereabouts ? "whereabouts" : "nv-ipam";
}
const char* ToString(CpuVendor value) { return value == CpuVendor::kIntel ? "intel" : "amd"; }
const char* ToString(SelinuxMode value) {
  switch (value) {
    case SelinuxMode::kEnforcing:
      return "enforcing";
    case SelinuxMode::kPermissive:
      return "permissive";
    case SelinuxMode::kDisabled:
      return "disabled";
  }
  return "?";
}
const char* ToString(GidPolicy value) { return value == GidPolicy::kAuto ? "auto" : "index"; }
const char* ToString(GpuDirect value) {
  switch (value) {
    case GpuDirect::kAuto:
      return "auto";
    case GpuDirect::kDmaBuf:
      return "dmabuf";
    case GpuDirect::kNvidiaPeermem:
      return "nvidia-peermem";
  }
  return "?";
}
const char* ToString(MemlockStrategy value) {
  switch (value) {
    case MemlockStrategy::kSysResourceScc:
      return "sys-resource-scc";
    case MemlockStrategy::kPrivileged:
      return "privileged";
    case MemlockStrategy::kCrioUlimits:
      return "crio-ulimits";
  }
  return "?";
}
const char* ToString(IommuPolicy value) {
  switch (value) {
    case IommuPolicy::kPassthrough:
      return "passthrough";
    case IommuPolicy::kAlreadyConfigured:
      return "already-configured";
    case IommuPolicy::kSkip:
      return "skip";
  }
  return "?";
}
const char* ToString(WorkloadMode value) { return value == WorkloadMode::kRdma ? "rdma" : "tcp"; }
const char* ToString(OnNoRdma value) { return value == OnNoRdma::kFail ? "fail" : "tcp"; }
const char* ToString(HealthCheckMode value) {
  switch (value) {
    case HealthCheckMode::kOff:
      return "off";
    case HealthCheckMode::kWarn:
      return "warn";
    case HealthCheckMode::kFail:
      return "fail";
  }
  return "?";
}
const char* ToString(HealthCheckScope value) {
  return value == HealthCheckScope::kLocal ? "local" : "job";
}

const char* ToString(SelfSync value) {
  switch (value) {
    case SelfSync::kOff:
      return "off";
    case SelfSync::kNamespaces:
      return "namespaces";
    case SelfSync::kExceptNodeDisruption:
      return "except-node-disruption";
    case SelfSync::kEverything:
      return "everything";
  }
  return "?";
}

}  // namespace hkim
