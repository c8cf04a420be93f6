// Plan stage, Argo CD bootstrap: a ClusterRole + ClusterRoleBinding that let the OpenShift
// GitOps application controller apply exactly the kinds this bundle holds. The rules come from
// the planned objects, so a kind another stage adds is covered without touching this file (its
// plural must be in Plurals() below; plan_test checks that every shipped kind is).

#include "plan/argocd_bootstrap.h"

#include <cctype>
#include <map>
#include <set>
#include <utility>

namespace hkim {
namespace {

using nlohmann::json;

// Kind -> resource. Irregular plurals (ClusterPolicy -> clusterpolicies,
// NetworkAttachmentDefinition -> network-attachment-definitions) make a table necessary.
const std::map<std::string, std::string>& Plurals() {
  static const std::map<std::string, std::string> plurals = {
      {"Application", "applications"},
      {"ClusterPolicy", "clusterpolicies"},
      {"ClusterQueue", "clusterqueues"},
      {"ClusterRole", "clusterroles"},
      {"ClusterRoleBinding", "clusterrolebindings"},
      {"ConfigMap", "configmaps"},
      {"CronJob", "cronjobs"},
      {"DaemonSet", "daemonsets"},
      {"IPPool", "ippools"},
      {"Job", "jobs"},
      {"LocalQueue", "localqueues"},
      {"MachineConfig", "machineconfigs"},
      {"MachineConfigPool", "machineconfigpools"},
      {"Namespace", "namespaces"},
      {"NetworkAttachmentDefinition", "network-attachment-definitions"},
      {"NicClusterPolicy", "nicclusterpolicies"},
      {"NodeFeatureDiscovery", "nodefeaturediscoveries"},
      {"OperatorGroup", "operatorgroups"},
      {"PriorityClass", "priorityclasses"},
      {"ResourceFlavor", "resourceflavors"},
      {"Role", "roles"},
      {"RoleBinding", "rolebindings"},
      {"SecurityContextConstraints", "securitycontextconstraints"},
      {"Service", "services"},
      {"ServiceAccount", "serviceaccounts"},
      {"SriovNetworkNodePolicy", "sriovnetworknodepolicies"},
      {"SriovNetworkPoolConfig", "sriovnetworkpoolconfigs"},
      {"SriovOperatorConfig", "sriovoperatorconfigs"},
      {"StatefulSet", "statefulsets"},
      {"Subscription", "subscriptions"},
      {"Topology", "topologies"},
      {"ValidatingAdmissionPolicy", "validatingadmissionpolicies"},
      {"ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings"},
  };
  return plurals;
}

json Values(const std::set<std::string>& items) {
  json out = json::array();
  for (const std::string& item : items) out.push_back(json{{"value", item}});
  return out;
}

json Rule(const std::string& group, const std::set<std::string>& resources,
          const std::set<std::string>& verbs, const std::set<std::string>& names = {}) {
  return json{{"api_groups", Values({group})},
              {"resources", Values(resources)},
              {"verbs", Values(verbs)},
              {"has_resource_names", !names.empty()},
              {"resource_names", Values(names)}};
}

// Creating a Role or ClusterRole needs every permission it grants (the RBAC escalation check):
// the rules the bundle's own roles carry in their context (`scc` of the SCC `use` Roles,
// `rules` of the health ClusterRole).
void AddGrantedRules(const std::vector<PlannedObject>& objects, json& rules) {
  std::set<std::string> sccs;
  std::set<std::string> seen;
  for (const PlannedObject& object : objects) {
    if (object.kind != "Role" && object.kind != "ClusterRole") continue;
    if (object.context.contains("scc")) sccs.insert(object.context["scc"].get<std::string>());
    if (!object.context.contains("rules")) continue;
    for (const json& rule : object.context["rules"])
      if (seen.insert(rule.dump()).second) rules.push_back(rule);
  }
  if (!sccs.empty())
    rules.push_back(Rule("security.openshift.io", {"securitycontextconstraints"}, {"use"}, sccs));
}

}  // namespace

std::string ResourcePlural(const std::string& kind, bool* known) {
  auto it = Plurals().find(kind);
  if (known) *known = it != Plurals().end();
  if (it != Plurals().end()) return it->second;
  std::string lower;
  for (char c : kind) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower + "s";
}

void PlanArgoCdBootstrap(const Profile& p, BundlePlan& plan) {
  if (!p.IsOpenShift()) return;
  std::map<std::string, std::set<std::string>> resources;  // API group -> resources, sorted
  for (const PlannedObject& object : plan.objects) {
    const size_t slash = object.api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : object.api_version.substr(0, slash);
    resources[group].insert(ResourcePlural(object.kind, nullptr));
  }
  json rules = json::array();
  for (const auto& [group, names] : resources)
    rules.push_back(
        Rule(group, names, {"create", "delete", "get", "list", "patch", "update", "watch"}));
  AddGrantedRules(plan.objects, rules);

  const std::string name = "hkimgen:" + p.cluster_name + ":argocd-apply";
  const json metadata = {{"name", name}, {"part_of", p.cluster_name}};
  PlannedObject role;
  role.template_name = "bootstrap/clusterrole.yaml.mustache";
  role.api_version = "rbac.authorization.k8s.io/v1";
  role.kind = "ClusterRole";
  role.name = name;
  role.file_name = "bootstrap/clusterrole-argocd-apply.yaml";
  role.context = {{"metadata", metadata}, {"rules", rules}};
  PlannedObject binding = role;
  binding.template_name = "bootstrap/clusterrolebinding.yaml.mustache";
  binding.kind = "ClusterRoleBinding";
  binding.file_name = "bootstrap/clusterrolebinding-argocd-apply.yaml";
  binding.context = {{"metadata", metadata},
                     {"role", name},
                     {"service_account", p.gitops.controller_service_account},
                     {"service_account_namespace", p.gitops.controller_namespace}};
  plan.bootstrap = {std::move(role), std::move(binding)};
}

}  // namespace hkim
