#include "fleet/cluster_sharing.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "layering/layering.h"
#include "lint/lint.h"
#include "load/report_at.h"
#include "plan/closure.h"
#include "plan/describe.h"
#include "plan/plan.h"
#include "support/ipv4_network.h"
#include "support/join.h"
#include "support/object_id.h"

namespace hkim {
namespace {

constexpr const char* kObjectRule = "lint.shared-cluster-object";
constexpr const char* kPlatformRule = "lint.shared-destination-platform";
constexpr const char* kDeviceRule = "lint.shared-device-ids";
constexpr const char* kSubnetRule = "lint.shared-subnet-overlap";
constexpr const char* kSettingsRule = "lint.shared-operator-settings";

/// One object (or operator chart) a profile's bundle puts into the cluster.
struct Emitted {
  ObjectId identity;        ///< what two Applications would both track
  std::string description;  ///< for messages: "Namespace gpu-training"
  std::string pointer;      ///< the profile value that produced the name
};

/// The Argo CD destination the bundle's Applications sync to: its name when set, else the server.
std::string Destination(const Profile& p) {
  return p.gitops.destination_name.empty() ? p.gitops.destination_server
                                           : "name " + p.gitops.destination_name;
}

struct NamedOperator {
  const char* key;
  const OperatorCommon* op;
};

std::vector<NamedOperator> ListOperators(const Profile& p) {
  std::vector<NamedOperator> list;
  if (!p.operators) return list;
  for (const OperatorFacts& facts : OperatorCatalog())
    if (const OperatorCommon* op = OperatorByKey(*p.operators, facts.key))
      list.push_back({facts.key.c_str(), op});
  return list;
}

/// The profile value whose change gives `o` another identity (or, for the cluster-wide
/// operator objects, the `install` that hands them to another profile).
std::string SourcePointer(const Profile& p, const PlannedObject& o) {
  if (const OperatorFacts* facts = OperatorOfSingletonKind(o.kind)) {
    return facts->InstallPointer();
  }
  for (size_t i = 0; i < p.network.rails.size(); ++i) {
    const Rail& rail = p.network.rails[i];
    if (o.kind == "IPPool" && rail.ipam.pool && rail.ipam.pool->name == o.name &&
        rail.ipam.pool->namespace_name == o.namespace_name) {
      return rail.pointer + "/ipam/pool/name";
    }
    if (o.kind == "NetworkAttachmentDefinition" && rail.nad_name == o.name) {
      return rail.pointer + "/nad_name";
    }
  }
  const std::string& ns = o.kind == "Namespace" ? o.name : o.namespace_name;
  for (size_t i = 0; i < p.namespaces.size(); ++i) {
    if (p.namespaces[i] == ns) return "/namespaces/" + std::to_string(i);
  }
  for (const NamedOperator& named : ListOperators(p)) {
    if (!ns.empty() && named.op->namespace_name == ns) return named.op->pointer + "/install";
  }
  return "/cluster/name";
}

std::vector<Emitted> EmittedObjects(const Profile& p, const BundlePlan& plan) {
  std::vector<const PlannedObject*> all;
  for (const PlannedObject& o : plan.objects) all.push_back(&o);
  for (const PlannedObject& o : plan.layer_files) all.push_back(&o);
  for (const PlannedObject& o : plan.bootstrap) all.push_back(&o);
  all.push_back(&plan.application);
  std::vector<Emitted> out;
  for (const PlannedObject* o : all) {
    if (o->name.empty() || o->kind == "Kustomization") continue;
    out.push_back({o->id(), DescribeObject(*o), SourcePointer(p, *o)});
    // Two Applications installing one chart fight over its release (and its cluster-wide
    // CRDs, ClusterRoles, operator Deployment) even when the Applications' names differ.
    if (o->kind == "Application" && o->context.contains("chart")) {
      const std::string chart = o->context["chart"].get<std::string>();
      std::string pointer = "/operators";
      for (const NamedOperator& named : ListOperators(p)) {
        if (named.op->chart == chart) pointer = named.op->pointer + "/install";
      }
      // The chart's release, tracked like an object ("Helm chart" is no API kind: it never
      // meets a real object).
      out.push_back({ObjectId{"", "Helm chart", "", chart},
                     "the Helm chart " + chart + " (Application " + o->name + ")", pointer});
    }
  }
  return out;
}

std::string WhereIs(const LoadedProfile& loaded, const std::string& pointer) {
  SourceLocation at = loaded.locations.Find(pointer);
  if (at.file.empty()) at.file = loaded.path;
  if (!at.known()) return at.file;
  return at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

void Report(const ClusterMember& at, const std::string& rule, const std::string& pointer,
            std::string message, std::string fix, DiagnosticSink& sink,
            Severity severity = Severity::kError) {
  ReportAt(*at.loaded, pointer, severity, rule, std::move(message), std::move(fix), sink);
}

bool EndsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

/// What to change at `pointer` so the two profiles stop fighting.
std::string FixFor(const Profile& p, const std::string& pointer) {
  const std::string field = PointerToDotted(pointer);
  std::string fix;
  if (pointer.rfind("/operators/", 0) == 0 && EndsWith(pointer, "/install")) {
    fix = "let one profile of this cluster own the cluster-wide platform: keep " + field +
          ": managed there and set " + field +
          ": shared in the others (they then render neither the operator's install nor its "
          "cluster-wide CR)";
    for (const OperatorFacts& facts : OperatorCatalog())
      if (pointer == facts.InstallPointer() && !facts.sharing_note.empty())
        fix += "; " + facts.sharing_note;
  } else if (pointer.rfind("/namespaces/", 0) == 0) {
    fix = "give this profile a namespace of its own (" + field + ", e.g. " +
          p.namespaces[std::stoul(pointer.substr(12))] + "-" + p.cluster_name +
          "), so its workload objects get identities of their own";
  } else if (EndsWith(pointer, "/nad_name")) {
    fix = "give the rail a NetworkAttachmentDefinition name of its own (" + field + ")";
  } else if (EndsWith(pointer, "/ipam/pool/name")) {
    fix = "give this profile an IP pool of its own (" + field + ", e.g. " + p.cluster_name +
          ") with a subnet that does not overlap the other's: nv-ipam allocates per pool, so "
          "overlapping pools hand out one address twice";
  } else {
    fix = "give each profile its own cluster.name";
  }
  if (Destination(p) == kInClusterServer)
    return fix + ". If the two profiles are for two different clusters, each synced by the Argo "
                 "CD that runs in it, check each alone (`hkimgen validate A`, then `hkimgen "
                 "validate B`; profiles given together that name one destination are checked "
                 "as one cluster); if one central Argo CD syncs both, give them different "
                 "destinations (gitops.destination_name or destination_server)";
  return fix + ". If the two profiles are for two different clusters, give them different "
               "Argo CD destinations (gitops.destination_name or destination_server)";
}

void CheckObjects(const std::vector<ClusterMember>& members, const std::vector<size_t>& group,
                  const std::vector<std::vector<Emitted>>& emitted, DiagnosticSink& sink,
                  std::vector<bool>& flagged) {
  for (size_t j = 1; j < group.size(); ++j) {
    const size_t later = group[j];
    for (size_t i = 0; i < j; ++i) {
      const size_t earlier = group[i];
      std::map<ObjectId, const Emitted*> theirs;
      for (const Emitted& e : emitted[earlier]) theirs.emplace(e.identity, &e);
      // Grouped by the value in the later profile that produced the names: one finding each.
      std::map<std::string, std::vector<std::pair<const Emitted*, const Emitted*>>> by_pointer;
      std::vector<std::string> order;
      for (const Emitted& e : emitted[later]) {
        auto it = theirs.find(e.identity);
        if (it == theirs.end()) continue;
        if (!by_pointer.count(e.pointer)) order.push_back(e.pointer);
        by_pointer[e.pointer].push_back({&e, it->second});
      }
      // In the order of the later profile's lines, as a reader fixes them.
      const LoadedProfile& loaded = *members[later].loaded;
      std::stable_sort(order.begin(), order.end(), [&](const std::string& l, const std::string& r) {
        const SourceLocation a = loaded.locations.Find(l), b = loaded.locations.Find(r);
        return std::make_pair(a.line, a.column) < std::make_pair(b.line, b.column);
      });
      for (const std::string& pointer : order) {
        const auto& pairs = by_pointer[pointer];
        std::string list;
        for (const auto& [mine, other] : pairs) list += (list.empty() ? "" : ", ") + mine->description;
        const ClusterMember& a = members[earlier];
        Report(members[later], kObjectRule, pointer,
               "this profile and " + a.loaded->path + " (" + PointerToDotted(pairs[0].second->pointer) +
                   " at " + WhereIs(*a.loaded, pairs[0].second->pointer) +
                   ") sync into one cluster (Argo CD destination " +
                   Destination(*members[later].profile) + ") and both emit " +
                   std::to_string(pairs.size()) + " object(s): " + list +
                   "; two Argo CD Applications that track one object overwrite each other on "
                   "every sync" +
                   (list.find("NicClusterPolicy") != std::string::npos
                        ? " (the NicClusterPolicy's device-plugin selector flips between the "
                          "profiles' device IDs, and one shape's pods stay Pending)"
                        : std::string()) +
                   ", and deleting either prunes it",
               FixFor(*members[later].profile, pointer), sink);
        flagged[later] = true;
      }
    }
  }
}

bool HasNicClusterPolicy(const BundlePlan& plan) {
  return std::any_of(plan.objects.begin(), plan.objects.end(),
                     [](const PlannedObject& o) { return o.kind == "NicClusterPolicy"; });
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

void CheckDeviceIds(const std::vector<ClusterMember>& members, const std::vector<size_t>& group,
                    const std::vector<BundlePlan>& plans, DiagnosticSink& sink,
                    std::vector<bool>& flagged) {
  std::vector<size_t> owners;
  for (size_t m : group) {
    if (HasNicClusterPolicy(plans[m])) owners.push_back(m);
  }
  // Two owners are lint.shared-cluster-object; none: the policy is not in this set.
  if (owners.size() != 1) return;
  const ClusterMember& owner = members[owners[0]];
  const SriovDevicePlugin& policy = *owner.profile->network.sriov_device_plugin;
  std::set<std::string> listed;
  for (const std::string& id : policy.device_ids) listed.insert(Lower(id));
  for (size_t m : group) {
    const Profile& p = *members[m].profile;
    if (m == owners[0] || !p.UsesRails() || !p.network.sriov_device_plugin) continue;
    const SriovDevicePlugin& plugin = *p.network.sriov_device_plugin;
    if (plugin.ExtendedResourceName() != policy.ExtendedResourceName()) {
      Report(members[m], kDeviceRule, plugin.pointer + "/resource_name",
             "the cluster's one NicClusterPolicy (rendered by " +
                 WhereIs(*owner.loaded, policy.pointer) + ") advertises only " +
                 policy.ExtendedResourceName() + ", but this profile's pods request " +
                 plugin.ExtendedResourceName() + ": no device plugin advertises it, so they stay Pending",
             "use resource " + policy.ExtendedResourceName() +
                 " here too (network.sriov_device_plugin and the rails' resource_name) and list "
                 "this profile's device IDs in the owner's network.sriov_device_plugin.device_ids",
             sink);
      flagged[m] = true;
      continue;
    }
    std::vector<std::string> absent;
    for (const std::string& id : plugin.device_ids) {
      if (!listed.count(Lower(id))) absent.push_back(id);
    }
    if (absent.empty()) continue;
    const std::string missing = Join(absent);
    Report(owner, kDeviceRule, policy.pointer + "/device_ids",
           "this profile renders the cluster's one NicClusterPolicy, whose device plugin selects "
           "devices [" + Join(policy.device_ids) + "] for " + policy.ExtendedResourceName() + ", but " + members[m].loaded->path +
               " (" + WhereIs(*members[m].loaded, plugin.pointer + "/device_ids") +
               ") requests the same resource on NICs with device IDs " + missing +
               ": the plugin never advertises them, so that profile's pods stay Pending",
           "add " + missing + " to network.sriov_device_plugin.device_ids here (one policy lists "
           "the device IDs of every shape of the cluster)",
           sink);
    flagged[owners[0]] = true;
  }
}

/// nv-ipam checks each IPPool alone (ippool_validate.go: subnet, block size, gateway) and keeps
/// each pool's allocations apart, so two pools of one cluster whose subnets overlap can give
/// one address to two VFs. Pools with one name are one object (lint.shared-cluster-object).
void CheckPoolSubnets(const std::vector<ClusterMember>& members, const std::vector<size_t>& group,
                      DiagnosticSink& sink) {
  for (size_t j = 1; j < group.size(); ++j) {
    const ClusterMember& later = members[group[j]];
    for (const Rail& mine : later.profile->network.rails) {
      if (!mine.ipam.pool) continue;
      const std::optional<Ipv4Network> net = ParseCidr(mine.ipam.pool->subnet);
      for (size_t i = 0; i < j && net; ++i) {
        const ClusterMember& earlier = members[group[i]];
        for (const Rail& theirs : earlier.profile->network.rails) {
          if (!theirs.ipam.pool || theirs.ipam.pool->name == mine.ipam.pool->name) continue;
          const std::optional<Ipv4Network> other = ParseCidr(theirs.ipam.pool->subnet);
          if (!other || !net->Overlaps(*other)) continue;
          Report(later, kSubnetRule, mine.pointer + "/ipam/pool/subnet",
                 "IP pool " + mine.ipam.pool->name + " (" + mine.ipam.pool->subnet +
                     ") overlaps pool " + theirs.ipam.pool->name + " (" +
                     theirs.ipam.pool->subnet + ") of " + earlier.loaded->path + " (" +
                     WhereIs(*earlier.loaded, theirs.pointer + "/ipam/pool/subnet") +
                     "), another profile of this cluster: nv-ipam allocates each pool on its "
                     "own, so two VFs can get one address",
                 "give this pool a subnet that does not overlap the other profile's pools",
                 sink, Severity::kWarning);
          break;
        }
      }
    }
  }
}

/// The differences between what a sharing profile says of an operator and what its owner runs:
/// the settings its definition names, "name mine (the owner's: theirs)" for each that differs.
std::vector<std::string> OperatorDifferences(const Profile& mine, const Profile& owner,
                                             const OperatorFacts& facts) {
  std::vector<std::string> out;
  const std::vector<SharedSetting> a = facts.shared_settings(mine);
  const std::vector<SharedSetting> b = facts.shared_settings(owner);
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i].second != b[i].second)
      out.push_back(a[i].first + " " + a[i].second + " (the owner's: " + b[i].second + ")");
  return out;
}

/// A profile that shares an operator describes what the owner runs (lint checks GPUDirect and
/// releases against it); when it says otherwise, those checks judged the wrong operator.
void CheckSharedSettings(const std::vector<ClusterMember>& members, const std::vector<size_t>& group,
                         DiagnosticSink& sink) {
  for (const OperatorFacts& facts : OperatorCatalog()) {
    if (!facts.shared_settings) continue;
    const std::string& key = facts.key;
    auto op = [&](size_t m) -> const OperatorCommon* {
      const Profile& p = *members[m].profile;
      return p.operators ? facts.in(*p.operators) : nullptr;
    };
    const size_t* owner = nullptr;
    for (const size_t& m : group) {
      if (op(m) && op(m)->managed()) {
        owner = &m;
        break;
      }
    }
    if (!owner) continue;
    for (size_t m : group) {
      if (!op(m) || op(m)->install != OperatorInstall::kShared) continue;
      const std::vector<std::string> diffs =
          OperatorDifferences(*members[m].profile, *members[*owner].profile, facts);
      if (diffs.empty()) continue;
      Report(members[m], kSettingsRule, op(m)->pointer,
             std::string("this profile shares the ") + key + " that " + members[*owner].loaded->path +
                 " (" + WhereIs(*members[*owner].loaded, op(*owner)->pointer) +
                 ") installs, but describes it otherwise: " + Join(diffs) +
                 "; the owner's settings are what runs on every node of the cluster",
             std::string("make operators.") + key +
                 " here match the owner's, or change the owner's so they suit every shape",
             sink, Severity::kWarning);
    }
  }
}

/// The profile's operator under `key`, or null (plan/preconditions.h's lookup).
const OperatorCommon* OperatorOf(const Profile& p, const std::string& key) {
  return p.operators ? OperatorByKey(*p.operators, key) : nullptr;
}

/// Closure across the set (plan/closure.h, CheckSharedClosure): what a profile leaves to an
/// operator it shares must be in the bundle of the profile that installs it. An operator no
/// profile of the set installs is trusted, as in a single render (its owner was not given).
void CheckSharedNeeds(const std::vector<ClusterMember>& members, const std::vector<size_t>& group,
                      const std::vector<BundlePlan>& plans, bool device_ids_reported,
                      DiagnosticSink& sink, std::vector<bool>& flagged) {
  for (const OperatorFacts& facts : OperatorCatalog()) {
    const std::string& key = facts.key;
    const size_t* owner = nullptr;
    for (const size_t& m : group) {
      const OperatorCommon* op = OperatorOf(*members[m].profile, key);
      if (op && op->managed()) {
        owner = &m;
        break;
      }
    }
    if (!owner) continue;
    const ClosureSide theirs{members[*owner].profile, members[*owner].loaded, &plans[*owner]};
    for (size_t m : group) {
      const OperatorCommon* op = OperatorOf(*members[m].profile, key);
      if (!op || op->install != OperatorInstall::kShared) continue;
      const ClosureSide mine{members[m].profile, members[m].loaded, &plans[m]};
      if (CheckSharedClosure(mine, theirs, key, device_ids_reported, sink) > 0) flagged[m] = true;
    }
  }
}

}  // namespace

std::string ClusterKey(const Profile& profile) {
  return std::string(profile.IsOpenShift() ? "openshift" : "kubernetes") + " " +
         Destination(profile);
}

namespace {

/// Two profiles of different platform families on one Argo CD destination:
/// an OpenShift and an OKE profile are never one cluster, so one of them names the wrong
/// destination (most often both left it at the default, Argo CD's own cluster). Reported at the
/// later profile of the first such pair per destination. Outside a fleet, two profiles on Argo
/// CD's own cluster are read as two clusters with an Argo CD each (a note: nothing to fix there).
void CheckPlatformsPerDestination(const std::vector<ClusterMember>& members, ArgoCdOfSet argocd,
                                  DiagnosticSink& sink, std::vector<bool>& flagged) {
  std::map<std::string, size_t> first;  // destination -> first profile there
  for (size_t m = 0; m < members.size(); ++m) {
    const Profile& p = *members[m].profile;
    auto [it, fresh] = first.emplace(Destination(p), m);
    if (fresh) continue;
    const ClusterMember& earlier = members[it->second];
    if (earlier.profile->IsOpenShift() == p.IsOpenShift()) continue;
    const std::string pointer = !p.gitops.destination_name.empty() ? "/gitops/destination_name"
                                : members[m].loaded->locations.values.count(
                                      "/gitops/destination_server")
                                    ? "/gitops/destination_server"
                                    : "/cluster/platform";
    const std::string both = "this " + std::string(ToString(p.platform)) + " profile and " +
                             earlier.loaded->path + " (" + ToString(earlier.profile->platform) +
                             ") sync into one Argo CD destination (" + Destination(p) + ")";
    it->second = m;  // one report per pair of neighbours, not one per profile and each before
    if (argocd == ArgoCdOfSet::kPerhapsOnePerCluster && Destination(p) == kInClusterServer) {
      Report(members[m], kPlatformRule, pointer,
             both + ", Argo CD's own cluster: profiles of different platforms are never one "
                    "cluster, so they are checked as two clusters with an Argo CD each",
             "nothing, if each cluster runs its own Argo CD; if one central Argo CD syncs both "
             "(a fleet render, `hkimgen render A B -d DIR`), give the remote one "
             "gitops.destination_name or gitops.destination_server (its API server URL)",
             sink, Severity::kNote);
      continue;
    }
    Report(members[m], kPlatformRule, pointer,
           both + ", but profiles of different platforms can never be one cluster: one of them "
                  "names the wrong destination",
           "give each cluster its own destination: gitops.destination_name (the cluster's name "
           "in Argo CD, `argocd cluster add`) or gitops.destination_server (its API server URL)",
           sink);
    flagged[m] = true;
  }
}

}  // namespace

std::vector<bool> CheckClusterSharing(const std::vector<ClusterMember>& members,
                                      ArgoCdOfSet argocd, DiagnosticSink& sink) {
  std::vector<bool> flagged(members.size(), false);
  CheckPlatformsPerDestination(members, argocd, sink, flagged);
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  for (size_t m = 0; m < members.size(); ++m) {
    const std::string key = ClusterKey(*members[m].profile);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(m);
  }
  std::vector<BundlePlan> plans(members.size());
  std::vector<std::vector<Emitted>> emitted(members.size());
  for (const std::string& key : order) {
    const std::vector<size_t>& group = groups[key];
    // Only profiles that share their cluster with another are planned: a fleet of one profile
    // per cluster (the usual case) plans nothing here, serially, after its parallel renders.
    if (group.size() < 2) continue;
    for (size_t m : group) {
      plans[m] = members[m].plan ? *members[m].plan : PlanBundle(*members[m].profile);
      emitted[m] = EmittedObjects(*members[m].profile, plans[m]);
    }
    CheckObjects(members, group, emitted, sink, flagged);
    const int errors = sink.ErrorCount();
    CheckDeviceIds(members, group, plans, sink, flagged);
    // lint.shared-device-ids names the resource a sharing profile's pods wait for better than
    // closure.resource would: then the latter is left out.
    CheckSharedNeeds(members, group, plans, sink.ErrorCount() > errors, sink, flagged);
    CheckPoolSubnets(members, group, sink);
    CheckSharedSettings(members, group, sink);
  }
  return flagged;
}

const std::vector<RuleInfo>& ClusterSharingRules() {
  static const std::vector<RuleInfo> rules = {
      {kObjectRule, Severity::kError,
       "two profiles of one cluster (same Argo CD destination) emit the same object or operator "
       "chart (given several profiles)"},
      {kDeviceRule, Severity::kError,
       "the cluster's NicClusterPolicy lacks the device IDs of another profile of that cluster "
       "(given several profiles)"},
      {kSettingsRule, Severity::kWarning,
       "a profile that shares an operator describes it otherwise than the profile that installs "
       "it (given several profiles)"},
      {kPlatformRule, Severity::kError,
       "profiles of different platforms (OpenShift, OKE/Kubernetes) name one Argo CD "
       "destination (given several profiles)"},
      {kSubnetRule, Severity::kWarning,
       "IP pools of two profiles of one cluster overlap (given several profiles)"},
  };
  return rules;
}

}  // namespace hkim
