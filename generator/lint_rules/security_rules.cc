// Memlock strategy, privilege, image tags.

#include "lint_rules.h"

namespace hkim {
namespace {

void CheckPrivileged(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.workload.mode != WorkloadMode::kRdma ||
      p.security.memlock_strategy != MemlockStrategy::kPrivileged) {
    return;
  }
  if (p.IsOpenShift()) {
    r.Report(p.security.pointer + "/memlock_strategy",
             "memlock_strategy privileged runs the job under the privileged SCC: every "
             "capability, every host device, any UID",
             "use memlock_strategy: sys-resource-scc: hkimgen renders SCC '" + p.security.scc_name +
                 "' that allows only IPC_LOCK and SYS_RESOURCE, enough to lift memlock");
  } else {
    r.Report(p.security.pointer + "/memlock_strategy",
             "memlock_strategy privileged runs the job in privileged containers: every "
             "capability, every host device",
             "use memlock_strategy: crio-ulimits (CRI-O default_ulimits memlock=-1 on the GPU "
             "node pool) with IPC_LOCK only");
  }
}

void CheckMemlockUid(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.workload.mode != WorkloadMode::kRdma || !p.security.run_as_user ||
      *p.security.run_as_user == 0 ||
      p.security.memlock_strategy == MemlockStrategy::kCrioUlimits) {
    return;
  }
  const std::string uid = std::to_string(*p.security.run_as_user);
  r.Report(p.security.pointer + "/run_as_user",
           "memlock_strategy " + std::string(ToString(p.security.memlock_strategy)) +
               " relies on added capabilities (IPC_LOCK, SYS_RESOURCE), but they are not "
               "effective for UID " +
               uid + ": memlock stays at the runtime's 8 MiB and memory registration fails",
           "remove security.run_as_user (or set 0), or use memlock_strategy: crio-ulimits, "
           "which lifts memlock for every UID");
}

void CheckMemlockUidUnset(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.workload.mode != WorkloadMode::kRdma || p.security.run_as_user ||
      p.security.memlock_strategy != MemlockStrategy::kSysResourceScc) {
    return;
  }
  r.Report(p.security.pointer + "/memlock_strategy",
           "sys-resource-scc lifts memlock through added capabilities (IPC_LOCK, SYS_RESOURCE), "
           "which only take effect for UID 0, but security.run_as_user is unset: with an image "
           "that runs as another user memlock stays at 8 MiB (IPC_LOCK granted, memlock still "
           "8 MiB on Barcelona)",
           "set security.run_as_user: 0, or use memlock_strategy: crio-ulimits");
}

// The tag of an image reference: "" when it has none, "@" for a digest.
std::string ImageTag(const std::string& image) {
  if (image.find('@') != std::string::npos) return "@";
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return "";
  return image.substr(colon + 1);
}

void CheckImageLatest(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  auto check = [&](const std::string& image, const std::string& pointer, const char* what) {
    if (image.empty()) return;
    const std::string tag = ImageTag(image);
    if (tag == "@" || (!tag.empty() && tag != "latest")) return;
    r.Report(pointer,
             std::string(what) + " '" + image + "' " +
                 (tag.empty() ? "has no tag, so it means :latest" : "uses the tag latest") +
                 ": every node may run a different build, and a re-pull silently changes the "
                 "NCCL and driver libraries under the job",
             "pin a version tag or a digest (image@sha256:...)");
  };
  check(p.workload.image, p.workload.pointer + "/image", "workload image");
  check(p.wrapper.image, p.wrapper.pointer + "/image", "wrapper image");
  if (p.network.sriov_device_plugin && p.network.sriov_device_plugin->version == "latest") {
    check(p.network.sriov_device_plugin->image + ":latest",
          p.network.sriov_device_plugin->pointer + "/version", "SR-IOV device plugin image");
  }
  if (p.network.nv_ipam && p.network.nv_ipam->version == "latest") {
    check(p.network.nv_ipam->image + ":latest", p.network.nv_ipam->pointer + "/version",
          "nv-ipam image");
  }
}

}  // namespace

std::vector<LintRule> SecurityLintRules() {
  return {
      {"lint.privileged", Severity::kWarning,
       "privileged containers are avoided; names the least-privilege SCC (or CRI-O ulimits)",
       CheckPrivileged},
      {"lint.memlock-uid", Severity::kError,
       "the memlock strategy can lift memlock for the container's UID", CheckMemlockUid},
      {"lint.memlock-uid-unset", Severity::kWarning,
       "sys-resource-scc states the UID (capabilities only take effect for UID 0)",
       CheckMemlockUidUnset},
      {"lint.image-latest", Severity::kWarning, "images are pinned (no latest or missing tag)",
       CheckImageLatest},
  };
}

}  // namespace hkim
