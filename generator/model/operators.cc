// Model part: the profile's `operators` -> typed Operators with every platform default filled
// in. Defaults and where each comes from (BRINGUP-FACTS.md in the shared notes):
//   OpenShift OLM (OCP 4.22 install docs): SR-IOV in openshift-sriov-network-operator, package
//   sriov-network-operator, channel stable, redhat-operators; NFD in openshift-nfd, package nfd,
//   channel stable, redhat-operators; GPU Operator in nvidia-gpu-operator, package
//   gpu-operator-certified, certified-operators, channel v<YY.M> (NVIDIA/gpu-operator
//   bundle/metadata/annotations.yaml: the vYY.M channel is each bundle's default).
//   OKE Helm (seed 004, oci-hpc-oke README @001cbb9): charts nvidia/gpu-operator and
//   nvidia/network-operator from https://helm.ngc.nvidia.com/nvidia, namespaces gpu-operator and
//   network-operator; driver.enabled=false, driver.rdma.useHostMofed=true on the OCI GPU image.

#include "model/operators.h"

#include "model/model.h"

#include <cstdlib>

#include "model/operator_versions.h"

namespace hkim {

const char* ToString(OperatorInstall value) {
  switch (value) {
    case OperatorInstall::kManaged:
      return "managed";
    case OperatorInstall::kPreinstalled:
      return "preinstalled";
    case OperatorInstall::kShared:
      return "shared";
  }
  return "managed";
}

OperatorInstall ParseOperatorInstall(const std::string& text) {
  if (text == "preinstalled") return OperatorInstall::kPreinstalled;
  if (text == "shared") return OperatorInstall::kShared;
  return OperatorInstall::kManaged;
}
const char* ToString(InstallPlanApproval value) {
  return value == InstallPlanApproval::kAutomatic ? "Automatic" : "Manual";
}
const char* ToString(KernelModuleType value) {
  switch (value) {
    case KernelModuleType::kAuto:
      return "auto";
    case KernelModuleType::kOpen:
      return "open";
    case KernelModuleType::kProprietary:
      return "proprietary";
  }
  return "?";
}
const char* ToString(GpuOperatorRdma value) {
  switch (value) {
    case GpuOperatorRdma::kFollow:
      return "follow";
    case GpuOperatorRdma::kNvidiaPeermem:
      return "nvidia-peermem";
    case GpuOperatorRdma::kDmaBuf:
      return "dmabuf";
    case GpuOperatorRdma::kOff:
      return "off";
  }
  return "?";
}

std::string NfdOperandImage(const std::string& openshift_version) {
  // "requires a -rhel9 image for 4.13 and later" (OCP NFD Operator docs).
  int minor = 0;
  if (openshift_version.rfind("4.", 0) == 0) minor = std::atoi(openshift_version.c_str() + 2);
  const char* image = minor >= 13 ? "ose-node-feature-discovery-rhel9" : "ose-node-feature-discovery";
  return std::string("registry.redhat.io/openshift4/") + image + ":v" + openshift_version;
}

GpuDirectSettings ResolveGpuDirect(const GpuOperator& gpu, GpuDirect nccl_gpudirect) {
  GpuDirectSettings out;
  out.use_host_mofed = gpu.use_host_mofed;
  out.mode = gpu.rdma;
  if (out.mode == GpuOperatorRdma::kFollow) {
    switch (nccl_gpudirect) {
      case GpuDirect::kDmaBuf:
        out.mode = GpuOperatorRdma::kDmaBuf;
        break;
      case GpuDirect::kNvidiaPeermem:
        out.mode = GpuOperatorRdma::kNvidiaPeermem;
        break;
      case GpuDirect::kAuto:
        out.mode = gpu.use_host_mofed ? GpuOperatorRdma::kNvidiaPeermem : GpuOperatorRdma::kDmaBuf;
        break;
    }
  }
  out.rdma_enabled = out.mode == GpuOperatorRdma::kNvidiaPeermem;
  auto version = ParseGpuOperatorVersion(gpu.version);
  out.has_kernel_module_type =
      version && version->AtLeast(kKernelModuleTypeYear, kKernelModuleTypeMinor);
  KernelModuleType module = gpu.kernel_module_type;
  if (out.mode == GpuOperatorRdma::kDmaBuf && module == KernelModuleType::kAuto &&
      gpu.driver_branch < kAutoOpenModuleDriverBranch) {
    module = KernelModuleType::kOpen;
  }
  out.kernel_module_type = ToString(module);
  switch (out.mode) {
    case GpuOperatorRdma::kNvidiaPeermem:
      out.note = std::string("legacy nvidia-peermem (driver.rdma.enabled=true") +
                 (gpu.use_host_mofed ? ", MOFED on the host" : "") + "), nccl.gpudirect " +
                 ToString(nccl_gpudirect);
      break;
    case GpuOperatorRdma::kDmaBuf:
      out.note = std::string("DMA-BUF (no nvidia-peermem; kernelModuleType ") +
                 out.kernel_module_type + "), nccl.gpudirect " + ToString(nccl_gpudirect);
      break;
    default:
      out.note = std::string("off (no nvidia-peermem), nccl.gpudirect ") + ToString(nccl_gpudirect);
  }
  return out;
}

namespace {

using nlohmann::json;

constexpr const char* kNvidiaHelmRepo = "https://helm.ngc.nvidia.com/nvidia";
constexpr const char* kVolcanoHelmRepo = "https://volcano-sh.github.io/helm-charts";
// Kueue's released charts (kubernetes-sigs/kueue, "Install with Helm"; oci-hpc-oke installs the
// same chart).
constexpr const char* kKueueHelmRepo = "oci://registry.k8s.io/kueue/charts";

std::string Text(const json& object, const char* key, const std::string& fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}
int Int(const json& object, const char* key, int fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : fallback;
}
bool Bool(const json& object, const char* key, bool fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

/// The operator's object, or nullptr when the profile does not list it.
const json* Section(const json& operators, const char* key) {
  auto it = operators.find(key);
  return it != operators.end() && it->is_object() ? &*it : nullptr;
}

// Fills what every operator has; `defaults` carries the platform's values.
void ReadCommon(const json& o, const char* key, OperatorCommon defaults, OperatorCommon& out) {
  const std::string pointer = std::string("/operators/") + key;
  out = defaults;
  out.pointer = pointer;
  out.install = ParseOperatorInstall(Text(o, "install", "managed"));
  out.namespace_name = Text(o, "namespace", defaults.namespace_name);
  out.channel = Text(o, "channel", defaults.channel);
  out.source = Text(o, "source", defaults.source);
  out.source_namespace = Text(o, "source_namespace", defaults.source_namespace);
  out.approval = Text(o, "install_plan_approval", "Automatic") == "Manual"
                     ? InstallPlanApproval::kManual
                     : InstallPlanApproval::kAutomatic;
  out.starting_csv = Text(o, "starting_csv", "");
  out.repo_url = Text(o, "repo_url", defaults.repo_url);
}

OperatorCommon Olm(const char* ns, const char* package, const char* channel, const char* source) {
  OperatorCommon c;
  c.namespace_name = ns;
  c.package = package;
  c.channel = channel;
  c.source = source;
  return c;
}

OperatorCommon Chart(const char* ns, const char* chart, const char* repo) {
  OperatorCommon c;
  c.namespace_name = ns;
  c.chart = chart;
  c.repo_url = repo;
  return c;
}

GpuOperator ReadGpuOperator(const json& o, bool openshift) {
  GpuOperator g;
  g.version = Text(o, "version", g.version);
  std::string channel = "stable";
  if (auto v = ParseGpuOperatorVersion(g.version)) channel = v->Channel();
  ReadCommon(o, "gpu_operator",
             openshift ? Olm("nvidia-gpu-operator", "gpu-operator-certified", channel.c_str(),
                             "certified-operators")
                       : Chart("gpu-operator", "gpu-operator", kNvidiaHelmRepo),
             g);
  const json driver = o.value("driver", json::object());
  g.driver_enabled = Bool(driver, "enabled", openshift);
  g.driver_branch = Int(driver, "branch", g.driver_branch);
  const std::string module = Text(driver, "kernel_module_type", "auto");
  g.kernel_module_type = module == "open"          ? KernelModuleType::kOpen
                         : module == "proprietary" ? KernelModuleType::kProprietary
                                                   : KernelModuleType::kAuto;
  const std::string rdma = Text(o, "rdma", "follow");
  g.rdma = rdma == "nvidia-peermem" ? GpuOperatorRdma::kNvidiaPeermem
           : rdma == "dmabuf"       ? GpuOperatorRdma::kDmaBuf
           : rdma == "off"          ? GpuOperatorRdma::kOff
                                    : GpuOperatorRdma::kFollow;
  g.use_host_mofed = Bool(o, "use_host_mofed", !openshift);
  return g;
}

SriovNetworkOperator ReadSriov(const json& o) {
  SriovNetworkOperator s;
  ReadCommon(o, "sriov_network_operator",
             Olm("openshift-sriov-network-operator", "sriov-network-operator", "stable",
                 "redhat-operators"),
             s);
  s.node_policies = Bool(o, "node_policies", true);
  s.num_vfs_per_pf = Int(o, "num_vfs_per_pf", 1);
  s.priority = Int(o, "priority", 99);
  if (auto it = o.find("node_selector"); it != o.end() && it->is_object()) {
    for (auto entry = it->begin(); entry != it->end(); ++entry) {
      if (entry->is_string()) s.node_selector[entry.key()] = entry->get<std::string>();
    }
  }
  s.disable_drain = Bool(o, "disable_drain", false);
  return s;
}

}  // namespace

Operators ReadOperators(const json& operators, bool openshift, const std::string& cluster_name) {
  Operators out;
  const json empty = json::object();
  auto listed_or_default = [&](const char* key, bool platform_default) -> const json* {
    if (const json* section = Section(operators, key)) return section;
    return platform_default ? &empty : nullptr;
  };
  out.openshift_version = Text(operators, "openshift_version", "");
  if (const json* o = listed_or_default("sriov_network_operator", openshift)) {
    out.sriov_network_operator = ReadSriov(*o);
  }
  if (const json* o = listed_or_default("nfd", openshift)) {
    NfdOperator nfd;
    ReadCommon(*o, "nfd", Olm("openshift-nfd", "nfd", "stable", "redhat-operators"), nfd);
    nfd.operand_image = Text(*o, "operand_image", "");
    if (nfd.operand_image.empty() && !out.openshift_version.empty())
      nfd.operand_image = NfdOperandImage(out.openshift_version);
    out.nfd = std::move(nfd);
  }
  if (const json* o = listed_or_default("gpu_operator", true)) {
    out.gpu_operator = ReadGpuOperator(*o, openshift);
  }
  if (const json* o = listed_or_default("network_operator", !openshift)) {
    NetworkOperator n;
    n.version = Text(*o, "version", n.version);
    ReadCommon(*o, "network_operator",
               Chart("network-operator", "network-operator", kNvidiaHelmRepo), n);
    n.secondary_network = Bool(*o, "secondary_network", true);
    out.network_operator = std::move(n);
  }
  if (const json* o = listed_or_default("vf_config", !openshift)) {
    VfConfig v;
    v.pointer = "/operators/vf_config";
    v.install = ParseOperatorInstall(Text(*o, "install", "managed"));
    v.vfs_per_pf = Int(*o, "vfs_per_pf", v.vfs_per_pf);
    v.image = Text(*o, "image", v.image);
    v.mtu_bytes = Int(*o, "mtu_bytes", v.mtu_bytes);
    v.privileged = Bool(*o, "privileged", false);
    v.namespace_name = Text(*o, "namespace", cluster_name + "-vf-config");
    out.vf_config = std::move(v);
  }
  if (const json* o = Section(operators, "volcano")) {
    Volcano v;
    v.version = Text(*o, "version", v.version);
    ReadCommon(*o, "volcano", Chart("volcano-system", "volcano", kVolcanoHelmRepo), v);
    out.volcano = std::move(v);
  }
  if (const json* o = Section(operators, "kueue")) {
    Kueue k;
    k.version = Text(*o, "version", k.version);
    // OpenShift: the Red Hat build of Kueue (openshift/kueue-operator bundle: package
    // kueue-operator, channel stable, suggested namespace openshift-kueue-operator), which the
    // cluster's admins install (model/scheduling.cc refuses managed there).
    ReadCommon(*o, "kueue",
               openshift ? Olm("openshift-kueue-operator", "kueue-operator", "stable",
                               "redhat-operators")
                         : Chart("kueue-system", "kueue", kKueueHelmRepo),
               k);
    out.kueue = std::move(k);
  }
  return out;
}

}  // namespace hkim
