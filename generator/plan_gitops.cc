// Plan stage, GitOps: the kustomization that lists every object's file, and the Argo CD
// Application that points at the bundle (not listed in the kustomization: no self-sync).

#include "plan_builder.h"

namespace hkim::plan {

using nlohmann::json;

void PlanGitOps(PlanBuilder& b) {
  const Profile& p = b.profile();
  BundlePlan& plan = b.plan();
  PlannedObject& k = plan.kustomization;
  k.template_name = "common/kustomization.yaml.mustache";
  k.api_version = "kustomize.config.k8s.io/v1beta1";
  k.kind = "Kustomization";
  k.file_name = "kustomization.yaml";
  json files = json::array();
  for (const PlannedObject& object : plan.objects) files.push_back(json{{"file", object.file_name}});
  k.context["resources"] = files;

  PlannedObject& app = plan.application;
  app.template_name = "common/application.yaml.mustache";
  app.api_version = "argoproj.io/v1alpha1";
  app.kind = "Application";
  app.name = p.cluster_name;
  app.namespace_name = p.gitops.argocd_namespace;
  app.file_name = "application.yaml";
  app.context["metadata"] = {{"name", app.name}, {"namespace", app.namespace_name}};
  app.context["project"] = p.gitops.project;
  app.context["repo_url"] = p.gitops.repo_url;
  app.context["path"] = p.gitops.path;
  app.context["revision"] = p.gitops.revision;
  app.context["server"] = p.gitops.destination_server;
  app.context["destination_namespace"] = p.gitops.destination_namespace;
  app.context["automated"] = p.gitops.automated_sync;
}

}  // namespace hkim::plan
