#pragma once

// The typed `operators` part of the profile (model/operators.cc reads it): who installs each
// operator the bundle relies on, pinned to which release, and the settings of the objects the
// bundle renders for it. Platform-dependent defaults (namespaces, sources, driver settings) are
// applied when reading, so later stages never guess. schemas/profile.schema.json documents each
// field and where its default comes from.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hkim {

/// kShared: another profile of the same cluster (same Argo CD destination) manages the operator
/// and its cluster-wide CR; this bundle renders neither (fleet/cluster_sharing.h checks the set).
enum class OperatorInstall { kManaged, kPreinstalled, kShared };
enum class InstallPlanApproval { kAutomatic, kManual };
enum class KernelModuleType { kAuto, kOpen, kProprietary };
/// The GPU Operator's GPUDirect RDMA mode; kFollow = from nccl.gpudirect.
enum class GpuOperatorRdma { kFollow, kNvidiaPeermem, kDmaBuf, kOff };

const char* ToString(OperatorInstall value);
/// The schema's spelling ("managed", "preinstalled", "shared") to the enum; managed otherwise.
OperatorInstall ParseOperatorInstall(const std::string& text);
const char* ToString(InstallPlanApproval value);
const char* ToString(KernelModuleType value);
const char* ToString(GpuOperatorRdma value);

/// What every operator has: who installs it, where it runs, and how (OLM or Helm).
struct OperatorCommon {
  std::string key;  ///< operators.<key>: its definition (model/operator_catalog.h)
  OperatorInstall install = OperatorInstall::kManaged;
  /// The release the profile pins ("v25.10.1"); "" for an operator without a release line.
  std::string version;
  std::string namespace_name;
  // OpenShift (OLM Subscription).
  std::string package;  ///< OLM package name, e.g. sriov-network-operator
  std::string channel;
  std::string source;
  std::string source_namespace = "openshift-marketplace";
  InstallPlanApproval approval = InstallPlanApproval::kAutomatic;
  std::string starting_csv;  ///< empty = none
  // OKE / Kubernetes (Helm chart through an Argo CD Application).
  std::string repo_url;
  std::string chart;
  std::string pointer;  ///< "/operators/<key>"

  bool managed() const { return install == OperatorInstall::kManaged; }
};

struct SriovNetworkOperator : OperatorCommon {
  bool node_policies = true;
  int num_vfs_per_pf = 1;
  int priority = 99;
  std::map<std::string, std::string> node_selector;  ///< empty = shape selector + MCP role
  bool disable_drain = false;
};

struct NfdOperator : OperatorCommon {
  std::string operand_image;  ///< filled from openshift_version when not given
};

struct GpuOperator : OperatorCommon {
  GpuOperator() { version = "v25.10.1"; }
  bool driver_enabled = true;
  int driver_branch = 580;
  KernelModuleType kernel_module_type = KernelModuleType::kAuto;
  GpuOperatorRdma rdma = GpuOperatorRdma::kFollow;
  bool use_host_mofed = false;
};

struct NetworkOperator : OperatorCommon {
  NetworkOperator() { version = "v25.10.0"; }
  bool secondary_network = true;
};

/// OKE: the node agents that make the rails' VFs usable (operators.vf_config): no OLM package or
/// chart (its `package`, `chart` and `repo_url` stay empty), but installed, preinstalled or shared
/// as every operator is.
struct VfConfig : OperatorCommon {
  int vfs_per_pf = 1;
  std::string image = "docker.io/library/oraclelinux:9";
  int mtu_bytes = 4220;
  bool privileged = false;
};

struct Volcano : OperatorCommon {
  Volcano() { version = "1.15.1"; }
};

/// Kueue (scheduling.kueue's queues and Topology): its Helm chart on OKE/Kubernetes; on
/// OpenShift only preinstalled (model/scheduling.cc refuses managed there).
struct Kueue : OperatorCommon {
  Kueue() { version = "v0.19.2"; }
};

