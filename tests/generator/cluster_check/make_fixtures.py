#!/usr/bin/env python3
"""Writes the cluster exports that must be files, as `kubectl get -A -o json` prints them (one v1
List). Run from this folder after changing it; the JSON files are committed. A cluster after a
profile's own sync, and one change to it, is simulated_cluster.h's (it renders the profile at
test time, so it cannot go stale): the gtest cluster-check drift tests build their exports with
it. What stays here, and why it is a file:
- barcelona-live.json: Barcelona as it runs, a record of a real cluster (other teams' objects,
  hand-made node policies, Infrabric's orphans), not something a profile describes;
- barcelona.json: the cluster the Barcelona profile describes before its first sync, as discover
  drafts a profile from it (discover, brownfield and the CLI tests read the same file);
- pf-renamed, no-rdma-vfs, missing-label-pool, takeover: drifts of barcelona.json for
  tests/cli/cli_test.sh, which runs the binary on export files (the simulator lives in the test
  binary);
- oke-blocks.json, oke-installed.json: read by the doctor and platform-network tests as files
  (doctor --cluster FILE), and a cluster of two pools of two profiles (the simulator simulates
  one profile's);
- cluster(nodes): bench/cluster_check/ and the CLI test's 1,500- and 2,000-node exports, written
  by this script without a build."""
import copy
import json
import sys

RAILS = ["eno5np0", "eno6np0", "eno7np0", "eno8np0"]


def bulk(name):
    """What a real node object carries besides what hkimgen reads: its image list, conditions and
    managedFields (most of an export's bytes). For the benchmark's export."""
    images = [{"names": ["nvcr.io/nvidia/%s@sha256:%064x" % (kind, i * 7919 + len(name)),
                         "nvcr.io/nvidia/%s:v25.%d.%d" % (kind, i % 12, i)],
               "sizeBytes": 1000000 + i} for i, kind in enumerate(["gpu-operator", "k8s-device-plugin",
                                                                   "cuda", "dcgm-exporter", "driver",
                                                                   "network-operator", "pytorch",
                                                                   "nccl-tests"] * 5)]
    conditions = [{"type": t, "status": "False", "reason": "Kubelet" + t,
                   "message": "kubelet has no %s on %s" % (t, name),
                   "lastHeartbeatTime": "2026-11-26T07:00:00Z",
                   "lastTransitionTime": "2026-11-01T07:00:00Z"}
                  for t in ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]]
    managed = [{"manager": m, "operation": "Update", "apiVersion": "v1", "time": "2026-11-26T07:00:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {"f:feature.node.kubernetes.io/%s-%d" % (m, k): {}
                                                         for k in range(30)}}}}
               for m in ["kubelet", "nfd-master", "gpu-feature-discovery", "kube-controller-manager"]]
    return images, conditions, managed


def node(name, gpu=True, role=True, heavy=False):
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "node.openshift.io/os_id": "rhcos",
              "node-role.kubernetes.io/worker": ""}
    capacity = {"cpu": "192", "memory": "2113389444Ki", "pods": "250"}
    taints = []
    if gpu:
        labels.update({"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "4",
                       "nvidia.com/gpu.present": "true",
                       "feature.node.kubernetes.io/cpu-model.vendor_id": "AMD"})
        if role:
            labels["node-role.kubernetes.io/h100"] = ""
        capacity["nvidia.com/gpu"] = "4"
        for rail in RAILS:
            capacity["openshift.io/%srdma" % rail] = "1"
        taints = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    result = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels,
                         "managedFields": [{"manager": "kubelet", "operation": "Update"}]},
            "spec": {"taints": taints} if taints else {},
            "status": {"capacity": capacity, "allocatable": capacity,
                       "images": [{"names": ["quay.io/x/y@sha256:" + "0" * 64], "sizeBytes": 1}],
                       "nodeInfo": {"osImage": "Red Hat Enterprise Linux CoreOS 419"}}}
    if heavy:
        images, conditions, managed = bulk(name)
        result["status"]["images"], result["status"]["conditions"] = images, conditions
        result["metadata"]["managedFields"] = managed
        for k in range(40):
            labels["feature.node.kubernetes.io/pci-%04d.present" % k] = "true"
    return result


