#pragma once

// The one table of operator releases hkimgen knows: which component images a Network Operator
// release ships (the NicClusterPolicy's images follow the release the profile pins, never
// constants), and which features a GPU Operator release has. Sources are named per entry in
// model/operator_versions.cc.

#include <optional>
#include <string>
#include <vector>

namespace hkim {

/// One container image of a NicClusterPolicy component.
struct ComponentImage {
  std::string repository;  ///< nvcr.io/nvidia/mellanox
  std::string image;       ///< sriov-network-device-plugin
  std::string version;     ///< network-operator-v25.10.0
};

/// What one NVIDIA Network Operator release deploys (its hack/release.yaml).
struct NetworkOperatorRelease {
  std::string version;        ///< v25.10.0 (the git tag)
  std::string chart_version;  ///< 25.10.0 (Chart.yaml `version`, what Argo CD's targetRevision names)
  std::string source;         ///< where the images were read
  bool chart_deploys_nic_cluster_policy = false;  ///< the chart's `deployCR` (before v24.10.0)
  ComponentImage sriov_device_plugin;
  ComponentImage nv_ipam;
  ComponentImage multus;
  ComponentImage cni_plugins;
  // The SR-IOV and RDMA CNI plugins: the release's images for its bundled SR-IOV Network
  // Operator (hack/release.yaml SriovCni, rdmaCni); the OKE bundle runs them as its own
  // DaemonSets (plan/operators/oke.cc), since the NicClusterPolicy has no field for them.
  ComponentImage sriov_cni;
  ComponentImage rdma_cni;
};

/// Every Network Operator release in the table, oldest first.
const std::vector<NetworkOperatorRelease>& NetworkOperatorReleases();

/// The release `version` (e.g. "v25.10.0"); nullopt when the table does not know it.
std::optional<NetworkOperatorRelease> FindNetworkOperatorRelease(const std::string& version);

/// "v24.7.0, v24.10.0, ..." for messages.
std::string KnownNetworkOperatorVersions();

/// A GPU Operator release as "vYY.M.P", parsed for comparisons.
struct GpuOperatorVersion {
  int year = 0;
  int minor = 0;
  int patch = 0;

  bool AtLeast(int y, int m) const { return year > y || (year == y && minor >= m); }
  /// OLM channel the release is the default of: "v25.10".
  std::string Channel() const;
};

/// Parses "v25.10.1"; nullopt when malformed.
std::optional<GpuOperatorVersion> ParseGpuOperatorVersion(const std::string& text);

/// The oldest GPU Operator minor release hkimgen renders for: v24.9 (BRINGUP-FACTS §1c lists the
/// bundles from v24.9.2 on; earlier ClusterPolicies lack fields the bundle sets).
constexpr int kOldestGpuOperatorYear = 24;
constexpr int kOldestGpuOperatorMinor = 9;

/// kernelModuleType (driver.kernelModuleType) exists from GPU Operator v25.3.0 on (release
/// notes, v25.3.0).
constexpr int kKernelModuleTypeYear = 25;
constexpr int kKernelModuleTypeMinor = 3;

/// `kernelModuleType: auto` picks the open kernel module from this driver branch on (R570).
constexpr int kAutoOpenModuleDriverBranch = 570;

/// VF device id of a NIC's PF device id ("1021" -> "101e"), from sriov-network-operator's
/// supported-nic-ids; nullopt for NICs not in the table.
std::optional<std::string> VfDeviceIdOf(const std::string& pf_device_id);

}  // namespace hkim
