// Plan stage, bundle layout (plan/layers.h). The split follows ownership: the platform layer
// holds what a platform team owns (cluster-scoped objects, operators, node policies, objects in
// operator namespaces), the workload layer what an ML team owns (objects in the profile's
// namespaces). Each layer is an Argo CD Application in its own project, both children of one
// parent (app of apps), so one sync of the parent brings a fresh cluster up.

#include "plan/layers.h"

namespace hkim {
namespace {

using nlohmann::json;

// The layers that hold objects, platform first (its Application syncs in an earlier wave).
std::vector<std::string> Layers(const BundlePlan& plan) {
  std::vector<std::string> layers;
  for (const char* layer : {kPlatformLayer, kWorkloadLayer}) {
    for (const PlannedObject& object : plan.objects) {
      if (object.layer == layer) {
        layers.push_back(layer);
        break;
      }
    }
  }
  return layers;
}

PlannedObject Kustomization(const std::string& file_name, json resources) {
  PlannedObject k;
  k.template_name = "common/kustomization.yaml.mustache";
  k.api_version = "kustomize.config.k8s.io/v1beta1";
  k.kind = "Kustomization";
  k.file_name = file_name;
  k.context["resources"] = std::move(resources);
  return k;
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

// Sync retry of every Application: a fresh cluster's first sync fails while operators install
// and nodes reboot; backoff 10s doubling up to 5m, profile's limit.
void RetryContext(const Profile& p, json& context) {
  context["retry_limit"] = p.gitops.retry_limit;
}

}  // namespace

void DestinationContext(const Profile& p, json& context) {
  context["has_destination_name"] = !p.gitops.destination_name.empty();
  context["destination_name"] = p.gitops.destination_name;
  context["server"] = p.gitops.destination_server;
}

namespace {

PlannedObject LayerApplication(const Profile& p, const std::string& layer, int wave) {
  const bool platform = layer == kPlatformLayer;
  PlannedObject app;
  app.template_name = "common/application-layer.yaml.mustache";
  app.api_version = "argoproj.io/v1alpha1";
  app.kind = "Application";
  app.name = p.cluster_name + "-" + layer;
  app.namespace_name = p.gitops.argocd_namespace;
  app.file_name = std::string(kAppsLayer) + "/" + layer + ".yaml";
  app.context["metadata"] = {{"name", app.name},
                             {"namespace", app.namespace_name},
                             {"sync_wave", std::to_string(wave)},
                             {"part_of", p.cluster_name}};
  app.context["platform"] = platform;
  app.context["project"] = platform ? p.gitops.platform_project : p.gitops.workload_project;
  app.context["repo_url"] = p.gitops.repo_url;
  app.context["path"] = Join(p.gitops.path, layer);
  app.context["revision"] = p.gitops.revision;
  DestinationContext(p, app.context);
  app.context["has_destination_namespace"] = !platform;
  app.context["destination_namespace"] = p.gitops.destination_namespace;
  app.context["prune"] = p.gitops.automated_sync;
  RetryContext(p, app.context);
  return app;
}

}  // namespace

void PlanLayers(const Profile& p, BundlePlan& plan) {
  const std::vector<std::string> layers = Layers(plan);
  json layer_dirs = json::array();
  int wave = 0;
  for (const std::string& layer : layers) {
    layer_dirs.push_back(json{{"file", layer}});
    json files = json::array();
    const std::string prefix = layer + "/";
    for (const PlannedObject& object : plan.objects) {
      if (object.layer == layer) files.push_back(json{{"file", object.file_name.substr(prefix.size())}});
    }
    plan.layer_files.push_back(Kustomization(prefix + "kustomization.yaml", files));
    plan.layer_files.push_back(LayerApplication(p, layer, wave++));
  }
  plan.kustomization = Kustomization("kustomization.yaml", layer_dirs);

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
  app.context["path"] = Join(p.gitops.path, kAppsLayer);
  app.context["revision"] = p.gitops.revision;
  // The parent creates the layer Applications in Argo CD's namespace: on Argo CD's own cluster,
  // whichever cluster the layers deploy to.
  app.context["server"] = kArgoCdOwnCluster;
  app.context["destination_namespace"] = p.gitops.argocd_namespace;
  app.context["automated"] = p.gitops.automated_sync;
  RetryContext(p, app.context);
}

}  // namespace hkim