def sriov_state(name):
    interfaces = []
    for i, rail in enumerate(RAILS):
        interfaces.append({"name": rail, "vendor": "15b3", "deviceID": "1021", "driver": "mlx5_core",
                           "pciAddress": "0000:%02x:00.0" % (0x0c + i), "linkType": "ETH",
                           "linkAdminState": "up", "mtu": 9000, "numVfs": 1, "totalvfs": 8,
                           "Vfs": [{"name": rail + "v0", "deviceID": "101e", "mtu": 9000,
                                    "pciAddress": "0000:%02x:00.2" % (0x0c + i), "vfID": 0}]})
    interfaces.append({"name": "eno1", "vendor": "14e4", "deviceID": "16d7", "driver": "bnxt_en",
                       "pciAddress": "0000:c1:00.0", "linkType": "ETH", "mtu": 1500, "totalvfs": 0})
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodeState",
            "metadata": {"name": name, "namespace": "openshift-sriov-network-operator"},
            "status": {"interfaces": interfaces, "syncStatus": "Succeeded"}}


def addressed(item, ip, pod_cidr=None):
    """A Node's addresses as the kubelet reports them (and its podCIDR where the CNI uses one)."""
    item["status"]["addresses"] = [{"type": "InternalIP", "address": ip},
                                   {"type": "Hostname", "address": item["metadata"]["name"]}]
    if pod_cidr:
        item["spec"]["podCIDR"], item["spec"]["podCIDRs"] = pod_cidr, [pod_cidr]
    return item


def openshift_network():
    """The cluster's Network config with OpenShift's default networks (Barcelona's pods' eth0,
    10.129.2.45/23, lies in the default cluster network)."""
    networks = {"clusterNetwork": [{"cidr": "10.128.0.0/14", "hostPrefix": 23}],
                "serviceNetwork": ["172.30.0.0/16"], "networkType": "OVNKubernetes"}
    return {"apiVersion": "config.openshift.io/v1", "kind": "Network", "metadata": {"name": "cluster"},
            "spec": networks, "status": dict(networks, clusterNetworkMTU=8900)}


