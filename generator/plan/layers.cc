// Plan stage, bundle layout (plan/layers.h). The split follows ownership and what a sync does:
// the platform layer holds what a platform team owns (cluster-scoped objects, operators, objects
// in operator namespaces), the nodes layer what of it can drain, reboot or roll a driver
// (plan/disruption.h decides), the workload layer what an ML team owns (objects in the profile's
// namespaces). Each layer is an Argo CD Application, all children of one parent (app of apps);
// gitops.self_sync says which of them sync themselves, the others wait for a person.

#include "plan/layers.h"

#include <algorithm>

#include "plan/disruption.h"

namespace hkim {
namespace {

using nlohmann::json;

// The layers that hold objects, platform first (its Application syncs in an earlier wave).
std::vector<std::string> Layers(const BundlePlan& plan) {
  std::vector<std::string> layers;
  for (const char* layer : {kPlatformLayer, kNodesLayer, kHealthLayer, kWorkloadLayer}) {
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

SyncScope ScopeOfLayer(const std::string& layer) {
  if (layer == kWorkloadLayer) return SyncScope::kNamespaces;
  return layer == kNodesLayer ? SyncScope::kNodes : SyncScope::kPlatform;
}

SyncScope ScopeOf(std::string_view kind, std::string_view template_name) {
  return TouchesNodes(WorstDisruptionOf(kind, template_name)) ? SyncScope::kNodes
                                                              : SyncScope::kPlatform;
}

bool SyncsItself(const Profile& p, SyncScope scope) {
  switch (scope) {
    case SyncScope::kNamespaces:
      return p.gitops.self_sync >= SelfSync::kNamespaces;
    case SyncScope::kPlatform:
      return p.gitops.self_sync >= SelfSync::kExceptNodeDisruption;
    case SyncScope::kNodes:
      return p.gitops.self_sync >= SelfSync::kEverything;
  }
  return false;
}

bool ParentSyncsItself(const Profile& p) { return p.gitops.self_sync == SelfSync::kEverything; }

void SyncPolicyContext(const Profile& p, SyncScope scope, json& context) {
  context["self_sync"] = SyncsItself(p, scope);
  context["prune"] = p.gitops.prune;
}

void DestinationContext(const Profile& p, json& context) {
  context["has_destination_name"] = !p.gitops.destination_name.empty();
  context["destination_name"] = p.gitops.destination_name;
  context["server"] = p.gitops.destination_server;
}

namespace {

PlannedObject LayerApplication(const Profile& p, const std::string& layer, int wave) {
  const bool workload = layer == kWorkloadLayer;
  PlannedObject app;
  app.template_name = "common/application-layer.yaml.mustache";
  app.api_version = "argoproj.io/v1alpha1";
  app.kind = "Application";
  app.name = p.cluster_name + "-" + layer;
  app.namespace_name = p.gitops.argocd_namespace;
  app.file_name = std::string(kAppsLayer) + "/" + layer + ".yaml";
  app.sync_wave = wave;
  app.context["metadata"] = {{"name", app.name},
                             {"namespace", app.namespace_name},
                             {"sync_wave", std::to_string(wave)},
                             {"part_of", p.cluster_name}};
  app.context["platform"] = layer == kPlatformLayer;
  app.context["nodes"] = layer == kNodesLayer;
  app.context["health"] = layer == kHealthLayer;
  app.context["workload"] = workload;
  app.context["project"] = workload ? p.gitops.workload_project : p.gitops.platform_project;
  app.context["repo_url"] = p.gitops.repo_url;
  app.context["path"] = Join(p.gitops.path, layer);
  app.context["revision"] = p.gitops.revision;
  DestinationContext(p, app.context);
  app.context["has_destination_namespace"] = workload;
  app.context["destination_namespace"] = p.gitops.destination_namespace;
  SyncPolicyContext(p, ScopeOfLayer(layer), app.context);
  RetryContext(p, app.context);
  return app;
}

}  // namespace

void PlanLayers(const Profile& p, BundlePlan& plan) {
  const std::vector<std::string> layers = Layers(plan);
  json layer_dirs = json::array();
  // The layers sync after every other Application of apps/ (the OKE charts): the parent's waves
  // are the only order between Applications, and the layers' objects need what the charts bring
  // (their CRDs, the operators that act on them; plan/sync_order.h).
  int wave = 0;
  for (const PlannedObject& object : plan.objects)
    if (object.layer == kAppsLayer) wave = std::max(wave, object.sync_wave + 1);
  for (const std::string& layer : layers) {
    layer_dirs.push_back(json{{"file", layer}});
    json files = json::array();
    const std::string prefix = layer + "/";
    for (const PlannedObject& object : plan.objects) {
      if (object.layer == layer) files.push_back(json{{"file", object.file_name.substr(prefix.size())}});
    }
    plan.layer_files.push_back(Kustomization(prefix + "kustomization.yaml", std::move(files)));
    plan.layer_files.push_back(LayerApplication(p, layer, wave++));
  }
  plan.kustomization = Kustomization("kustomization.yaml", std::move(layer_dirs));

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
  // The parent only writes Applications; it syncs itself when everything does (what the
  // deprecated automated_sync: true meant).
  app.context["automated"] = ParentSyncsItself(p);
  RetryContext(p, app.context);
}

}  // namespace hkim