/// The profile's `operators`; only the platform's operators are set.
struct Operators {
  std::string openshift_version;  ///< "4.20"; OpenShift only
  std::optional<SriovNetworkOperator> sriov_network_operator;  ///< OpenShift
  std::optional<NfdOperator> nfd;                              ///< OpenShift
  std::optional<GpuOperator> gpu_operator;                     ///< both platforms
  std::optional<NetworkOperator> network_operator;             ///< OKE / Kubernetes
  std::optional<VfConfig> vf_config;                           ///< OKE / Kubernetes
  std::optional<Volcano> volcano;                              ///< OKE / Kubernetes, opt-in
  std::optional<Kueue> kueue;                                  ///< opt-in (scheduling.kueue)
  std::string pointer = "/operators";
};

/// Reads a schema-valid `operators` object for a cluster on OpenShift (`openshift`) or on
/// OKE/Kubernetes, filling every default: an operator of the platform that is not listed is
/// managed with its defaults; operators listed for the other platform are kept (lint reports
/// them) but get that platform's defaults. `cluster_name` names the VF DaemonSet's namespace.
/// Pure: reports nothing (the schema checked types and ranges; lint checks combinations).
Operators ReadOperators(const nlohmann::json& operators, bool openshift,
                        const std::string& cluster_name);

struct OperatorFacts;  // model/operator_catalog.h: an operator's definition

/// Each definition's `read` (model/operator_catalog.h): the profile's schema-valid `section` of
/// operator `self` (an empty object where the platform's default applies) -> its typed operator
/// in `out`, with `self`'s install source for the platform as the defaults.
void ReadSriovNetworkOperator(const OperatorFacts& self, const nlohmann::json& section,
                              bool openshift, const std::string& cluster_name, Operators& out);
void ReadNfd(const OperatorFacts& self, const nlohmann::json& section, bool openshift,
             const std::string& cluster_name, Operators& out);
void ReadGpuOperator(const OperatorFacts& self, const nlohmann::json& section, bool openshift,
                     const std::string& cluster_name, Operators& out);
void ReadNetworkOperator(const OperatorFacts& self, const nlohmann::json& section, bool openshift,
                         const std::string& cluster_name, Operators& out);
void ReadVfConfig(const OperatorFacts& self, const nlohmann::json& section, bool openshift,
                  const std::string& cluster_name, Operators& out);
void ReadVolcano(const OperatorFacts& self, const nlohmann::json& section, bool openshift,
                 const std::string& cluster_name, Operators& out);
void ReadKueue(const OperatorFacts& self, const nlohmann::json& section, bool openshift,
               const std::string& cluster_name, Operators& out);

enum class GpuDirect;  // model/model.h: the profile's nccl.gpudirect

/// The GPU Operator's GPUDirect RDMA settings as the bundle renders them (ClusterPolicy on
/// OpenShift, chart values on OKE), resolved from `gpu` and nccl.gpudirect.
struct GpuDirectSettings {
  GpuOperatorRdma mode = GpuOperatorRdma::kOff;  ///< never kFollow
  bool rdma_enabled = false;                     ///< driver.rdma.enabled (legacy nvidia-peermem)
  bool use_host_mofed = false;                   ///< driver.rdma.useHostMofed
  bool has_kernel_module_type = false;           ///< the release has driver.kernelModuleType
  std::string kernel_module_type;                ///< auto | open | proprietary
  std::string note;                              ///< one line: why, for a comment in the output
};

/// Resolves `gpu.rdma` (kFollow: from nccl.gpudirect; auto = nvidia-peermem where the host has
/// MOFED, else DMA-BUF, as NVIDIA recommends) and the kernel module type (DMA-BUF needs the open
/// module; `auto` only picks it from R570 on, so DMA-BUF with an older branch renders `open`).
GpuDirectSettings ResolveGpuDirect(const GpuOperator& gpu, GpuDirect nccl_gpudirect);

/// The NFD operand image for an OpenShift minor version ("4.20"), as the OCP docs name it.
std::string NfdOperandImage(const std::string& openshift_version);

}  // namespace hkim