def cluster(gpu_nodes=2, heavy=False):
    names = ["h100-n%02d" % (i + 1) if gpu_nodes < 100 else "gpu-r%02d-n%04d" % (i // 40, i)
             for i in range(gpu_nodes)]
    # Inferred: the machine network (the nodes' InternalIPs), 10.30.0.0/16.
    items = [addressed(node(n, heavy=heavy), "10.30.%d.%d" % (i // 250, i % 250 + 10))
             for i, n in enumerate(names)]
    items.append(addressed(node("infra-1", gpu=False), "10.30.255.10"))
    items += [sriov_state(n) for n in names]
    items.append({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
                  "metadata": {"name": "h100"},
                  "spec": {"nodeSelector": {"matchLabels": {"node-role.kubernetes.io/h100": ""}}}})
    items.append({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
                  "metadata": {"name": "worker"}})
    items.append({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
                  "metadata": {"name": "version"},
                  "status": {"desired": {"version": "4.20.8"}}})
    items.append(openshift_network())
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def barcelona_live():
    """Barcelona as it runs (../shared/BARCELONA-LIVE.md, reference-manifests/barcelona/), as a
    `kubectl get -A -o json` export of the kinds the cluster check reads. Facts are the shared
    files'; what they do not state is inferred and marked so here:
    - inferred: OpenShift 4.20.8 (BARCELONA-LIVE: 4.19 or 4.20, 4.20 inferred), the CSV versions
      (gpu-operator-certified.v25.10.1, nfd and sriov 4.20 builds, network operator 26.1), the
      CPU nodes' and control plane's names, the PF PCI addresses, the SR-IOV NADs' config in
      `default` (the base NADs' config), the Infrabric Argo CD tracking label values;
    - from the facts: 5 GPU nodes (3 -nairr, 2 -yunshi), rack 2, AMD, 4 GPUs, labels and role h100;
      pool h100 (worker + h100, maxUnavailable 0); MachineConfigs 99-worker-iommu-passthrough
      (iommu=pt), 99-h100-pci-optimization, 99-h100-network-tuning; OperatorGroups
      <namespace>-operatorgroup and Subscriptions named after the package without a channel
      (GPU, NFD, network operator; the SR-IOV operator under its own); ClusterPolicy
      gpu-cluster-policy; NodeFeatureDiscovery openshift-nfd/nfd-instance; NicClusterPolicy with
      the DOCA driver doca3.3.0-26.01-1.0.0.0-0; hand-made node policies h100-nodes-eno5np0..8 (one
      VF, resource eno5np0rdma..); NADs eno5np0-network.. in `default` owned by SriovNetworks and
      sed-stripped copies in yunshi's namespace, all plain sriov without the rdma CNI; shared
      RDMA mode (no SriovNetworkPoolConfig); yunshi's StatefulSet tsfm-node on u15/u16;
      OpenShift's default cluster and service networks (the pods' eth0 is 10.129.2.45/23);
    - inferred: the nodes' InternalIPs, in a machine network 10.30.0.0/16."""
    gpu = ["moc-r4pcc02u17-nairr", "moc-r4pcc02u18-nairr", "moc-r4pcc02u25-nairr",
           "moc-r4pcc02u15-yunshi", "moc-r4pcc02u16-yunshi"]
    items = []
    orphan = {"app.kubernetes.io/instance": "infra-operators"}  # Infrabric's, Application gone
    for i, name in enumerate(gpu):
        n = addressed(node(name), "10.30.0.%d" % (20 + i))
        n["spec"] = {}  # no taints on Barcelona's GPU nodes (yunshi's pods tolerate none)
        n["metadata"]["labels"]["topology.kubernetes.io/rack"] = "r4pcc02"
        items.append(n)
        items.append(sriov_state(name))
    for i, name in enumerate(["moc-cpu-w1", "moc-cpu-w2", "moc-cpu-w3"]):
        items.append(addressed(node(name, gpu=False), "10.30.0.%d" % (30 + i)))
    for i, name in enumerate(["moc-ctl-1", "moc-ctl-2", "moc-ctl-3"]):
        ctl = addressed(node(name, gpu=False), "10.30.0.%d" % (10 + i))
        del ctl["metadata"]["labels"]["node-role.kubernetes.io/worker"]
        ctl["metadata"]["labels"]["node-role.kubernetes.io/master"] = ""
        items.append(ctl)
    mc = "machineconfiguration.openshift.io/v1"
    items.append({"apiVersion": mc, "kind": "MachineConfigPool", "metadata": {"name": "h100"},
                  "spec": {"machineConfigSelector": {"matchExpressions": [
                      {"key": "machineconfiguration.openshift.io/role", "operator": "In",
                       "values": ["worker", "h100"]}]},
                      "nodeSelector": {"matchLabels": {"node-role.kubernetes.io/h100": ""}},
                      "maxUnavailable": 0}})
    for role in ["worker", "master"]:
        items.append({"apiVersion": mc, "kind": "MachineConfigPool", "metadata": {"name": role},
                      "spec": {"machineConfigSelector": {"matchLabels": {
                          "machineconfiguration.openshift.io/role": role}},
                          "nodeSelector": {"matchLabels": {"node-role.kubernetes.io/" + role: ""}}}})
    for name, role, args in [("99-worker-iommu-passthrough", "worker", ["iommu=pt"]),
                             ("99-h100-pci-optimization", "h100", None),
                             ("99-h100-network-tuning", "worker", None)]:
        spec = {"config": {"ignition": {"version": "3.2.0"}}}
        if args:
            spec["kernelArguments"] = args
        items.append({"apiVersion": mc, "kind": "MachineConfig",
                      "metadata": {"name": name, "labels": {"machineconfiguration.openshift.io/role": role}},
                      "spec": spec})
    items.append({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
                  "metadata": {"name": "version"}, "status": {"desired": {"version": "4.20.8"}}})
    items.append(openshift_network())
    olm = "operators.coreos.com/v1"
    for ns, package, csv in [("nvidia-gpu-operator", "gpu-operator-certified", "v25.10.1"),
                             ("openshift-nfd", "nfd", "4.20.0-202511101230"),
                             ("nvidia-network-operator", "nvidia-network-operator", "v26.1.0"),
                             ("openshift-sriov-network-operator", "sriov-network-operator",
                              "v4.20.0-202511111518")]:
        items.append({"apiVersion": olm, "kind": "OperatorGroup",
                      "metadata": {"name": ns + "-operatorgroup", "namespace": ns, "labels": orphan},
                      "spec": {"targetNamespaces": [ns]}})
        sub = {"name": package, "source": "certified-operators" if "nvidia" in ns or "gpu" in package
               else "redhat-operators", "sourceNamespace": "openshift-marketplace"}
        items.append({"apiVersion": olm + "alpha1", "kind": "Subscription",
                      "metadata": {"name": package, "namespace": ns, "labels": orphan}, "spec": sub})
        items.append({"apiVersion": olm + "alpha1", "kind": "ClusterServiceVersion",
                      "metadata": {"name": package + "." + csv, "namespace": ns},
                      "status": {"phase": "Succeeded"}})
    items.append({"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                  "metadata": {"name": "gpu-cluster-policy", "labels": orphan},
                  "spec": {"driver": {"enabled": True, "kernelModuleType": "open"}}})
    items.append({"apiVersion": "nfd.openshift.io/v1", "kind": "NodeFeatureDiscovery",
                  "metadata": {"name": "nfd-instance", "namespace": "openshift-nfd", "labels": orphan}})
    items.append({"apiVersion": "mellanox.com/v1alpha1", "kind": "NicClusterPolicy",
                  "metadata": {"name": "nic-cluster-policy", "labels": orphan},
                  "spec": {"ofedDriver": {"image": "doca-driver", "repository": "nvcr.io/nvidia/mellanox",
                                          "version": "doca3.3.0-26.01-1.0.0.0-0"}}})
    sriov_ns = "openshift-sriov-network-operator"
    items.append({"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovOperatorConfig",
                  "metadata": {"name": "default", "namespace": sriov_ns},
                  "spec": {"enableInjector": True, "enableOperatorWebhook": True}})
    for i, rail in enumerate(RAILS):
        items.append({"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
                      "metadata": {"name": "h100-nodes-" + rail, "namespace": sriov_ns},
                      "spec": {"resourceName": rail + "rdma", "numVfs": 1, "isRdma": True,
                               "deviceType": "netdevice", "mtu": 9000, "priority": 99,
                               "nicSelector": {"pfNames": [rail], "vendor": "15b3"},
                               "nodeSelector": {"node-role.kubernetes.io/h100": ""}}})
        config = {"cniVersion": "1.0.0", "name": rail + "-network", "type": "sriov", "mtu": 9000,
                  "vlan": 0, "spoofchk": "off", "trust": "on", "ipam": {
                      "type": "whereabouts", "range": "10.0.%d.0/24" % (103 + i),
                      "routes": [{"dst": "192.168.%d.0/24" % (77 + i)}]}}
        for ns, extra in [("default", {"sriovnetwork.openshift.io/owner-ref":
                                       "SriovNetwork.sriovnetwork.openshift.io/%s/%s-network" % (sriov_ns, rail)}),
                          ("b-ts-data-agent-0a0cee", {})]:
            annotations = {"k8s.v1.cni.cncf.io/resourceName": "openshift.io/%srdma" % rail}
            annotations.update(extra)
            items.append({"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
                          "metadata": {"name": rail + "-network", "namespace": ns, "annotations": annotations},
                          "spec": {"config": json.dumps(config)}})
    for i, host in enumerate(["moc-r4pcc02u15-yunshi", "moc-r4pcc02u16-yunshi"]):
        limits = {"nvidia.com/gpu": "4"}
        limits.update({"openshift.io/%srdma" % r: "1" for r in RAILS})
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "tsfm-node-%d" % i, "namespace": "b-ts-data-agent-0a0cee",
                                   "ownerReferences": [{"kind": "StatefulSet", "name": "tsfm-node"}],
                                   "annotations": {"k8s.v1.cni.cncf.io/networks": ", ".join(
                                       "b-ts-data-agent-0a0cee/%s-network" % r for r in RAILS)}},
                      "spec": {"nodeName": host, "containers": [
                          {"name": "pytorch-ddp", "resources": {"limits": limits, "requests": limits}}]}})
    items.append({"apiVersion": "security.openshift.io/v1", "kind": "SecurityContextConstraints",
                  "metadata": {"name": "nccl-rdma-scc"}, "allowHostIPC": False})
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def find(items, kind, name):
    return next(i for i in items if i["kind"] == kind and i["metadata"]["name"] == name)


