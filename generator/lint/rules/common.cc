#include "lint/rules/rules.h"

namespace hkim {

std::optional<ProfileEnv> ExplicitEnv(const Profile& profile, const std::string& name) {
  auto workload = profile.workload.env.find(name);
  if (workload != profile.workload.env.end()) {
    return ProfileEnv{workload->second,
                      profile.workload.pointer + "/env/" + EscapeJsonPointerToken(name)};
  }
  auto extra = profile.nccl.extra_env.find(name);
  if (extra != profile.nccl.extra_env.end()) {
    return ProfileEnv{extra->second,
                      profile.nccl.pointer + "/extra_env/" + EscapeJsonPointerToken(name)};
  }
  return std::nullopt;
}

int RailAttachmentsPerPod(const Profile& profile) {
  if (profile.workload.mode != WorkloadMode::kRdma) return 0;
  int total = 0;
  for (const Rail& rail : profile.network.rails) total += rail.attachments_per_pod;
  return total;
}

std::string WhereIs(const LintContext& context, const std::string& json_pointer) {
  SourceLocation at = context.loaded.locations.Find(json_pointer);
  if (!at.known()) return at.file.empty() ? context.loaded.path : at.file;
  return at.file + ":" + std::to_string(at.line);
}

}  // namespace hkim
