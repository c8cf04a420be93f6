#pragma once

// The release catalog: every GPU Operator and Network Operator release hkimgen renders for, read
// from catalog/releases.json (embedded at build time; scripts/release-catalog.py regenerates it
// from the release tags and says what changed). Per release: what its chart or bundle deploys
// (the images `hkimgen images` and `-o imageset` list, the NicClusterPolicy's component images),
// its OLM CSV and channel, the OpenShift and Kubernetes versions it declares, its CRDs, and its
// source; beside them, the GPU Operator's support status per line and the combinations users
// reported broken; and the NCCL variable names each NCCL release reads. Every stage asks this
// table; none keeps its own list of versions.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hkim {

/// One container image of a NicClusterPolicy component (hack/release.yaml).
struct ComponentImage {
  std::string repository;  ///< nvcr.io/nvidia/mellanox
  std::string image;       ///< sriov-network-device-plugin
  std::string version;     ///< network-operator-v25.10.0
};

/// One image a chart's values name (values.yaml at the release tag).
struct ChartImage {
  std::string component;   ///< the values key: "toolkit", "driver.manager", "node-feature-discovery"
  std::string repository;  ///< "" where the chart leaves it to the user (vgpuManager)
  std::string image;       ///< "" where repository is the whole name (NFD: image.repository)
  std::string version;     ///< the default tag
  bool enabled = false;    ///< the chart's default `enabled`
  /// What else must be on for the operator to deploy it: "" (nothing), "driver"
  /// (driver.enabled), "sandboxWorkloads", "gpuCluster" (GPU Operator); "nfd", "ofedDriver"
  /// (Network Operator).
  std::string needs;
};

/// What every NVIDIA operator release in the catalog records: its tag and chart, where it was
/// read from, the chart's images and CRDs.
struct ChartRelease {
  std::string version;        ///< v25.10.0 (the git tag)
  std::string chart_version;  ///< 25.10.0 (Chart.yaml `version`, what Argo CD's targetRevision names)
  std::string date;           ///< the tag's commit date, YYYY-MM-DD
  std::string source;         ///< repository, tag, commit and files it was read from
  std::string kubernetes;     ///< Chart.yaml kubeVersion, e.g. ">= 1.21.0-0"
  std::vector<ChartImage> images;            ///< the chart's own (operator, init container, NFD)
  std::map<std::string, std::string> crds;   ///< crds/ file -> content hash
};

