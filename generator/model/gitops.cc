// Model part, GitOps: the Argo CD Application's source and destination.

#include "model/reader.h"

namespace hkim {

// gitops.self_sync, or the deprecated automated_sync it replaces: `true` meant that everything
// synced itself with prune and self-heal, and the parent too; `false` left the child
// Applications syncing themselves, which now stops at node disruption (the default). The lint
// rule lint.deprecated-automated-sync tells the user which value to write.
void ModelBuilder::ReadSelfSync(const json& g, GitOps& out) {
  const json* legacy = Child(g, "automated_sync");
  if (Child(g, "self_sync") && legacy) {
    Error("/gitops/automated_sync", "model.self-sync-twice",
          "gitops sets both self_sync and the deprecated automated_sync it replaces",
          "delete automated_sync; gitops.self_sync alone says which Applications sync themselves");
    return;
  }
  if (legacy && legacy->is_boolean() && legacy->get<bool>()) {
    out.self_sync = SelfSync::kEverything;
    out.prune = true;
    return;
  }
  const std::string value = String(g, "self_sync", ToString(out.self_sync));
  for (SelfSync s : {SelfSync::kOff, SelfSync::kNamespaces, SelfSync::kExceptNodeDisruption,
                     SelfSync::kEverything})
    if (value == ToString(s)) out.self_sync = s;
}

void ModelBuilder::ReadGitOps(const json& g, Platform platform, GitOps& out) {
  // OpenShift GitOps installs Argo CD in openshift-gitops; elsewhere the upstream default.
  const bool openshift = platform == Platform::kOpenShift;
  out.argocd_namespace =
      String(g, "argocd_namespace", openshift ? "openshift-gitops" : out.argocd_namespace);
  out.project = String(g, "project", out.project);
  out.repo_url = String(g, "repo_url");
  out.path = String(g, "path");
  out.revision = String(g, "revision", out.revision);
  out.destination_server = String(g, "destination_server", out.destination_server);
  out.destination_name = String(g, "destination_name");
  if (!out.destination_name.empty() && Child(g, "destination_server")) {
    // Argo CD rejects an Application whose destination has both; say so here, at the profile.
    Error("/gitops/destination_name", "model.destination-twice",
          "gitops names its Argo CD destination twice (destination_name and destination_server); "
          "Argo CD takes one or the other",
          "keep one: destination_name for a cluster registered in Argo CD by name, or "
          "destination_server for its API server URL");
  }
  // Argo CD writes to its own cluster as its controller, to a registered remote cluster with
  // that cluster's credentials: what `argocd cluster add` creates there, kube-system's
  // argocd-manager (argo-cd cmd/argocd/commands/cluster.go, clusterauth.ArgoCDManagerServiceAccount).
  const bool remote = out.destination_name.empty() ? out.destination_server != kInClusterServer
                                                   : out.destination_name != "in-cluster";
  out.controller_service_account =
      String(g, "controller_service_account",
             remote ? kRemoteClusterAccount : out.argocd_namespace + "-argocd-application-controller");
  out.controller_namespace = remote ? "kube-system" : out.argocd_namespace;
  out.destination_namespace = String(g, "destination_namespace");
  ReadSelfSync(g, out);
  out.platform_project = String(g, "platform_project", out.project);
  out.workload_project = String(g, "workload_project", out.project);
  out.retry_limit = static_cast<int>(Integer(g, "retry_limit", out.retry_limit));
}

}  // namespace hkim
