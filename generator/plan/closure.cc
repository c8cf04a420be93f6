// Closure check (closure.h): the bundle's needs against its own objects, the platform and the
// preconditions (preconditions.h holds those facts), with the messages and fixes of closure.*.

#include "plan/closure.h"

#include <set>

#include "load/report_at.h"
#include "model/node_fit.h"
#include "plan/describe.h"
#include "plan/sync_order.h"

namespace hkim {
namespace {

using K = CapabilityKind;

struct Provider {
  Capability what;
  SyncPlacement at;  ///< where Argo CD syncs it (plan/sync_order.h)
  const PlannedObject* object;
};

std::string Describe(const PlannedObject& o) {
  return DescribeObject(o) + " (wave " + std::to_string(o.sync_wave) + ")";
}

/// What to write in `preconditions` to declare a need met by the cluster.
std::string DeclareHint(K kind, const std::string& name, const std::string& check) {
  // GPUDirect comes from the host's driver when the bundle does not deploy it.
  if (kind == K::kGpuDirect)
    return "preconditions: [{kind: host-driver, what: " +
           (name == "any" ? std::string("nvidia-peermem (or dmabuf)") : name) +
           ", why: <the host's driver provides it>, check: " + check + "}]";
  return "preconditions: [{kind: " + std::string(ToString(kind)) + ", what: " + name +
         ", why: <who provides it>, check: " + check + "}]";
}

/// How the bundle itself could meet the need (first half of a fix).
std::string ProviderHint(const Profile& p, K kind, const std::string& name) {
  switch (kind) {
    case K::kCrd:
      return "let the bundle install the operator that defines " + name + " (operators.<name>.install: managed)";
    case K::kCniPlugin:
      if (name == "sriov" || name == "rdma")
        return std::string("install the ") + (name == "sriov" ? "SR-IOV" : "RDMA") + " CNI from the bundle (" +
               (p.IsOpenShift() ? "operators.sriov_network_operator" : "the network operator's SR-IOV Network Operator or a CNI DaemonSet") + ")";
      if (name == "nv-ipam") return "deploy nv-ipam from the NicClusterPolicy (network.nv_ipam)";
      return "keep operators.network_operator.secondary_network on (the NicClusterPolicy's cniPlugins)";
    case K::kRdmaNetns:
      return "put the GPU nodes' RDMA subsystem in exclusive network-namespace mode from the bundle "
             "(OKE: the VF DaemonSet; OpenShift: a SriovNetworkPoolConfig with rdmaMode: exclusive)";
    case K::kResource:
      if (name == "nvidia.com/gpu") return "let the bundle install the GPU Operator (operators.gpu_operator.install: managed)";
      return "give the resource a producer in the bundle (a SriovNetworkNodePolicy, or network.sriov_device_plugin with this resource)";
    case K::kNodeLabel:
      if (name.rfind("nvidia.com/gpu.", 0) == 0) return "let the bundle install the GPU Operator (its GPU feature discovery sets " + name + ")";
      if (name.rfind("feature.node.kubernetes.io/", 0) == 0) return "let the bundle install NFD (operators.nfd.install: managed)";
      return "select the nodes by a label the platform sets (node.kubernetes.io/instance-type), or label them (" +
             std::string(p.IsOpenShift() ? "oc" : "kubectl") + " label node NODE " + name + "=)";
    case K::kMachineConfigPool:
      return "let the bundle create the pool (iommu.machine_config_pool: create)";
    case K::kToleration:
      return "let the node agent tolerate the taint too";
    case K::kGpuDirect:
      return "let the GPU Operator deploy the driver with GPUDirect RDMA (operators.gpu_operator.driver.enabled: true), or "
             "set nccl.gpudirect to what the host's driver gives";
    case K::kImage:
      return p.images.enabled() ? "name the image so that images.mirror (" + p.images.mirror + ") rewrites it (a fully qualified reference)"
                                : "pull it from a registry the nodes reach";
  }
  return "";
}

const char* Consequence(K kind) { return InfoOf(kind).consequence; }

/// `operator_scope`: OperatorScope of an "operator" precondition (the same for every need, so
/// worked out once per bundle: per need, it was a tenth of a large render).
bool PreconditionCovers(const Precondition& pre, const std::vector<Capability>& operator_scope,
                        const Capability& need) {
  if (pre.kind == ToString(need.kind)) return CapabilityMatches(need.kind, pre.what, need.name);
  if (pre.kind == "host-driver") return need.kind == K::kGpuDirect && CapabilityMatches(need.kind, pre.what, need.name);
  if (pre.kind == "operator") {
    for (const Capability& c : operator_scope)
      if (c.kind == need.kind && CapabilityMatches(c.kind, c.name, need.name)) return true;
  }
  return false;
}

const char* RuleId(K kind) { return InfoOf(kind).closure_rule; }

void Report(const LoadedProfile& loaded, K kind, const std::string& pointer, std::string message,
            std::string fix, DiagnosticSink& sink) {
  ReportAt(loaded, pointer, Severity::kError, RuleId(kind), std::move(message), std::move(fix),
           sink);
}

/// An agent toleration covers a workload's when it tolerates every taint that one does, by the
/// scheduler's matching (model/node_fit.h: key, value, operator and effect).
bool Covers(const ToleratedTaint& agent, const Toleration& workload) {
  Toleration as_toleration;
  as_toleration.key = agent.key;
  as_toleration.operator_name = agent.exists ? "Exists" : "Equal";
  as_toleration.value = agent.value;
  as_toleration.effect = agent.effect;
  return ToleratesWhatWorkloadTolerates(as_toleration, workload);
}

}  // namespace

namespace {

/// What meets the needs of one bundle: its own objects (by wave), the platform and its
/// preconditions.
class NeedMatcher {
 public:
  NeedMatcher(const Profile& p, const BundlePlan& plan)
      : profile_(p), plan_(plan), platform_(PlatformProvides(p)) {
    for (const PlannedObject& o : plan.objects) {
      if (o.provides.empty()) continue;
      const SyncPlacement at = PlacementOf(p, plan, o);
      for (const Capability& c : o.provides) providers_.push_back(Provider{c, at, &o});
    }
    for (const Precondition& pre : plan.preconditions) {
      scopes_.push_back(pre.kind == "operator" ? OperatorScope(p, pre.what) : std::vector<Capability>());
    }
  }

