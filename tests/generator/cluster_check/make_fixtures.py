#!/usr/bin/env python3
"""Writes the cluster exports the cluster_check tests read, as `kubectl get -A -o json` prints
them (one v1 List): a cluster that profiles/barcelona-h100-cx7.yaml describes, and drifts of it.
Run from this folder after changing it; the JSON files are committed. bench/cluster_check/ calls
cluster(nodes) for its 2,000-node export."""
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


def cluster(gpu_nodes=2, heavy=False):
    names = ["h100-n%02d" % (i + 1) if gpu_nodes < 100 else "gpu-r%02d-n%04d" % (i // 40, i)
             for i in range(gpu_nodes)]
    items = [node(n, heavy=heavy) for n in names] + [node("infra-1", gpu=False)]
    items += [sriov_state(n) for n in names]
    items.append({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
                  "metadata": {"name": "h100"},
                  "spec": {"nodeSelector": {"matchLabels": {"node-role.kubernetes.io/h100": ""}}}})
    items.append({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
                  "metadata": {"name": "worker"}})
    items.append({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
                  "metadata": {"name": "version"},
                  "status": {"desired": {"version": "4.19.9"}}})
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def find(items, kind, name):
    return next(i for i in items if i["kind"] == kind and i["metadata"]["name"] == name)


def write(name, doc):
    with open(name, "w") as out:
        json.dump(doc, out, indent=2, sort_keys=True)
        out.write("\n")


def main():
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


if __name__ == "__main__":
    main()
