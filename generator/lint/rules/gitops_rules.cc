// Lint rules, gitops: keys the profile still writes in an older spelling.

#include "lint/rules/rules.h"

namespace hkim {
namespace {

// gitops.automated_sync (the older spelling) still works (model/gitops.cc maps it onto self_sync),
// but its value reads differently now: false no longer lets node-disrupting changes sync
// themselves. Say what it means and what to write instead.
void CheckDeprecatedAutomatedSync(const LintContext& c, LintReporter& r) {
  const nlohmann::json& document = c.loaded.document;
  const nlohmann::json::json_pointer pointer("/gitops/automated_sync");
  if (!document.contains(pointer) || !document.at(pointer).is_boolean()) return;
  const bool value = document.at(pointer).get<bool>();
  r.Report("/gitops/automated_sync",
           std::string("gitops.automated_sync is deprecated; ") +
               (value ? "true still means that every Application syncs itself with prune and "
                        "self-heal, node-disrupting ones (MachineConfigs, node policies, the GPU "
                        "driver) included: self_sync: everything"
                      : "false now means self_sync: namespaces, under which the platform and "
                        "nodes Applications wait for `argocd app sync` (they synced themselves "
                        "before)"),
           value ? "write gitops.self_sync: everything instead (or a narrower value: "
                   "except-node-disruption keeps reboots and driver rolls manual)"
                 : "delete gitops.automated_sync (self_sync: namespaces is the default), or "
                   "write gitops.self_sync: except-node-disruption to keep the platform "
                   "Application syncing itself");
}

// fabric_health.gate.ttl_seconds_after_finished was the TTL of a separate gate Job; the fabric
// check runs in the workload's own pods (plan/fabric_check.h), so there is no Job to delete.
// Accepted, so that existing profiles still load, and reported.
void CheckDeprecatedGateTtl(const LintContext& c, LintReporter& r) {
  const nlohmann::json::json_pointer pointer("/fabric_health/gate/ttl_seconds_after_finished");
  if (!c.loaded.document.contains(pointer)) return;
  r.Report("/fabric_health/gate/ttl_seconds_after_finished",
           "fabric_health.gate.ttl_seconds_after_finished is deprecated and ignored: the fabric "
           "check runs in the workload's own pods, there is no gate Job to delete",
           "delete the key; to run the check again, restart the pods (kubectl rollout restart "
           "statefulset)");
}

}  // namespace

std::vector<LintRule> GitOpsLintRules() {
  return {
      {"lint.deprecated-automated-sync", Severity::kWarning,
       "gitops.self_sync instead of the deprecated gitops.automated_sync",
       CheckDeprecatedAutomatedSync},
      {"lint.deprecated-gate-ttl", Severity::kWarning,
       "no fabric_health.gate.ttl_seconds_after_finished: the check runs in the pods, no Job",
       CheckDeprecatedGateTtl},
  };
}

}  // namespace hkim