  /// How `need` of `o` is met.
  struct Match {
    bool by_bundle_or_platform = false;
    const Provider* late = nullptr;  ///< a provider that syncs too late, when none was in time
    std::vector<const Precondition*> preconditions;
  };

  Match Find(const PlannedObject& o, const Capability& what) const {
    return Find(PlacementOf(profile_, plan_, o), what);
  }

  /// The same for an object that syncs `at` (worked out once per object by the caller).
  Match Find(const SyncPlacement& at, const Capability& what) const {
    Match m;
    for (const Capability& c : platform_)
      m.by_bundle_or_platform |= c.kind == what.kind && CapabilityMatches(c.kind, c.name, what.name);
    for (const Provider& provider : providers_) {
      if (m.by_bundle_or_platform) break;
      if (provider.what.kind != what.kind || !CapabilityMatches(what.kind, provider.what.name, what.name)) continue;
      // A CRD must be there a wave before its objects; other needs may come with them, inside
      // one Application; across Applications only the parent's waves order them.
      if (SyncsInTime(provider.at, at, what.kind != K::kCrd)) m.by_bundle_or_platform = true;
      else m.late = &provider;
    }
    for (size_t i = 0; i < plan_.preconditions.size(); ++i)
      if (PreconditionCovers(plan_.preconditions[i], scopes_[i], what)) m.preconditions.push_back(&plan_.preconditions[i]);
    return m;
  }

  /// Whether this bundle provides `what` for another bundle of its cluster, in any wave: a CRD
  /// from any object, anything else (it acts on nodes) only from the objects of operator
  /// `operator_key`, whose agents serve every pool; the rest run on this profile's pool alone.
  bool ProvidesToTheCluster(const Capability& what, const std::string& operator_key) const {
    for (const Capability& c : platform_)
      if (c.kind == what.kind && CapabilityMatches(c.kind, c.name, what.name)) return true;
    for (const Provider& provider : providers_) {
      if (what.kind != K::kCrd && provider.object->operator_key != operator_key) continue;
      if (provider.what.kind == what.kind && CapabilityMatches(what.kind, provider.what.name, what.name)) return true;
    }
    for (size_t i = 0; i < plan_.preconditions.size(); ++i)
      if (PreconditionCovers(plan_.preconditions[i], scopes_[i], what)) return true;
    return false;
  }