OCI = "oci.oraclecloud.com/rdma."


def oke_gpu_node(name, labels, host, pod_block, status=None):
    """An OKE GPU node (BM.GPU.*.8 with 16 RDMA VFs, tainted for GPU pods) at 10.0.10.`host` of
    the VCN's worker subnet, with flannel's pod CIDR 10.244.`pod_block`.0/25 (OKE's defaults)."""
    capacity = {"cpu": "224", "memory": "2113389444Ki", "pods": "110", "nvidia.com/gpu": "8",
                "nvidia.com/sriov_rdma_vf": "16"}
    return addressed({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": name, "labels": labels},
                      "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present",
                                           "effect": "NoSchedule"}]},
                      "status": dict({"capacity": capacity, "allocatable": capacity},
                                     **(status or {}))},
                     "10.0.10.%d" % host, "10.244.%d.0/25" % pod_block)


def oke_blocks():
    """An OKE pool of nine BM.GPU.H100.8 nodes that profiles/oke-h100.yaml describes, spread over
    its RDMA fabric: six in network block A, two in block B (of one HPC island), and
    one outside the cluster network, without OCI's RDMA labels."""
    items = []
    blocks = [("block-a", "local-a1")] * 4 + [("block-a", "local-a2")] * 2 + [("block-b", "local-b1")] * 2
    for i, block in enumerate(blocks + [None]):
        name = "gpu-%d" % (i + 1)
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                  "node.kubernetes.io/instance-type": "BM.GPU.H100.8",
                  "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}
        if block:
            labels.update({OCI + "hpc_island_id": "island-1", OCI + "network_block_id": block[0],
                           OCI + "local_block_id": block[1]})
        items.append(oke_gpu_node(name, labels, 10 + i, i,
                                  {"nodeInfo": {"osImage": "Oracle Linux Server 8.10"}}))
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def oke_installed():
    """One OKE cluster with an H100 pool (profiles/oke-h100.yaml, which installs the GPU and
    Network Operators) and an A100 pool of three nodes (profiles/oke-a100.yaml, in us-ashburn-1:
    no A100 VFs there, seed 004), where both operators run already:
    the Network Operator as a Helm release (its release Secrets, data dropped as
    docs/cluster-check.md exports them) and the GPU Operator's ClusterPolicy rendered from its
    chart outside Argo CD."""
    items = []
    for shape, product, count in [("BM.GPU.H100.8", "NVIDIA-H100-80GB-HBM3", 2),
                                  ("BM.GPU.A100-v2.8", "NVIDIA-A100-SXM4-80GB", 3)]:
        for i in range(count):
            name = "%s-%d" % ("h100" if "H100" in shape else "a100", i + 1)
            labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                      "node.kubernetes.io/instance-type": shape,
                      "topology.kubernetes.io/region": "us-ashburn-1",
                      "nvidia.com/gpu.product": product, "nvidia.com/gpu.count": "8"}
            items.append(oke_gpu_node(name, labels, len(items) + 10, len(items)))
    for version, status in [(1, "superseded"), (2, "deployed")]:
        items.append({"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
                      "metadata": {"name": "sh.helm.release.v1.network-operator.v%d" % version,
                                   "namespace": "nvidia-network-operator",
                                   "labels": {"owner": "helm", "name": "network-operator",
                                              "status": status, "version": str(version)}}})
    items.append({"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                  "metadata": {"name": "cluster-policy",
                               "labels": {"app.kubernetes.io/managed-by": "Helm",
                                          "helm.sh/chart": "gpu-operator-v25.3.0"}},
                  "spec": {"driver": {"enabled": False}}})
    # A pod of the operator's DaemonSet carries the chart's labels but no Argo CD tracking: no
    # evidence of who installed it.
    items.append({"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": "gpu-feature-discovery-x1", "namespace": "gpu-operator",
                               "labels": {"helm.sh/chart": "gpu-operator-v25.3.0"},
                               "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                                                    "name": "gpu-feature-discovery", "uid": "1"}]},
                  "spec": {"nodeName": "h100-1", "containers": [{"name": "gfd"}]}})
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def write(name, doc):
    with open(name, "w") as out:
        json.dump(doc, out, indent=2, sort_keys=True)
        out.write("\n")


