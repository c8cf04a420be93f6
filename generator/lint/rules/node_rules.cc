// Node shape: GPUs per pod, include/exclude node lists, IOMMU policy and its kernel arguments,
// and the nightly health check's node count.

#include <algorithm>
#include <map>
#include <set>

#include "lint/rules/rules.h"
#include "model/machine_config.h"

namespace hkim {
namespace {

void CheckGpusIdle(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  // More GPUs than the node has is model.gpus-per-pod.
  if (p.workload.gpus_per_pod >= p.node_shape.gpus_per_node) return;
  const int idle = p.node_shape.gpus_per_node - p.workload.gpus_per_pod;
  r.Report(p.workload.pointer + "/gpus_per_pod",
           "pods take " + std::to_string(p.workload.gpus_per_pod) + " of the " +
               std::to_string(p.node_shape.gpus_per_node) + " GPUs of a '" + p.node_shape.name +
               "' node and run one per node, so " + std::to_string(idle) +
               " GPU(s) per node stay idle",
           "set workload.gpus_per_pod: " + std::to_string(p.node_shape.gpus_per_node) +
               " (one pod drives every GPU of its node)");
}

void CheckIommuRdma(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.UsesRails() || p.iommu.policy != IommuPolicy::kSkip) return;
  r.Report(p.iommu.pointer + "/policy",
           "RDMA with iommu.policy: skip: nothing makes sure the IOMMU is in passthrough (or "
           "off); in translated mode (DMA/DMA-FQ) NCCL fails with IBV_WC_LOC_PROT_ERR and falls "
           "back to TCP (0.98 GiB/s on Barcelona)",
           p.IsOpenShift()
               ? "set iommu.policy: passthrough (renders a MachineConfig with iommu=pt), or "
                 "already-configured when the nodes are known to be in passthrough or IOMMU-off "
                 "mode"
               : "set iommu=pt in the node image and use iommu.policy: already-configured");
}

// CPU vendors of the node shapes hkimgen knows (topology presets carry theirs).
std::optional<CpuVendor> KnownVendor(const Profile& p, std::string* source) {
  const NodeTopology& t = p.node_shape.topology;
  if (!t.preset.empty() && t.preset != "none" && t.preset != "custom") {
    *source = "topology preset '" + t.preset + "'";
    return t.cpu_vendor;
  }
  static const std::map<std::string, CpuVendor> kShapes = {
      {"BM.GPU.H100.8", CpuVendor::kIntel},
      {"BM.GPU.A100-v2.8", CpuVendor::kAmd},
      {"BM.GPU4.8", CpuVendor::kAmd},
      {"barcelona-h100-cx7", CpuVendor::kAmd},
  };
  auto it = kShapes.find(p.node_shape.name);
  if (it == kShapes.end()) return std::nullopt;
  *source = "node shape '" + p.node_shape.name + "'";
  return it->second;
}

void CheckIommuVendor(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.iommu.policy != IommuPolicy::kPassthrough) return;
  std::string source;
  std::optional<CpuVendor> vendor = KnownVendor(p, &source);
  if (!vendor || *vendor == p.node_shape.cpu_vendor) return;
  const bool amd = *vendor == CpuVendor::kAmd;
  // Intel hosts need intel_iommu=on (off by default); the kernel enables the AMD IOMMU by
  // default and documents no amd_iommu=on, so AMD hosts get iommu=pt alone.
  r.Report(p.node_shape.pointer + "/cpu_vendor",
           std::string("node_shape.cpu_vendor is ") + ToString(p.node_shape.cpu_vendor) + ", but " +
               source + " has " + (amd ? "AMD" : "Intel") + " CPUs: the IOMMU MachineConfig " +
               (amd ? "would add intel_iommu=on, an Intel argument, where iommu=pt alone is needed"
                    : "would lack intel_iommu=on, without which the Intel IOMMU stays off and "
                      "iommu=pt has no effect"),
           std::string("set node_shape.cpu_vendor: ") + (amd ? "amd" : "intel"));
}

// A host name in both lists is excluded (the expressions of one node selector
// term must all hold), which is rarely what the author meant.
void CheckNodeListsOverlap(const LintContext& c, LintReporter& r) {
  const NodeShape& s = c.profile.node_shape;
  const std::set<std::string> included(s.include_nodes.begin(), s.include_nodes.end());
  for (size_t i = 0; i < s.exclude_nodes.size(); ++i) {
    const std::string& name = s.exclude_nodes[i];
    if (!included.count(name)) continue;
    const size_t at = std::find(s.include_nodes.begin(), s.include_nodes.end(), name) -
                      s.include_nodes.begin();
    r.Report(s.pointer + "/exclude_nodes/" + std::to_string(i),
             "node '" + name + "' is in both exclude_nodes and include_nodes (" +
                 WhereIs(c, s.pointer + "/include_nodes/" + std::to_string(at)) +
                 "): the pods' node affinity needs both expressions to hold, so it never runs "
                 "them, and include_nodes promises a node that cannot be used",
             "remove '" + name + "' from include_nodes (a node with bad NIC firmware) or from "
             "exclude_nodes (a node the job may use)");
  }
}

