#pragma once

// Plan stage of the fabric-health family, its consumers (profile section
// `fabric_health.consumers`, model/health_consumers.h; templates in templates/consumers/): the
// glue between the pool's fabric node condition (RdmaFabric) and the tools the cluster already
// runs to act on bad nodes, each opt-in. None of them reboots a node for a fabric fault:
//  - node_health_check: a NodeHealthCheck (medik8s) over the pool whose minHealthy 100% blocks
//    every remediation, so it detects, lists and reports, and a person remediates;
//  - nvsentinel: NVSentinel's kubernetes-object-monitor policy and fault-quarantine rule set
//    (taint NoSchedule, no cordon, no drain) as Helm values of its chart, carried in a ConfigMap
//    beside the release (Helm replaces lists whole: they are appended by hand);
//  - node_problem_detector: a custom plugin monitor config for the cluster's node-problem-
//    detector that runs `hkim-health links --once` and writes the condition from its exit status.
// What each needs installed is an implied precondition (plan/preconditions.cc).

#include <string>
#include <vector>

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// Adds the enabled consumers' objects at sync wave `wave` (cluster access: after the operators).
void PlanFabricConsumers(const Profile& profile, int wave, BundlePlan& plan);

/// What the enabled consumers need installed, as implied preconditions: the NodeHealthCheck and
/// Self Node Remediation template CRDs (kind crd: validate --cluster looks for them among an
/// export's CRDs), NVSentinel's kubernetes-object-monitor and fault-quarantine and
/// node-problem-detector (kind running, what NAMESPACE/CONTAINER: validate --cluster looks for a
/// pod there with that container).
std::vector<Precondition> ConsumerPreconditions(const Profile& profile);

/// Names shared by the objects, the preconditions and the tests.
std::string FabricNodeHealthCheckName(const Profile& profile);  ///< hkimgen-<cluster>-rdma-fabric
std::string NvSentinelValuesName(const Profile& profile);  ///< hkimgen-<cluster>-nvsentinel-values
/// node-problem-detector's plugin config: hkimgen-<cluster>-rdma-fabric-npd, key kNpdConfigFile.
std::string NpdConfigName(const Profile& profile);
inline constexpr const char* kNpdConfigFile = "rdma-fabric.json";
/// The kubernetes-object-monitor policy's name, which NVSentinel puts in its health events'
/// checkName (the fault-quarantine rule set matches it): hkimgen-<cluster>-rdma-fabric.
std::string NvSentinelPolicyName(const Profile& profile);

/// Self Node Remediation's template, which the NodeHealthCheck names because the operator
/// requires one and never instantiates because minHealthy is 100%.
inline constexpr const char* kSnrTemplateApiVersion = "self-node-remediation.medik8s.io/v1alpha1";
inline constexpr const char* kSnrTemplateKind = "SelfNodeRemediationTemplate";
inline constexpr const char* kSnrTemplateName = "self-node-remediation-automatic-strategy-template";
/// The NVSentinel Deployments (their containers carry the chart names) the values configure.
inline constexpr const char* kNvSentinelModules[] = {"fault-quarantine",
                                                     "kubernetes-object-monitor"};

}  // namespace hkim
