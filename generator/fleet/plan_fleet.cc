// Plan stage, fleet (fleet/plan_fleet.h): `_fleet/` for a set of bundles. The AppProjects are built
// from what the bundle plans hold, so that Argo CD refuses anything a bundle does not contain.

#include "fleet/plan_fleet.h"

#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "model/operator_catalog.h"
#include "model/operators.h"
#include "plan/layers.h"
#include "support/object_id.h"
#include "support/parallel.h"

namespace hkim {
namespace {

using nlohmann::json;
using GroupKind = std::pair<std::string, std::string>;

std::string PlatformProject(const std::string& cluster) { return cluster + "-platform"; }
std::string WorkloadProject(const std::string& cluster) { return cluster + "-workload"; }
std::string ChartsProject(const std::string& cluster) { return cluster + "-charts"; }

/// What one AppProject allows; sets keep the output sorted and free of repeats.
struct ProjectRules {
  std::string name;
  std::string description;
  std::set<std::string> repos;
  std::set<std::string> namespaces;  ///< on the project's one destination; "*" any
  bool has_destination_name = false;
  std::string destination;  ///< the cluster's Argo CD name or server
  std::set<GroupKind> cluster_kinds, namespaced_kinds;
};

json Kinds(const std::set<GroupKind>& kinds) {
  json list = json::array();
  for (const auto& [group, kind] : kinds) list.push_back({{"group", group}, {"kind", kind}});
  return list;
}

PlannedObject ProjectObject(const ProjectRules& rules, const FleetSettings& settings) {
  PlannedObject object;
  object.template_name = "fleet/appproject.yaml.mustache";
  object.api_version = "argoproj.io/v1alpha1";
  object.kind = "AppProject";
  object.name = rules.name;
  object.namespace_name = settings.argocd_namespace;
  object.file_name = "appprojects/" + rules.name + ".yaml";
  json& c = object.context;
  c["metadata"] = {{"name", rules.name},
                   {"namespace", settings.argocd_namespace},
                   {"part_of", settings.name}};
  c["description"] = rules.description;
  c["source_repos"] = json::array();
  for (const std::string& repo : rules.repos) c["source_repos"].push_back(repo);
  c["destinations"] = json::array();
  for (const std::string& ns : rules.namespaces) {
    c["destinations"].push_back({{"namespace", ns},
                                 {"has_name", rules.has_destination_name},
                                 {"destination", rules.destination}});
  }
  c["has_cluster_kinds"] = !rules.cluster_kinds.empty();
  c["cluster_kinds"] = Kinds(rules.cluster_kinds);
  c["has_namespaced_kinds"] = !rules.namespaced_kinds.empty();
  c["namespaced_kinds"] = Kinds(rules.namespaced_kinds);
  return object;
}

ProjectRules ClusterRules(const Profile& p, const std::string& name, const std::string& what) {
  ProjectRules rules;
  rules.name = name;
  rules.description = "hkimgen fleet " + what + " of " + p.cluster_name +
                      ": only what the bundle holds";
  rules.has_destination_name = !p.gitops.destination_name.empty();
  rules.destination =
      rules.has_destination_name ? p.gitops.destination_name : p.gitops.destination_server;
  return rules;
}

/// The operator charts a bundle installs through Applications (OKE), with their repositories
/// and namespaces: the planned Applications that carry a chart for an operator (its source).
std::vector<const OperatorCommon*> Charts(const Profile& p, const BundlePlan& plan) {
  std::vector<const OperatorCommon*> charts;
  if (!p.operators) return charts;
  for (const OperatorFacts& facts : OperatorCatalog()) {
    const OperatorCommon* op = facts.in(*p.operators);
    if (!op) continue;
    for (const PlannedObject& object : plan.objects) {
      if (object.kind == "Application" && object.chart && object.source_pointer == op->pointer) {
        charts.push_back(op);
        break;
      }
    }
  }
  return charts;
}

/// The cluster's projects: one per layer (from the objects of that layer) and, when it installs
/// charts, one for them.
std::vector<ProjectRules> MemberProjects(const Profile& p, const BundlePlan& plan) {
  ProjectRules platform = ClusterRules(p, PlatformProject(p.cluster_name), "platform layer");
  ProjectRules workload = ClusterRules(p, WorkloadProject(p.cluster_name), "workload layer");
  platform.repos.insert(p.gitops.repo_url);
  workload.repos.insert(p.gitops.repo_url);
  // The platform Application names no destination namespace (its objects carry their own), and
  // Argo CD matches that empty namespace against the project's destinations as it is
  // (AppProject.isDestinationMatched), so the platform project lists "" too.
  platform.namespaces.insert("");
  workload.namespaces.insert(p.gitops.destination_namespace);
  for (const PlannedObject& object : plan.objects) {
    // Chart Applications (apps/) are created by the parent, under the fleet's parent project.
    if (object.layer == kAppsLayer) continue;
    ProjectRules& rules = object.layer == kWorkloadLayer ? workload : platform;
    const GroupKind kind{std::string(ApiGroupOf(object.api_version)), object.kind};
    if (object.namespace_name.empty()) {
      rules.cluster_kinds.insert(kind);
    } else {
      rules.namespaced_kinds.insert(kind);
      rules.namespaces.insert(object.namespace_name);
    }
  }
  std::vector<ProjectRules> projects = {platform, workload};
  const std::vector<const OperatorCommon*> charts = Charts(p, plan);
  if (!charts.empty()) {
    ProjectRules rules = ClusterRules(p, ChartsProject(p.cluster_name), "operator charts");
    rules.description = "hkimgen fleet operator charts of " + p.cluster_name +
                        ": their repositories and namespaces; any kind (a chart's contents are "
                        "the chart's)";
    for (const OperatorCommon* op : charts) {
      rules.repos.insert(op->repo_url);
      rules.namespaces.insert(op->namespace_name);
    }
    rules.cluster_kinds.insert({"*", "*"});
    rules.namespaced_kinds.insert({"*", "*"});
    projects.push_back(rules);
  }
  return projects;
}

/// The project of the per-cluster parent Applications: they only create the layer Applications
/// (apps/) in Argo CD's namespace on Argo CD's own cluster.
ProjectRules ParentRules(const std::vector<FleetMemberPlan>& members,
                         const FleetSettings& settings) {
  ProjectRules rules;
  rules.name = settings.name;
  rules.description = "hkimgen fleet " + settings.name +
                      ": each cluster's parent Application, which only creates its layer "
                      "Applications";
  for (const FleetMemberPlan& member : members) rules.repos.insert(member.profile->gitops.repo_url);
  rules.namespaces.insert(settings.argocd_namespace);
  rules.destination = kArgoCdOwnCluster;
  rules.namespaced_kinds.insert({"argoproj.io", "Application"});
  return rules;
}

json ApplicationSetContext(const std::vector<FleetMemberPlan>& members,
                           const FleetSettings& settings) {
  json c;
  c["metadata"] = {{"name", settings.name},
                   {"namespace", settings.argocd_namespace},
                   {"part_of", settings.name}};
  c["elements"] = json::array();
  for (const FleetMemberPlan& member : members) {
    const Profile& p = *member.profile;
    c["elements"].push_back({{"cluster", p.cluster_name},
                             {"path", settings.repo_path + "/" + p.cluster_name + "/apps"},
                             // as the member's application.yaml (plan/layers.cc)
                             {"automated", p.gitops.self_sync == SelfSync::kEverything},
                             {"retry_limit", p.gitops.retry_limit}});
  }
  const GitOps& first = members.front().profile->gitops;
  c["project"] = settings.name;
  c["repo_url"] = first.repo_url;
  c["revision"] = first.revision;
  c["server"] = kArgoCdOwnCluster;
  // Argo CD's Go templates, printed by the template as quoted scalars.
  c["app_name"] = "{{ .cluster }}";
  c["app_path"] = "{{ .path }}";
  c["template_patch"] =
      "spec:\n"
      "  syncPolicy:\n"
      "{{- if .automated }}\n"
      "    automated:\n"
      "      prune: true\n"
      "      selfHeal: true\n"
      "{{- end }}\n"
      "    retry:\n"
      "      limit: {{ .retryLimit }}\n"
      "      backoff:\n"
      "        duration: 10s\n"
      "        factor: 2\n"
      "        maxDuration: 5m\n"
      "    syncOptions:\n"
      "    - ServerSideApply=true\n";
  return c;
}

PlannedObject ApplicationSetObject(const std::vector<FleetMemberPlan>& members,
                                   const FleetSettings& settings) {
  PlannedObject object;
  object.template_name = "fleet/applicationset.yaml.mustache";
  object.api_version = "argoproj.io/v1alpha1";
  object.kind = "ApplicationSet";
  object.name = settings.name;
  object.namespace_name = settings.argocd_namespace;
  object.file_name = "applicationset.yaml";
  object.context = ApplicationSetContext(members, settings);
  return object;
}

}  // namespace

void AdjustForFleet(const FleetSettings& settings, Profile& p) {
  p.gitops.path = settings.repo_path + "/" + p.cluster_name;
  // On the central Argo CD's own cluster the controller's account follows the fleet's
  // namespace when the profile left it at its default: upstream Argo CD's
  // argocd-application-controller in `argocd` (its install manifests), else the OpenShift GitOps
  // instance named like its namespace. A remote member keeps argocd-manager in kube-system
  // (model/gitops.cc): Argo CD writes there with the credentials `argocd cluster add` made.
  const std::string default_controller = p.gitops.argocd_namespace + "-argocd-application-controller";
  if (p.gitops.controller_service_account == default_controller &&
      p.gitops.controller_namespace == p.gitops.argocd_namespace) {
    p.gitops.controller_service_account =
        settings.argocd_namespace == "argocd"
            ? "argocd-application-controller"
            : settings.argocd_namespace + "-argocd-application-controller";
    p.gitops.controller_namespace = settings.argocd_namespace;
  }
  p.gitops.argocd_namespace = settings.argocd_namespace;
  p.gitops.fleet_applicationset = settings.name;
  p.gitops.project = settings.name;
  p.gitops.platform_project = PlatformProject(p.cluster_name);
  p.gitops.workload_project = WorkloadProject(p.cluster_name);
  p.gitops.charts_project = ChartsProject(p.cluster_name);
}

BundlePlan PlanFleet(const std::vector<FleetMemberPlan>& members, const FleetSettings& settings,
                     unsigned jobs) {
  BundlePlan plan;
  plan.bundle_name = settings.name;
  if (members.empty()) return plan;
  // Each member's projects on `jobs` threads, each into its own slot (the order is the members').
  std::vector<std::vector<PlannedObject>> member_projects(members.size());
  ParallelFor(members.size(), ThreadsForSmallTasks(members.size(), jobs), [&](size_t i, unsigned) {
    for (const ProjectRules& rules : MemberProjects(*members[i].profile, *members[i].plan)) {
      member_projects[i].push_back(ProjectObject(rules, settings));
    }
  });
  plan.objects.push_back(ProjectObject(ParentRules(members, settings), settings));
  for (std::vector<PlannedObject>& objects : member_projects) {
    for (PlannedObject& object : objects) plan.objects.push_back(std::move(object));
  }
  plan.objects.push_back(ApplicationSetObject(members, settings));

  PlannedObject& k = plan.kustomization;
  k.template_name = "common/kustomization.yaml.mustache";
  k.api_version = "kustomize.config.k8s.io/v1beta1";
  k.kind = "Kustomization";
  k.file_name = "kustomization.yaml";
  k.context["resources"] = json::array();
  for (const PlannedObject& object : plan.objects) {
    k.context["resources"].push_back({{"file", object.file_name}});
  }

  // The one Application a person creates: it syncs _fleet/ (projects and ApplicationSet) into
  // the central Argo CD, which then creates each cluster's parent Application.
  const GitOps& first = members.front().profile->gitops;
  PlannedObject& app = plan.application;
  app.template_name = "fleet/application.yaml.mustache";
  app.api_version = "argoproj.io/v1alpha1";
  app.kind = "Application";
  app.name = settings.name;
  app.namespace_name = settings.argocd_namespace;
  app.file_name = "application.yaml";
  app.context = {{"metadata", {{"name", app.name}, {"namespace", app.namespace_name}}},
                 {"project", "default"},
                 {"repo_url", first.repo_url},
                 {"path", settings.repo_path + "/" + kFleetFolder},
                 {"revision", first.revision},
                 {"server", kArgoCdOwnCluster},
                 {"destination_namespace", settings.argocd_namespace},
                 {"retry_limit", first.retry_limit}};
  return plan;
}

}  // namespace hkim
