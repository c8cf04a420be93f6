// The operator release table (model/operator_versions.h). Network Operator rows are read from each
// release tag's hack/release.yaml (component images) and deployment/network-operator/Chart.yaml
// (chart version) in github.com/Mellanox/network-operator; `chart_deploys_nic_cluster_policy` is
// whether that tag's chart values still have `deployCR` (removed in 8fc96f20, first in v24.10.0,
// "Remove Helm deployment of NICClusterPolicy"). Add a row per new release, never edit old ones.

#include "model/operator_versions.h"

#include <cstdio>

namespace hkim {

const std::vector<NetworkOperatorRelease>& NetworkOperatorReleases() {
  // clang-format off
  static const std::vector<NetworkOperatorRelease> releases = {
      {"v24.7.0", "24.7.0", "Mellanox/network-operator v24.7.0 (eb9a5223d72b) hack/release.yaml", true,
       {"ghcr.io/k8snetworkplumbingwg", "sriov-network-device-plugin", "v3.7.0"},
       {"ghcr.io/mellanox", "nvidia-k8s-ipam", "v0.2.0"},
       {"ghcr.io/k8snetworkplumbingwg", "multus-cni", "v3.9.3"},
       {"ghcr.io/k8snetworkplumbingwg", "plugins", "v1.5.0"},
       {"ghcr.io/k8snetworkplumbingwg", "sriov-cni", "v2.8.1"},
       {"ghcr.io/k8snetworkplumbingwg", "rdma-cni", "v1.2.0"}},
      {"v24.10.0", "24.10.0", "Mellanox/network-operator v24.10.0 (81c646ba487c) hack/release.yaml", false,
       {"ghcr.io/k8snetworkplumbingwg", "sriov-network-device-plugin", "v3.8.0"},
       {"ghcr.io/mellanox", "nvidia-k8s-ipam", "v0.2.0"},
       {"ghcr.io/k8snetworkplumbingwg", "multus-cni", "v4.1.0"},
       {"ghcr.io/k8snetworkplumbingwg", "plugins", "v1.5.0"},
       {"ghcr.io/k8snetworkplumbingwg", "sriov-cni", "v2.8.1"},
       {"ghcr.io/k8snetworkplumbingwg", "rdma-cni", "v1.2.0"}},
      {"v25.1.0", "25.1.0", "Mellanox/network-operator v25.1.0 (b2186dd9f4a1) hack/release.yaml", false,
       {"ghcr.io/k8snetworkplumbingwg", "sriov-network-device-plugin", "v3.9.0"},
       {"ghcr.io/mellanox", "nvidia-k8s-ipam", "v0.2.0"},
       {"ghcr.io/k8snetworkplumbingwg", "multus-cni", "v4.1.0"},
       {"ghcr.io/k8snetworkplumbingwg", "plugins", "v1.5.0"},
       {"ghcr.io/k8snetworkplumbingwg", "sriov-cni", "v2.8.1"},
       {"ghcr.io/k8snetworkplumbingwg", "rdma-cni", "v1.2.0"}},
      {"v25.4.0", "25.4.0", "Mellanox/network-operator v25.4.0 (8d20dc73b105) hack/release.yaml", false,
       {"ghcr.io/k8snetworkplumbingwg", "sriov-network-device-plugin", "v3.9.0"},
       {"ghcr.io/mellanox", "nvidia-k8s-ipam", "v0.3.7"},
       {"ghcr.io/k8snetworkplumbingwg", "multus-cni", "v4.1.0"},
       {"ghcr.io/k8snetworkplumbingwg", "plugins", "v1.6.2-update.1"},
       {"ghcr.io/k8snetworkplumbingwg", "sriov-cni", "v2.8.1"},
       {"ghcr.io/k8snetworkplumbingwg", "rdma-cni", "v1.3.0"}},
      {"v25.7.0", "25.7.0", "Mellanox/network-operator v25.7.0 (e26ca2e2373d) hack/release.yaml", false,
       {"nvcr.io/nvidia/mellanox", "sriov-network-device-plugin", "network-operator-v25.7.0"},
       {"nvcr.io/nvidia/mellanox", "nvidia-k8s-ipam", "network-operator-v25.7.0"},
       {"nvcr.io/nvidia/mellanox", "multus-cni", "network-operator-v25.7.0"},
       {"nvcr.io/nvidia/mellanox", "plugins", "network-operator-v25.7.0"},
       {"nvcr.io/nvidia/mellanox", "sriov-cni", "network-operator-v25.7.0"},
       {"nvcr.io/nvidia/mellanox", "rdma-cni", "network-operator-v25.7.0"}},
      {"v25.10.0", "25.10.0", "Mellanox/network-operator v25.10.0 (625ea34cb4c3) hack/release.yaml", false,
       {"nvcr.io/nvidia/mellanox", "sriov-network-device-plugin", "network-operator-v25.10.0"},
       {"nvcr.io/nvidia/mellanox", "nvidia-k8s-ipam", "network-operator-v25.10.0"},
       {"nvcr.io/nvidia/mellanox", "multus-cni", "network-operator-v25.10.0"},
       {"nvcr.io/nvidia/mellanox", "plugins", "network-operator-v25.10.0"},
       {"nvcr.io/nvidia/mellanox", "sriov-cni", "network-operator-v25.10.0"},
       {"nvcr.io/nvidia/mellanox", "rdma-cni", "network-operator-v25.10.0"}},
      {"v26.1.0", "26.1.0", "Mellanox/network-operator v26.1.0 (34a16f8aaa0a) hack/release.yaml", false,
       {"nvcr.io/nvidia/mellanox", "sriov-network-device-plugin", "network-operator-v26.1.0"},
       {"nvcr.io/nvidia/mellanox", "nvidia-k8s-ipam", "network-operator-v26.1.0"},
       {"nvcr.io/nvidia/mellanox", "multus-cni", "network-operator-v26.1.0"},
       {"nvcr.io/nvidia/mellanox", "plugins", "network-operator-v26.1.0"},
       {"nvcr.io/nvidia/mellanox", "sriov-cni", "network-operator-v26.1.0"},
       {"nvcr.io/nvidia/mellanox", "rdma-cni", "network-operator-v26.1.0"}},
      {"v26.4.1", "26.4.1", "Mellanox/network-operator v26.4.1 (85afd6d9c697) hack/release.yaml", false,
       {"nvcr.io/nvidia/mellanox", "sriov-network-device-plugin", "network-operator-v26.4.1"},
       {"nvcr.io/nvidia/mellanox", "nvidia-k8s-ipam", "network-operator-v26.4.1"},
       {"nvcr.io/nvidia/mellanox", "multus-cni", "network-operator-v26.4.1"},
       {"nvcr.io/nvidia/mellanox", "plugins", "network-operator-v26.4.1"},
       {"nvcr.io/nvidia/mellanox", "sriov-cni", "network-operator-v26.4.1"},
       {"nvcr.io/nvidia/mellanox", "rdma-cni", "network-operator-v26.4.1"}},
  };
  // clang-format on
  return releases;
}

std::optional<NetworkOperatorRelease> FindNetworkOperatorRelease(const std::string& version) {
  for (const NetworkOperatorRelease& release : NetworkOperatorReleases()) {
    if (release.version == version) return release;
  }
  return std::nullopt;
}

std::string KnownNetworkOperatorVersions() {
  std::string out;
  for (const NetworkOperatorRelease& release : NetworkOperatorReleases())
    out += (out.empty() ? "" : ", ") + release.version;
  return out;
}

std::string GpuOperatorVersion::Channel() const {
  return "v" + std::to_string(year) + "." + std::to_string(minor);
}

std::optional<GpuOperatorVersion> ParseGpuOperatorVersion(const std::string& text) {
  GpuOperatorVersion v;
  char tail = 0;
  if (std::sscanf(text.c_str(), "v%d.%d.%d%c", &v.year, &v.minor, &v.patch, &tail) != 3) {
    return std::nullopt;
  }
  if (v.year < 0 || v.minor < 0 || v.patch < 0) return std::nullopt;
  return v;
}

std::optional<std::string> VfDeviceIdOf(const std::string& pf_device_id) {
  // k8snetworkplumbingwg/sriov-network-operator @249e200,
  // deployment/sriov-network-operator-chart/templates/configmap.yaml (supported-nic-ids).
  std::string id = pf_device_id;
  if (id.rfind("0x", 0) == 0) id = id.substr(2);
  if (id == "1021") return "101e";  // ConnectX-7
  if (id == "101d") return "101e";  // ConnectX-6 Dx
  if (id == "1019") return "101a";  // ConnectX-5 Ex
  return std::nullopt;
}

}  // namespace hkim