def main():
    write("barcelona-live.json", barcelona_live())
    base = cluster()
    write("barcelona.json", base)

    # Re-imaging renamed a PF on one node (the seeds' mlx5_10 -> mlx5_8 day).
    doc = copy.deepcopy(base)
    find(doc["items"], "SriovNetworkNodeState", "h100-n02")["status"]["interfaces"][2]["name"] = "eno9np0"
    write("pf-renamed.json", doc)

    # One node's PF lost its VFs and the device plugin advertises none of that rail.
    doc = copy.deepcopy(base)
    pf = find(doc["items"], "SriovNetworkNodeState", "h100-n02")["status"]["interfaces"][1]
    pf["numVfs"], pf["Vfs"] = 0, []
    find(doc["items"], "Node", "h100-n02")["status"]["capacity"]["openshift.io/eno6np0rdma"] = "0"
    write("no-rdma-vfs.json", doc)

    # The hand-made h100 pool is gone and one GPU node lost its role label.
    doc = copy.deepcopy(base)
    doc["items"] = [i for i in doc["items"]
                    if not (i["kind"] == "MachineConfigPool" and i["metadata"]["name"] == "h100")]
    del find(doc["items"], "Node", "h100-n02")["metadata"]["labels"]["node-role.kubernetes.io/h100"]
    write("missing-label-pool.json", doc)

    # Objects of the bundle's names that someone else made: the SCC by hand, a NAD of another
    # team (synced by its own Argo CD Application) with another resource, and a NAD whose range
    # overlaps rail eno6np0's.
    doc = copy.deepcopy(base)
    doc["items"].append({"apiVersion": "security.openshift.io/v1", "kind": "SecurityContextConstraints",
                         "metadata": {"name": "barcelona-nccl-rdma"}, "allowHostIPC": True})
    doc["items"].append({"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
                         "metadata": {"name": "eno5np0-network", "namespace": "nccl-test",
                                      "labels": {"app.kubernetes.io/instance": "team-b-networks"},
                                      "annotations": {"k8s.v1.cni.cncf.io/resourceName":
                                                      "openshift.io/teamb"}},
                         "spec": {"config": json.dumps({"cniVersion": "1.0.0", "type": "sriov",
                                                        "ipam": {"type": "whereabouts",
                                                                 "range": "10.9.0.0/24"}})}})
    doc["items"].append({"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
                         "metadata": {"name": "storage", "namespace": "storage"},
                         "spec": {"config": json.dumps({"cniVersion": "1.0.0", "type": "sriov",
                                                        "ipam": {"type": "whereabouts",
                                                                 "range": "10.0.104.128/25"}})}})
    write("takeover.json", doc)

    write("oke-blocks.json", oke_blocks())
    write("oke-installed.json", oke_installed())


if __name__ == "__main__":
    main()