 private:
  const Profile& profile_;
  const BundlePlan& plan_;
  std::vector<Capability> platform_;
  std::vector<Provider> providers_;
  std::vector<std::vector<Capability>> scopes_;  ///< per precondition: its OperatorScope
};

/// Why `late` is not there in time for an object synced `at` (closure findings name both
/// Applications: Argo CD orders waves only inside one).
std::string LateProvider(const Profile& p, const Provider& late, const SyncPlacement& at) {
  if (late.at.application == at.application)
    return "its provider " + DescribeObject(*late.object) + " (" + DescribePlacement(p, late.at) +
           ") comes in a later wave of the same Application";
  // A chart's Application is the provider itself; a layer object is named with its Application.
  const std::string from = late.at.through_application
                               ? "it comes from "
                               : "its provider " + DescribeObject(*late.object) + " is in ";
  return from + DescribePlacement(p, late.at) + ", which the parent does not sync before Application " +
         at.application + ": Argo CD orders sync waves only inside one Application, and between Applications only by "
         "the parent's waves, which hold only with the health check for argoproj.io/Application "
         "(a precondition of every bundle); sibling Applications of one wave sync side by side";
}

std::string LateProviderFix(const Provider& late, const SyncPlacement& at) {
  if (late.at.application == at.application) return "move the provider to an earlier wave";
  return "let the parent sync Application " + late.at.application + " in an earlier wave than " +
         at.application + ", or move the provider into " + at.application + " at an earlier wave";
}

std::string NeedPointer(const PlannedObject& o, const Need& need) {
  if (!need.pointer.empty()) return need.pointer;
  return o.source_pointer.empty() ? "/cluster/platform" : o.source_pointer;
}

bool DeclaredToleration(const BundlePlan& plan, const Toleration& t) {
  for (const Precondition& pre : plan.preconditions)
    if (pre.kind == "toleration" && CapabilityMatches(K::kToleration, pre.what, t.key)) return true;
  return false;
}

bool AgentTolerates(const PlannedObject& agent, const Toleration& t) {
  for (const ToleratedTaint& tolerated : agent.tolerates)
    if (Covers(tolerated, t)) return true;
  return false;
}

/// What the node agents of operator `key` give a node, for messages (the catalogue's phrase).
std::string AgentProvides(const std::string& key) {
  const OperatorFacts* facts = FindOperatorFacts(key);
  return facts ? facts->agents : "its node agents' work";
}

/// The operator key of a `shared` operator whose implied precondition is among `pres`, or "".
std::string SharedOperatorOf(const Profile& p, const std::vector<const Precondition*>& pres) {
  if (!p.operators) return "";
  for (const Precondition* pre : pres) {
    if (pre->kind != "operator") return "";  // a declared precondition meets it as well
  }
  for (const Precondition* pre : pres) {
    const OperatorCommon* op = OperatorByKey(*p.operators, pre->what);
    if (op && op->install == OperatorInstall::kShared) return pre->what;
  }
  return "";
}

}  // namespace

int CheckClosure(const Profile& p, const LoadedProfile& loaded, const BundlePlan& plan,
                 DiagnosticSink& sink) {
  const int before = sink.ErrorCount();
  const NeedMatcher matcher(p, plan);
  // One finding per need (kind, name, pointer): four NADs chaining one plugin from one rail
  // list are one fault each, but the same rail in two namespaces is one.
  std::set<std::string> reported;
  for (const PlannedObject& o : plan.objects) {
    if (o.needs.empty()) continue;
    const SyncPlacement at = PlacementOf(p, plan, o);
    for (const Need& need : o.needs) {
      const Capability& what = need.what;
      const NeedMatcher::Match match = matcher.Find(at, what);
      if (match.by_bundle_or_platform || !match.preconditions.empty()) continue;
      const std::string pointer = NeedPointer(o, need);
      if (!reported.insert(std::string(ToString(what.kind)) + "|" + what.name + "|" + pointer).second) continue;
      const Provider* late = match.late;
      const std::string check = PreconditionCheck(p, what.kind, what.name);
      std::string message = DescribeObject(o) + " (" + DescribePlacement(p, at) + ") needs " +
                            ToString(what.kind) + " " + what.name +
                            (need.why.empty() ? "" : " (" + need.why + ")") + ", but ";
      message += late ? LateProvider(p, *late, at)
                      : "nothing in this bundle provides it, the platform does not, and no precondition declares it";
      message += std::string(": ") + Consequence(what.kind);
      std::string fix = late ? LateProviderFix(*late, at) : ProviderHint(p, what.kind, what.name);
      fix += "; or, if the cluster already has it, declare it: " + DeclareHint(what.kind, what.name, check);
      Report(loaded, what.kind, pointer, std::move(message), std::move(fix), sink);
    }
  }
  // Taints the workload tolerates: its GPU nodes may carry them, so every node agent it depends
  // on (device plugin, CNI, VF creation) must tolerate them too, or it never runs there.
  for (const Toleration& t : p.node_shape.tolerations) {
    if (t.key.empty() || DeclaredToleration(plan, t)) continue;
    for (const PlannedObject& o : plan.objects) {
      if (!o.node_agent || AgentTolerates(o, t)) continue;
      Report(loaded, K::kToleration, t.pointer,
             "the workload tolerates taint " + t.key + ", so its GPU nodes may carry it, but node agent " +
                 Describe(o) + " does not tolerate it: it never runs on those nodes, and what it provides "
                 "(devices, CNI, VFs) never appears there",
             "let " + o.kind + " " + o.name + " tolerate " + t.key +
                 " (hkimgen propagates node_shape.tolerations to the node agents it renders), or, if "
                 "the nodes never carry this taint, declare it: " +
                 DeclareHint(K::kToleration, t.key, PreconditionCheck(p, K::kToleration, t.key)),
             sink);
    }
  }
  return sink.ErrorCount() - before;
}

// What the owner provides counts in any of its waves. Argo CD orders sync waves inside one
// Application, and Applications only by their parent's waves (sync_order.h); the owner's and
// the sharer's bundles have a parent each (a fleet's ApplicationSet syncs them side by side), so
// no wave of one bundle orders anything of the other, and comparing them would check an order
// that does not exist. The order is instead the sharer's precondition on the shared operator
// (preconditions.cc: sync the owner's bundle first), listed in its README and marker.
int CheckSharedClosure(const ClosureSide& sharer, const ClosureSide& owner, const std::string& key,
                       bool skip_resources, DiagnosticSink& sink) {
  const int before = sink.ErrorCount();
  const Profile& p = *sharer.profile;
  const NeedMatcher mine(p, *sharer.plan);
  const NeedMatcher theirs(*owner.profile, *owner.plan);
  const std::string owner_at = owner.loaded->path;
  std::set<std::string> reported;
  for (const PlannedObject& o : sharer.plan->objects) {
    for (const Need& need : o.needs) {
      const Capability& what = need.what;
      if (skip_resources && what.kind == K::kResource) continue;
      const NeedMatcher::Match match = mine.Find(o, what);
      if (match.by_bundle_or_platform || SharedOperatorOf(p, match.preconditions) != key) continue;
      if (theirs.ProvidesToTheCluster(what, key)) continue;
      const std::string pointer = NeedPointer(o, need);
      if (!reported.insert(std::string(ToString(what.kind)) + "|" + what.name + "|" + pointer).second) continue;
      Report(*sharer.loaded, what.kind, pointer,
             Describe(o) + " needs " + ToString(what.kind) + " " + what.name +
                 (need.why.empty() ? "" : " (" + need.why + ")") + ", which this profile leaves to the " +
                 key + " it shares (operators." + key + ".install: shared), but the bundle of " + owner_at +
                 ", the profile of this cluster that installs it, does not provide it: " + Consequence(what.kind),
             "in " + owner_at + ": " + ProviderHint(*owner.profile, what.kind, what.name) +
                 "; or install it from this profile (operators." + key + ".install: managed here, shared there)",
             sink);
    }
  }
  // The shared operator's node agents (the owner's NicClusterPolicy, GPU Operator) serve this
  // profile's nodes too: a taint only this workload tolerates keeps them off its pool.
  for (const Toleration& t : p.node_shape.tolerations) {
    if (t.key.empty() || DeclaredToleration(*sharer.plan, t)) continue;
    for (const PlannedObject& agent : owner.plan->objects) {
      if (!agent.node_agent || agent.operator_key != key || AgentTolerates(agent, t)) continue;
      Report(*sharer.loaded, K::kToleration, t.pointer,
             "the workload tolerates taint " + t.key + ", so its GPU nodes may carry it, but node agent " +
                 Describe(agent) + " of " + owner_at + " (the " + key +
                 " this profile shares) does not tolerate it: it never runs on this profile's nodes, and "
                 "what it provides (" + AgentProvides(key) + ") never appears there",
             "add the toleration to node_shape.tolerations in " + owner_at +
                 " (its node agents tolerate what its workload does; its node_selector still keeps its "
                 "own pods on its own pool), or, if these nodes never carry this taint, declare it here: " +
                 DeclareHint(K::kToleration, t.key, PreconditionCheck(p, K::kToleration, t.key)),
             sink);
    }
  }
  return sink.ErrorCount() - before;
}

const std::vector<RuleInfo>& ClosureRules() {
  static const std::vector<RuleInfo> rules = [] {
    std::vector<RuleInfo> out;
    for (const CapabilityKindInfo& kind : CapabilityKinds())
      out.push_back({RuleId(kind.kind), Severity::kError, kind.closure_summary});
    return out;
  }();
  return rules;
}

}  // namespace hkim
