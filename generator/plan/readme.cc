// Plan stage, the bundle's README.md: for the people who apply the bundle. What it
// installs, wave by wave; the one manual step (bootstrap/ on OpenShift); the preconditions with
// the commands that check them; how to watch the sync and read the fabric check. Markdown, not
// YAML: the template prints values raw ({{{x}}}), and the file is in no kustomization.

#include "plan/readme.h"

#include <map>
#include <vector>

#include "model/operator_catalog.h"
#include "model/wrapper_image.h"
#include "plan/bundle_graph.h"
#include "plan/disruption.h"
#include "plan/health.h"
#include "plan/layers.h"

namespace hkim {
namespace {

/// Whether operator `key`'s node agents may set GPUDirect RDMA up (its definition says).
bool GpuDirectProvider(const std::string& key) {
  const OperatorFacts* facts = FindOperatorFacts(key);
  return facts && facts->gpudirect_provider;
}

using nlohmann::json;

/// The heading of a sync wave; its examples are the platform's (OLM and SCCs are OpenShift's,
/// chart Applications and nv-ipam's IPPools OKE's).
const char* WaveTitle(int wave, bool openshift) {
  switch (wave) {
    case kWaveOperators:
      return openshift ? "operators (OLM Subscriptions)" : "operators (chart Applications)";
    case kWaveOperatorConfig: return "the operators' configuration CRs";
    case kWaveNodePolicies: return "node configuration (VFs, CNI plugins, kernel settings)";
    case kWaveClusterAccess:
      return openshift ? "cluster access (SCC, workload Namespaces)"
                       : "address pools and workload Namespaces (IPPool, Namespace)";
    case kWaveNamespaceAccess: return "identities and networks per namespace (ServiceAccount, RBAC, NADs)";
    case kWaveConfig: return "configuration (NCCL environment, topology)";
    case kWaveService: return "Services";
    case kWaveWorkload: return "the workload";
  }
  return "other objects";
}

std::string Qualified(const PlannedObject& o) {
  return (o.namespace_name.empty() ? "" : o.namespace_name + "/") + o.name;
}

// The Application that syncs an object: its layer's, or its own (an OKE chart in apps/).
std::string ApplicationOf(const Profile& p, const PlannedObject& o) {
  return o.layer == kAppsLayer ? o.name : p.cluster_name + "-" + o.layer;
}

// "What a sync does to your nodes and jobs": each Application and whether it syncs itself, then
// every object whose change drains, reboots, resets VFs, rolls a driver or restarts the job,
// with the table's rows (plan/disruption.h).
void SyncContext(const Profile& p, const BundlePlan& plan, const std::string& cli, json& c) {
  c["self_sync"] = ToString(p.gitops.self_sync);
  // (sync_applications: PlanReadme's section "the bundle at a glance and its sync steps")

  // One entry per kind, template and Application, in plan order: the StatefulSets of a thousand
  // namespaces are one entry that lists them.
  json objects = json::array();
  std::map<std::string, size_t> entry_of;
  std::vector<std::vector<const PlannedObject*>> members;
  for (const PlannedObject& o : plan.objects) {
    const std::string app = ApplicationOf(p, o);
    const std::string key = o.kind + '\n' + o.template_name + '\n' + app;
    if (auto it = entry_of.find(key); it != entry_of.end()) {
      members[it->second].push_back(&o);
      continue;
    }
    json effects = json::array();
    for (const DisruptionRule* rule : DisruptionRulesOf(o.kind, o.template_name)) {
      if (rule->effect == Disruption::kNone || !TemplateMayWrite(*rule, o.template_name)) continue;
      effects.push_back(json{{"effect", ToString(rule->effect)},
                             {"field", rule->field.empty() ? "any change"
                                                           : "a change of " + std::string(rule->field)},
                             {"has_condition", !rule->inert_unless.empty()},
                             {"condition", std::string(rule->inert_unless)},
                             {"what", std::string(rule->what)},
                             {"nodes", std::string(rule->nodes)},
                             {"pace", std::string(rule->pace)},
                             {"watch", WatchCommand(*rule, cli, o.namespace_name, o.name)},
                             {"per_object", rule->watch.find("{name}") != std::string::npos}});
    }
    if (effects.empty()) continue;
    const bool self = o.layer == kAppsLayer ? SyncsItself(p, ScopeOf(o.kind, o.template_name))
                                            : SyncsItself(p, ScopeOfLayer(o.layer));
    entry_of[key] = objects.size();
    members.push_back({&o});
    objects.push_back(json{{"kind", o.kind},
                           {"application", app},
                           {"self_sync", self},
                           {"effects", effects}});
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    const std::vector<const PlannedObject*>& of = members[i];
    json& entry = objects[i];
    const std::string kind = entry["kind"];
    entry["several"] = of.size() > 1;
    entry["title"] = of.size() > 1 ? kind + " (" + std::to_string(of.size()) + ")"
                                   : kind + " `" + Qualified(*of[0]) + "`";
    std::string list;
    for (const PlannedObject* o : of) {
      if (!list.empty()) list += ", ";
      list += of.size() > 1 ? "`" + Qualified(*o) + "` (`" + o->file_name + "`)"
                            : "`" + o->file_name + "`";
    }
    entry["objects"] = list;
  }
  c["has_disruptive_objects"] = !objects.empty();
  c["disruptive_objects"] = std::move(objects);
  c["wrapper_image"] = WrapperImageReference(p.wrapper);
  c["repo_url"] = p.gitops.repo_url;
  c["repo_path"] = p.gitops.path;
}

}  // namespace

void PlanReadme(const Profile& p, BundlePlan& plan) {
  PlannedObject& r = plan.readme;
  r.template_name = "bundle/README.md.mustache";
  r.kind = "README";
  r.file_name = "README.md";
  json& c = r.context;
  const bool openshift = p.IsOpenShift();
  const std::string cli = openshift ? "oc" : "kubectl";
  c["cluster"] = p.cluster_name;
  c["platform"] = ToString(p.platform);
  c["cli"] = cli;
  c["application"] = plan.application.name;
  c["argocd_namespace"] = p.gitops.argocd_namespace;

  std::map<int, json> by_wave;
  for (const PlannedObject& o : plan.objects) {
    json& wave = by_wave[o.sync_wave];
    if (wave.is_null()) wave = json::array();
    wave.push_back(json{{"kind", o.kind},
                        {"name", Qualified(o)},
                        {"file", o.file_name}});
  }
  json waves = json::array();
  // Moved, not copied: for a thousand namespaces these lists are the largest context of the
  // plan (tens of thousands of entries), and each copy was a few MB of peak memory.
  for (auto& [wave, objects] : by_wave)
    waves.push_back(
        json{{"wave", wave}, {"title", WaveTitle(wave, openshift)}, {"objects", std::move(objects)}});
  c["waves"] = std::move(waves);

  c["has_bootstrap"] = !plan.bootstrap.empty();
  json bootstrap = json::array();
  for (const PlannedObject& o : plan.bootstrap) bootstrap.push_back(json{{"file", o.file_name}});
  c["bootstrap"] = bootstrap;
  c["controller"] = p.gitops.controller_namespace + "/" + p.gitops.controller_service_account;
  // What must exist before the first sync: the bundle where Argo CD reads it, the
  // wrapper image where the nodes pull it; in a fleet, who creates application.yaml.
  c["repo_url"] = p.gitops.repo_url;
  c["revision"] = p.gitops.revision;
  c["path"] = p.gitops.path;
  c["wrapper_image"] = WrapperImageReference(p.wrapper);
  c["in_fleet"] = !p.gitops.fleet_applicationset.empty();
  c["fleet_applicationset"] = p.gitops.fleet_applicationset;

  c["has_preconditions"] = !plan.preconditions.empty();
  json preconditions = json::array();
  for (const Precondition& pre : plan.preconditions)
    preconditions.push_back(
        json{{"kind", pre.kind}, {"what", pre.what}, {"why", pre.why}, {"check", pre.check}});
  c["preconditions"] = preconditions;

  // GPUDirect RDMA: what the workload relies on, who provides it, whether the check proves it.
  std::string gpudirect;
  for (const PlannedObject& o : plan.objects)
    for (const Need& need : o.needs)
      if (need.what.kind == CapabilityKind::kGpuDirect) gpudirect = need.what.name;
  c["has_gpudirect"] = !gpudirect.empty();
  c["gpudirect_mode"] = gpudirect == "any" ? "auto" : gpudirect;
  json providers = json::array();
  for (const PlannedObject& o : plan.objects)
    for (const Capability& provided : o.provides)
      if (provided.kind == CapabilityKind::kGpuDirect && CapabilityMatches(provided.kind, provided.name, gpudirect))
        providers.push_back(json{{"what", o.kind + " `" + (o.namespace_name.empty() ? "" : o.namespace_name + "/") +
                                              o.name + "` (" + provided.name + ")"}});
  for (const Precondition& pre : plan.preconditions)
    if (pre.kind == "host-driver" || pre.kind == "gpudirect" || (pre.kind == "operator" && GpuDirectProvider(pre.what)))
      providers.push_back(json{{"what", "precondition " + pre.kind + " `" + pre.what + "` (below)"}});
  c["gpudirect_providers"] = providers;
  const std::string transport = ResolvedTransport(p, p.fabric_health.gate.transport);
  c["check_proves_gpudirect"] = p.fabric_health.gate.mode != GateMode::kOff && transport == "NET/IB/GDRDMA";

  // The in-pod fabric check and the workload, per namespace.
  const bool check = p.fabric_health.gate.mode != GateMode::kOff;
  c["has_check"] = check;
  c["check_mode"] = ToString(p.fabric_health.gate.mode);
  c["check_fails"] = p.fabric_health.gate.mode == GateMode::kFail;
  c["assemble_timeout"] = p.fabric_health.gate.assemble_timeout_seconds;
  json namespaces = json::array();
  for (const std::string& ns : p.namespaces)
    namespaces.push_back(json{{"ns", ns}, {"workload", p.workload.name}});
  c["namespaces"] = std::move(namespaces);
  c["has_periodic"] = p.fabric_health.periodic.enabled;
  c["health_ns"] = HealthNamespace(p);
  const FabricHealth& fabric = p.fabric_health;
  c["has_node_condition"] = fabric.periodic.enabled && fabric.node_condition.enabled;
  c["has_link_agent"] = fabric.node_condition.enabled && fabric.link_counters.enabled;
  c["link_agent"] = LinkAgentName(p);
  c["link_interval"] = std::to_string(fabric.link_counters.interval_seconds);
  c["heartbeat"] = std::to_string(fabric.node_condition.heartbeat_seconds);
  c["placement_timeout"] = "300";
  c["health_cronjob"] = HealthCronJobName(p);
  c["several_namespaces"] = p.namespaces.size() > 1;
  c["health_application"] = p.cluster_name + "-" + kHealthLayer;
  // OKE: the VF DaemonSet's declared step (templates/operators-oke/daemonset-vf-config...).
  c["has_vf_config"] = false;
  for (const PlannedObject& o : plan.objects) {
    if (o.template_name != "operators-oke/daemonset-vf-config.yaml.mustache") continue;
    c["has_vf_config"] = true;
    c["vf_config_namespace"] = o.namespace_name;
    c["vf_config_app"] = o.name;
    c["vf_config_pending_label"] = o.context.value("pending_label", "");
  }
  for (const PlannedObject& o : plan.objects)
    if (o.template_name == "operators-oke/validatingadmissionpolicy-vf-config.yaml.mustache")
      c["vf_config_fence"] = o.name;
  c["workload_wave"] = static_cast<int>(kWaveWorkload);
  SyncContext(p, plan, cli, c);

  // --- The bundle at a glance and its sync steps (plan/bundle_graph.h): the Mermaid flowchart,
  // and every Application in the order it syncs, each with who syncs it. ---
  const BundleGraph graph = GraphOfBundle(p, plan);
  BundleGraphContext(graph, c);
  json apps = json::array();
  for (const GraphApplication& app : graph.applications)
    apps.push_back(json{{"name", app.name}, {"layer", app.layer}, {"self_sync", app.self_sync}});
  c["sync_applications"] = std::move(apps);
  // --- end of the bundle at a glance ---
}

}  // namespace hkim
