#pragma once

// Plan stage of the fabric-health family (profile section `fabric_health`, model/health.h;
// templates in templates/health/). The in-pod check (`fabric_health.gate`) runs in the
// StatefulSet's own pods and plans no object of its own (plan/fabric_check.h); here:
//  - the periodic check, for the pool, in a namespace of its own (FabricHealthNamespace, the
//    bundle's `health` layer): that Namespace; the CronJob whose one coordinator pod (no GPU,
//    `hkim-health night`) starts check pods on tonight's idle nodes, its ServiceAccount and a
//    Role on pods there; the check pod (the StatefulSet's pod spec) as JSON in a ConfigMap, and
//    the check pods' ServiceAccount (no rights, no token; bound to the SCC like the workload's);
//    copies of the workload namespace's NADs and ConfigMaps the check pods attach and mount; a
//    ClusterRole that can only get, list and patch nodes bound to the coordinator's account
//    alone, fenced by an admission policy; and a preemptible PriorityClass. Nothing in a
//    workload namespace may patch a Node: the in-pod check logs its suspects and keeps the pods
//    unready, the nightly check marks.
// Every GPU pod uses the StatefulSet's pod spec (templates/common/pod-spec.mustache) with the
// values below changed, never a copy of it.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// The label (and taint key) the health check writes and the workload avoids.
inline constexpr const char* kHealthLabel = kHealthMarkKey;  // model/health.h

/// The Argo CD sync waves of the family's objects (from the core plan's wave order).
struct HealthWaves {
  int namespace_wave = 0;  ///< the periodic check's Namespace
  int access = 0;    ///< ServiceAccount, RoleBinding, ClusterRole(Binding), PriorityClass
  int periodic = 0;  ///< the CronJob
};

/// When enabled and `ns` is the first workload namespace, adds the pool's periodic check, in
/// HealthNamespace(profile) (plan/health_periodic.cc).
/// `workload_pod` is the StatefulSet's template context (the pod spec values); the NADs and
/// ConfigMaps of `ns` must be planned already (their copies go with the check).
void PlanFabricHealthNamespace(const Profile& profile, const std::string& ns,
                               const nlohmann::json& workload_pod, const HealthWaves& waves,
                               BundlePlan& plan);

/// The health namespace of workload namespace `ns` and what the check needs in it besides its
/// CronJob (plan/health_namespace.cc): the Namespace, ServiceAccount, the SCC's `use` on
/// OpenShift, copies of the NADs and ConfigMaps of `ns`.
void PlanFabricHealthNamespaceAccess(const Profile& profile, const std::string& ns,
                                     const HealthWaves& waves, BundlePlan& plan);

/// Adds the cluster-scoped objects of the periodic check (PriorityClass, ClusterRole,
/// ClusterRoleBinding for the health ServiceAccount of every health namespace), when enabled.
void PlanFabricHealthCluster(const Profile& profile, const HealthWaves& waves, BundlePlan& plan);

/// Adds the fence around the health check's node patches (plan/health_fence.cc): a
/// ValidatingAdmissionPolicy and its binding that let the health service accounts change only
/// the marks hkim-health writes (kHealthLabel as pass|fail, kHealthMarkAnnotations, the taint
/// kHealthLabel=fail:NoSchedule where fabric_health.periodic.taint consents) and only on nodes of
/// the pool (node_shape.node_selector, include_nodes, exclude_nodes; never a control-plane node).
void PlanHealthNodeFence(const Profile& profile, int wave, BundlePlan& plan);
/// The accounts that may mark nodes, exactly: the periodic check's service account in each
/// health namespace, as Kubernetes names the user ("system:serviceaccount:<ns>:<name>"); the
/// policy matches them and the ClusterRoleBinding binds them.
std::vector<std::string> NodeMarkingUsers(const Profile& profile);
std::string HealthNodeFenceName(const Profile& profile);  ///< hkimgen-<cluster>-fabric-health-node-marks

