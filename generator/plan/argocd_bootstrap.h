#pragma once

// Plan stage, Argo CD bootstrap (OpenShift): what the OpenShift GitOps application controller
// needs before it can sync the bundle. The default instance writes only in namespaces labelled
// argocd.argoproj.io/managed-by, so it cannot create SCCs, MachineConfigs or namespaces; a
// cluster admin applies bootstrap/ once by hand (docs/bundle.md, "A fresh cluster").

#include <string>

#include "model/model.h"
#include "plan/plan.h"

namespace hkim {

/// Fills `plan.bootstrap` on OpenShift (nothing elsewhere: upstream Argo CD's controller may
/// write every kind already) with a ClusterRole `hkimgen:<cluster>:argocd-apply` covering exactly
/// the kinds of `plan.objects` (plus the permissions the bundle's Roles and ClusterRoles grant,
/// which RBAC requires the granter to hold) and its ClusterRoleBinding to
/// `gitops.controller_service_account`. Call after every object is planned.
void PlanArgoCdBootstrap(const Profile& profile, BundlePlan& plan);

/// The API resource (plural) of `kind`; `*known` (may be null) is false when the kind is not in
/// the table and the plural was guessed (lower case + "s").
std::string ResourcePlural(const std::string& kind, bool* known);

}  // namespace hkim
