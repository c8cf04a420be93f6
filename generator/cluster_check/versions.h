#pragma once

// `--cluster`: the operator releases a cluster runs, against the profile and the release catalog
// (model/operator_versions.h). Read from the export: the GPU Operator's CSV
// (gpu-operator-certified.vX, OpenShift) or the `helm.sh/chart` label of the charts' objects
// (OKE), the NicClusterPolicy's DOCA driver, the ClusterVersion and the nodes' kubelet versions.

#include <optional>
#include <vector>

#include "cluster_check/findings.h"

namespace hkim::cluster_check {

/// Reports, at the profile line each concerns:
///  - cluster.operator-version: the cluster runs another GPU or Network Operator release than
///    the profile pins (an error where the profile leaves the operator to the cluster, since
///    the bundle's objects assume the pinned one; a warning where the bundle installs it, since
///    a sync moves it: `hkimgen diff` says what moves), one whose CSV does not declare the
///    cluster's OpenShift minor, or a Red Hat SR-IOV/NFD operator CSV of another minor than
///    the cluster's (a warning);
///  - cluster.operator-downgrade (OKE): the cluster runs a newer chart release than the profile
///    pins where the bundle installs the chart: the sync would apply the older chart over it;
///  - cluster.known-bad: a combination the catalog records as broken (its reference named);
///  - cluster.end-of-support: a running GPU Operator release whose line NVIDIA no longer
///    supports;
///  - cluster.kubernetes-version: nodes whose kubelet is older than the pinned chart declares;
///  - cluster.kueue-api: the cluster's Kueue CRDs do not serve the kueue.x-k8s.io version the
///    bundle sends (the profile's Kueue release's newest, catalog/releases.json).
void CheckVersions(const Profile& profile, const BundlePlan& plan, const ClusterExport& cluster,
                   Findings& findings);

}  // namespace hkim::cluster_check
