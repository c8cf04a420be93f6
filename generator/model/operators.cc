// Model part: the profile's `operators` -> typed Operators with every platform default filled
// in: each operator's install source (namespace, OLM package or chart) is its definition's
// (model/operator_catalog.cc, with where each comes from); its own settings' defaults are here.
// OKE (seed 004, oci-hpc-oke README @001cbb9): driver.enabled=false,
// driver.rdma.useHostMofed=true on the OCI GPU image.

#include "model/operators.h"

#include "model/model.h"

#include <cstdlib>

#include "model/operator_catalog.h"
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
const json* Section(const json& operators, const std::string& key) {
  auto it = operators.find(key);
  return it != operators.end() && it->is_object() ? &*it : nullptr;
}

// Fills what every operator has; `defaults` carries the platform's values.
void ReadCommon(const json& o, const OperatorFacts& self, const InstallSource& defaults,
                OperatorCommon& out) {
  out.key = self.key;
  out.pointer = self.Pointer();
  out.install = ParseOperatorInstall(Text(o, "install", "managed"));
  out.namespace_name = Text(o, "namespace", defaults.namespace_name);
  out.package = defaults.package;
  out.channel = Text(o, "channel", defaults.channel);
  out.source = Text(o, "source", defaults.source);
  out.source_namespace = Text(o, "source_namespace", out.source_namespace);
  out.approval = Text(o, "install_plan_approval", "Automatic") == "Manual"
                     ? InstallPlanApproval::kManual
                     : InstallPlanApproval::kAutomatic;
  out.starting_csv = Text(o, "starting_csv", "");
  out.chart = defaults.chart;
  out.repo_url = Text(o, "repo_url", defaults.repo_url);
}

}  // namespace

void ReadGpuOperator(const OperatorFacts& self, const json& o, bool openshift, const std::string&,
                     Operators& out) {
  GpuOperator g;
  g.version = Text(o, "version", g.version);
  InstallSource defaults = self.InstallOn(openshift);
  // Each certified bundle's default channel is v<YY.M> (bundle/metadata/annotations.yaml).
  if (auto v = ParseGpuOperatorVersion(g.version); v && openshift) defaults.channel = v->Channel();
  ReadCommon(o, self, defaults, g);
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
  out.gpu_operator = std::move(g);
}

void ReadSriovNetworkOperator(const OperatorFacts& self, const json& o, bool openshift,
                              const std::string&, Operators& out) {
  SriovNetworkOperator s;
  ReadCommon(o, self, self.InstallOn(openshift), s);
  s.node_policies = Bool(o, "node_policies", true);
  s.num_vfs_per_pf = Int(o, "num_vfs_per_pf", 1);
  s.priority = Int(o, "priority", 99);
  if (auto it = o.find("node_selector"); it != o.end() && it->is_object()) {
    for (auto entry = it->begin(); entry != it->end(); ++entry) {
      if (entry->is_string()) s.node_selector[entry.key()] = entry->get<std::string>();
    }
  }
  s.disable_drain = Bool(o, "disable_drain", false);
  out.sriov_network_operator = std::move(s);
}

void ReadNfd(const OperatorFacts& self, const json& o, bool openshift, const std::string&,
             Operators& out) {
  NfdOperator nfd;
  ReadCommon(o, self, self.InstallOn(openshift), nfd);
  nfd.operand_image = Text(o, "operand_image", "");
  if (nfd.operand_image.empty() && !out.openshift_version.empty())
    nfd.operand_image = NfdOperandImage(out.openshift_version);
  out.nfd = std::move(nfd);
}

void ReadNetworkOperator(const OperatorFacts& self, const json& o, bool openshift,
                         const std::string&, Operators& out) {
  NetworkOperator n;
  n.version = Text(o, "version", n.version);
  ReadCommon(o, self, self.InstallOn(openshift), n);
  n.secondary_network = Bool(o, "secondary_network", true);
  out.network_operator = std::move(n);
}

void ReadVfConfig(const OperatorFacts& self, const json& o, bool, const std::string& cluster_name,
                  Operators& out) {
  VfConfig v;
  v.key = self.key;
  v.pointer = self.Pointer();
  v.install = ParseOperatorInstall(Text(o, "install", "managed"));
  v.vfs_per_pf = Int(o, "vfs_per_pf", v.vfs_per_pf);
  v.image = Text(o, "image", v.image);
  v.mtu_bytes = Int(o, "mtu_bytes", v.mtu_bytes);
  v.privileged = Bool(o, "privileged", false);
  v.namespace_name = Text(o, "namespace", cluster_name + "-vf-config");
  out.vf_config = std::move(v);
}

void ReadVolcano(const OperatorFacts& self, const json& o, bool openshift, const std::string&,
                 Operators& out) {
  Volcano v;
  v.version = Text(o, "version", v.version);
  ReadCommon(o, self, self.InstallOn(openshift), v);
  out.volcano = std::move(v);
}

void ReadKueue(const OperatorFacts& self, const json& o, bool openshift, const std::string&,
               Operators& out) {
  Kueue k;
  k.version = Text(o, "version", k.version);
  ReadCommon(o, self, self.InstallOn(openshift), k);
  out.kueue = std::move(k);
}

Operators ReadOperators(const json& operators, bool openshift, const std::string& cluster_name) {
  Operators out;
  const json empty = json::object();
  out.openshift_version = Text(operators, "openshift_version", "");
  // An operator the profile lists is read whatever the platform (lint reports one of the other
  // platform); one it does not list is managed with its defaults where the platform has it so.
  for (const OperatorFacts& facts : OperatorCatalog()) {
    const json* section = Section(operators, facts.key);
    if (!section && (openshift ? facts.default_on_openshift : facts.default_on_kubernetes))
      section = &empty;
    if (section) facts.read(facts, *section, openshift, cluster_name, out);
  }
  return out;
}

}  // namespace hkim