/// What one NVIDIA Network Operator release deploys.
struct NetworkOperatorRelease : ChartRelease {
  bool chart_deploys_nic_cluster_policy = false;  ///< the chart's `deployCR` (before v24.10.0)
  ComponentImage doca_driver;  ///< hack/release.yaml Mofed: the DOCA driver container
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

/// What one NVIDIA GPU Operator release deploys, and how OLM names it.
/// Its chart_version is the published chart's, v25.10.1, as its tag.
struct GpuOperatorRelease : ChartRelease {
  std::string channel;         ///< the bundle's default OLM channel, e.g. v25.10
  std::string csv;             ///< gpu-operator-certified.v25.10.1
  std::string replaces;        ///< the CSV it replaces in the channel graph
  std::string openshift;       ///< com.redhat.openshift.versions, e.g. "v4.14-v4.20"
  std::string driver;          ///< the chart's default driver version
  std::vector<std::string> bundle_images;  ///< the CSV's relatedImages, names without tag/digest
};

/// A combination users reported broken, with its reference.
struct KnownBadCombination {
  std::string operator_key;  ///< "network_operator" or "gpu_operator"
  std::string version;       ///< the operator release; "" = any that ships `doca_driver`
  std::string doca_driver;   ///< "" = any
  std::string openshift;     ///< "4.21.9" (a z-stream) or "4.21" (a minor); "" = any
  std::string what;
  std::string reference;
};

/// One NCCL release: the environment variable names its own sources (src/) read.
struct NcclRelease {
  std::string version;  ///< the tag, v2.30.7-1 (the last of its minor)
  std::string date;
  std::string source;
  std::vector<std::string> names;  ///< sorted
};

/// The CSV Red Hat's SR-IOV or NFD operator ships for one OpenShift minor (the release-4.x
/// branch of its source; the catalog's CSVs add a build suffix to this name).
struct OpenShiftOperatorCsv {
  std::string csv;  ///< sriov-network-operator.v4.19.0
  std::string skip_range;
  std::string source;
};

/// One Kueue release (kubernetes-sigs/kueue at its tag): the chart Argo CD installs
/// (oci://registry.k8s.io/kueue/charts/kueue), the controller image the released chart runs, and
/// the kueue.x-k8s.io API versions its CRDs serve (the chart's templates/crd at the tag).
struct KueueRelease {
  std::string version;        ///< v0.19.2 (the tag)
  std::string chart_version;  ///< 0.19.2 (Chart.yaml `version`, the chart's targetRevision)
  std::string date;
  std::string source;
  std::vector<std::string> served;  ///< kueue.x-k8s.io versions the CRDs serve, oldest first
  std::string storage;              ///< the one they store
  std::string image;                ///< registry.k8s.io/kueue/kueue:v0.19.2
};

/// One Volcano release (volcano-sh/volcano at its tag): the chart (volcano-sh.github.io/
/// helm-charts, chart `volcano`) and the images it runs with its default values.
struct VolcanoRelease {
  std::string version;        ///< v1.15.1 (the tag)
  std::string chart_version;  ///< 1.15.1 (installer/helm/chart/volcano/Chart.yaml `version`)
  std::string date;
  std::string source;
  std::vector<std::string> images;  ///< names under the chart's image registry: volcanosh/vc-scheduler
};

/// Every release of the catalog, oldest first.
const std::vector<GpuOperatorRelease>& GpuOperatorReleases();
const std::vector<NetworkOperatorRelease>& NetworkOperatorReleases();
const std::vector<KnownBadCombination>& KnownBadCombinations();
const std::vector<NcclRelease>& NcclReleases();

/// The CSV of operator `key` ("sriov_network_operator" or "nfd") for OpenShift `minor` ("4.19");
/// nullopt when the catalog has none.
std::optional<OpenShiftOperatorCsv> OpenShiftOperatorCsvFor(const std::string& key,
                                                            const std::string& minor);

/// Every NCCL_* name a release of the catalog reads, sorted (lint.nccl-env-name).
const std::vector<std::string>& NcclEnvNames();

const std::vector<KueueRelease>& KueueReleases();
const std::vector<VolcanoRelease>& VolcanoReleases();
/// The Kueue or Volcano release of tag `version` ("v0.19.2"; the chart's "0.19.2" too); nullopt
/// when the catalog does not know it.
std::optional<KueueRelease> FindKueueRelease(const std::string& version);
std::optional<VolcanoRelease> FindVolcanoRelease(const std::string& version);
/// The release `version` (e.g. "v25.10.0"); nullopt when the catalog does not know it.
std::optional<GpuOperatorRelease> FindGpuOperatorRelease(const std::string& version);
std::optional<NetworkOperatorRelease> FindNetworkOperatorRelease(const std::string& version);

/// "v24.9.0, v24.9.1, ..." for messages.
std::string KnownGpuOperatorVersions();
std::string KnownNetworkOperatorVersions();
std::string KnownKueueVersions();
std::string KnownVolcanoVersions();

/// The GPU Operator support status of a release's line ("v25.10"): "supported", "deprecated",
/// "end-of-support", or "" when the life-cycle table does not name it; `source` gets where the
/// table was read.
std::string GpuOperatorSupport(const std::string& version, std::string* source = nullptr);

/// The newest GPU Operator release of a line the life-cycle table calls "supported" (else
/// "deprecated"), whose CSV declares OpenShift `openshift` ("4.20") when it is not empty: the
/// release `hkimgen init` pins. nullopt when the catalog has none.
std::optional<GpuOperatorRelease> NewestSupportedGpuOperatorRelease(const std::string& openshift);

/// Whether `openshift` ("4.20" or "4.20.3") lies in a CSV's range annotation ("v4.14-v4.20");
/// nullopt when either cannot be read.
std::optional<bool> OpenShiftInRange(const std::string& openshift, const std::string& range);

/// A GPU Operator release as "vYY.M.P", parsed for comparisons.
struct GpuOperatorVersion {
  int year = 0;
  int minor = 0;
  int patch = 0;

  bool AtLeast(int y, int m) const { return year > y || (year == y && minor >= m); }
  /// OLM channel the release is the default of: "v25.10".
  std::string Channel() const;
};

/// Parses "v25.10.1" (also a Network Operator tag); nullopt when malformed.
std::optional<GpuOperatorVersion> ParseGpuOperatorVersion(const std::string& text);

/// The numbers of an operator version as a Subscription, a chart or a cluster names it: a
/// channel "v25.10", a release "v25.10.1" or "25.10.0", or a CSV
/// "gpu-operator-certified.v25.10.1" (the part after the package name). nullopt for a name that
/// is no version ("stable", "alpha", "25.10.0-rc1").
std::optional<std::vector<int>> ParseOperatorVersion(std::string_view text);

/// Whether `version` is older than `than`, both versions (ParseOperatorVersion); false when
/// either is not one. The one comparison of operator versions (diff, validate --cluster).
bool IsOlderVersion(std::string_view version, std::string_view than);

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
