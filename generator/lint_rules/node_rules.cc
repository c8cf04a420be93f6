// Node shape: GPUs per pod, IOMMU policy and its kernel arguments.

#include <map>

#include "lint_rules.h"

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
  r.Report(p.node_shape.pointer + "/cpu_vendor",
           std::string("the IOMMU MachineConfig would add ") +
               (amd ? "intel_iommu=on" : "amd_iommu=on") + " iommu=pt, but " + source + " has " +
               (amd ? "AMD" : "Intel") + " CPUs: " + (amd ? "amd_iommu=on" : "intel_iommu=on") +
               " is missing and iommu=pt alone has no effect (Barcelona's EPYC nodes kept zero "
               "IOMMU groups)",
           std::string("set node_shape.cpu_vendor: ") + (amd ? "amd" : "intel"));
}

}  // namespace

std::vector<LintRule> NodeLintRules() {
  return {
      {"lint.gpus-idle", Severity::kWarning,
       "one pod per node uses every GPU of the node (gpus_per_pod = gpus_per_node)", CheckGpusIdle},
      {"lint.iommu-rdma", Severity::kError,
       "RDMA needs the IOMMU in passthrough (or off): iommu.policy is not skip", CheckIommuRdma},
      {"lint.iommu-vendor", Severity::kError,
       "the IOMMU kernel arguments match the CPU vendor (amd_iommu=on on AMD, intel_iommu=on on "
       "Intel)",
       CheckIommuVendor},
  };
}

}  // namespace hkim