/// CEL literals of profile values (plan/health_fence.cc): a single-quoted string with
/// backslash, quote and control bytes escaped, so that no value can end the literal or change
/// the expression; a list and a map of such strings.
std::string CelQuoted(const std::string& text);
std::string CelListOf(const std::vector<std::string>& items);
/// A fence's view of the pool's node lists: policy.context exclude_nodes and include_nodes as CEL
/// lists, sorted (the policy does not change when the profile reorders them).
void SetFencedNodeLists(const Profile& p, PlannedObject& policy);
/// The ValidatingAdmissionPolicyBinding that puts the policy `name` in force, at `wave`.
void PlanFenceBinding(const Profile& p, const std::string& name, int wave, BundlePlan& plan);
std::string CelMapOf(const std::map<std::string, std::string>& entries);

/// The node condition RdmaFabric (plan/health_condition.cc), when
/// fabric_health.node_condition.enabled: in the health namespace `ns` the link agent (DaemonSet
/// <workload>-fabric-links running `hkim-health links`, its ServiceAccount, a Role to create
/// Events, on OpenShift the `use` of hostmount-anyuid for its read-only hostPath of /sys) when
/// link_counters are on ...
void PlanLinkAgent(const Profile& profile, const std::string& ns, const HealthWaves& waves,
                   BundlePlan& plan);
/// ... and cluster-wide the agent's ClusterRole (get nodes, patch nodes/status) and binding, and
/// the fence: a ValidatingAdmissionPolicy on nodes/status that lets the condition's writers
/// (ConditionWritingUsers) change only the RdmaFabric condition (its reasons), only on the
/// pool's nodes, the agent only on the node its token is bound to; no other condition, status
/// field, label or annotation.
void PlanNodeCondition(const Profile& profile, const HealthWaves& waves, BundlePlan& plan);
/// The users that write the condition: the coordinator's account where marks name the
/// condition, the link agent's where it runs.
std::vector<std::string> ConditionWritingUsers(const Profile& profile);
std::string LinkAgentName(const Profile& profile);  ///< <workload>-fabric-links
std::string LinkAgentClusterRoleName(const Profile& profile);  ///< hkimgen:<cluster>:fabric-links
/// hkimgen-<cluster>-fabric-health-node-condition
std::string HealthConditionFenceName(const Profile& profile);

/// The transport a check requires (HKIM_NCCL_CHECK_TRANSPORT) for a profile's `transport`:
/// itself, or for "auto" NET/Socket in tcp mode, NET/IB/GDRDMA where nccl.gpudirect names a
/// mode (the profile relies on GPUDirect), else NET/IB.
std::string ResolvedTransport(const Profile& profile, const std::string& transport);

/// Names shared by the objects and the tests.
std::string HealthCronJobName(const Profile& profile); ///< <workload>-fabric-health
std::string HealthServiceAccount(const Profile& profile);  ///< <workload>-fabric-health
/// The check pods' app label, ConfigMap and name prefix: <workload>-fabric-health-check.
std::string HealthCheckName(const Profile& profile);
/// The check pods' ServiceAccount (no API rights, no token): <workload>-fabric-health-check.
std::string HealthCheckServiceAccount(const Profile& profile);
// FabricHealthNamespace(ns): model/health.h.
/// Whether `ns` is the health namespace of one of the profile's workload namespaces.
bool IsFabricHealthNamespace(const Profile& profile, const std::string& ns);
/// The one namespace the pool's periodic check runs in: FabricHealthNamespace of the first
/// workload namespace. Every workload namespace runs on the same pool of nodes, so one check (one
/// CronJob, one account that may mark nodes) serves them all; a check per namespace would test
/// the same nodes once per namespace each night.
std::string HealthNamespace(const Profile& profile);
std::string HealthClusterRoleName(const Profile& profile); ///< hkimgen:<cluster>:fabric-health
std::string HealthPriorityClassName(const Profile& profile);  ///< <cluster>-fabric-health-low

/// One container environment entry, {name, value}.
nlohmann::json EnvEntry(const std::string& name, const std::string& value);

}  // namespace hkim