// scheduling.kueue: the ResourceFlavor carries node_shape.tolerations, and Kueue's topology
// assignment takes a node whose taints they tolerate. One that tolerates the health check's
// taint (every taint, or its key) lets Kueue count, and place the job on, nodes it marked.
void CheckKueueFlavorToleratesHealthTaint(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.scheduling.kueue) return;
  const std::vector<Toleration>& tolerations = p.node_shape.tolerations;
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const Toleration& t = tolerations[i];
    if (!(t.key.empty() && t.operator_name == "Exists") && t.key != kHealthMarkKey) continue;
    r.Report(p.node_shape.pointer + "/tolerations/" + std::to_string(i),
             std::string("this toleration covers the health check's taint ") + kHealthMarkKey +
                 ", and scheduling.kueue's ResourceFlavor carries it: Kueue would place the job "
                 "on nodes the health check tainted",
             "name the taints the GPU nodes carry (key: nvidia.com/gpu, operator: Exists) "
             "instead of tolerating every taint");
  }
}

// One pod per node (required pod anti-affinity on kubernetes.io/hostname): fewer usable
// included nodes than replicas leaves the rest Pending for ever.
void CheckIncludeNodesTooFew(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  const NodeShape& s = p.node_shape;
  if (s.include_nodes.empty()) return;
  const std::set<std::string> excluded(s.exclude_nodes.begin(), s.exclude_nodes.end());
  int usable = 0;
  for (const std::string& name : s.include_nodes) usable += excluded.count(name) ? 0 : 1;
  if (usable >= p.workload.replicas) return;
  r.Report(s.pointer + "/include_nodes",
           "include_nodes leaves " + std::to_string(usable) + " usable node(s) for " +
               std::to_string(p.workload.replicas) +
               " replicas, and the pods run one per node (required pod anti-affinity on "
               "kubernetes.io/hostname): " +
               std::to_string(p.workload.replicas - usable) +
               " pod(s) stay Pending and the job never starts",
           "list at least " + std::to_string(p.workload.replicas) +
               " nodes in include_nodes that exclude_nodes does not name, or lower "
               "workload.replicas to " + std::to_string(usable));
}

// fabric_health.periodic.nodes sized the CronJob's Job (one pod per node) before the check had a
// coordinator; the coordinator lists the pool itself each run, so the value is ignored.
void CheckDeprecatedPeriodicNodes(const LintContext& c, LintReporter& r) {
  const nlohmann::json::json_pointer pointer("/fabric_health/periodic/nodes");
  if (!c.loaded.document.contains(pointer)) return;
  r.Report("/fabric_health/periodic/nodes",
           "fabric_health.periodic.nodes is deprecated and ignored: the nightly check's "
           "coordinator lists the pool's nodes (node_shape.node_selector less exclude_nodes, "
           "within include_nodes) each run",
           "delete the key");
}

// The MachineConfig goes to a pool by role: `worker` is every worker, CPU nodes included, and
// each drains and reboots once per change. Said offline, before a sync does it.
void CheckWorkerPoolReboots(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.iommu.machine_config_role != "worker" || !RendersMachineConfig(p)) return;
  const bool written = c.loaded.locations.values.count(p.iommu.pointer + "/machine_config_role");
  r.Report(p.iommu.pointer + "/machine_config_role",
           std::string("iommu.machine_config_role is worker") + (written ? "" : " (the default)") +
               ": the bundle's MachineConfig goes to the worker pool, so every worker drains "
               "and reboots, CPU nodes included (one at a time, by the pool's maxUnavailable)",
           "where the cluster has workers without GPUs, label the GPU nodes "
           "node-role.kubernetes.io/gpu= and set iommu.machine_config_role: gpu: the bundle "
           "creates MachineConfigPool " + p.cluster_name +
               "-gpu and reboots only them; keep worker where every worker is a GPU node");
}

}  // namespace

std::vector<LintRule> NodeLintRules() {
  return {
      {"lint.include-nodes-too-few", Severity::kError,
       "include_nodes (less exclude_nodes) names at least workload.replicas nodes: pods run one "
       "per node",
       CheckIncludeNodesTooFew},
      {"lint.worker-pool-reboots", Severity::kNote,
       "says when the MachineConfig's role is worker, whose pool reboots every worker, CPU nodes "
       "included",
       CheckWorkerPoolReboots},
      {"lint.deprecated-periodic-nodes", Severity::kNote,
       "no fabric_health.periodic.nodes: the nightly check lists the pool itself",
       CheckDeprecatedPeriodicNodes},
      {"lint.kueue-tolerates-health-taint", Severity::kWarning,
       "with scheduling.kueue, no node_shape toleration covers the health check's taint "
       "(its ResourceFlavor carries them)",
       CheckKueueFlavorToleratesHealthTaint},
      {"lint.node-lists-overlap", Severity::kError,
       "no host name is in both node_shape.include_nodes and node_shape.exclude_nodes",
       CheckNodeListsOverlap},
      {"lint.gpus-idle", Severity::kWarning,
       "one pod per node uses every GPU of the node (gpus_per_pod = gpus_per_node)", CheckGpusIdle},
      {"lint.iommu-rdma", Severity::kError,
       "RDMA needs the IOMMU in passthrough (or off): iommu.policy is not skip", CheckIommuRdma},
      {"lint.iommu-vendor", Severity::kError,
       "the IOMMU kernel arguments match the CPU vendor (iommu=pt alone on AMD, intel_iommu=on on "
       "Intel)",
       CheckIommuVendor},
  };
}

}  // namespace hkim
