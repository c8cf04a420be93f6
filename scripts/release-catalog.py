#!/usr/bin/env python3
# Regenerates catalog/releases.json, hkimgen's release catalog (model/operator_versions.h), from
# git checkouts of the operators' own repositories, and says what changed against the file in
# the tree. Every upstream-derived field is read at the release tag; the hand-kept fields
# (end_of_support, known_bad, notes: each with its reference) are carried over from the old file.
#
#   scripts/release-catalog.py --gpu-operator GIT --network-operator GIT --nccl GIT \
#       --sriov GIT --nfd GIT --kueue GIT --volcano GIT [--write]
#   scripts/release-catalog.py --markdown > docs/release-lines.md
#
# GIT is a clone (bare or not) with the release tags, e.g. github.com/NVIDIA/gpu-operator,
# github.com/Mellanox/network-operator, github.com/NVIDIA/nccl, and Red Hat's operator sources
# github.com/openshift/sriov-network-operator and github.com/openshift/cluster-nfd-operator
# (read at their release-4.x branches), github.com/kubernetes-sigs/kueue and
# github.com/volcano-sh/volcano. Without --write it prints the new catalog to stdout;
# with it, it rewrites catalog/releases.json (only when the content changed). The changes go to
# stderr either way. Release candidates and betas are left out: only vX.Y.Z tags.
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG = os.path.join(ROOT, "catalog", "releases.json")
# The oldest lines hkimgen renders for (older ClusterPolicies / NicClusterPolicies lack fields the
# bundle sets; operator_rules.cc).
OLDEST_GPU = (24, 9)
OLDEST_NETWORK = (24, 7)
# Kueue: topology-aware scheduling is beta and on by default from v0.14 (model/scheduling.h);
# Volcano: the chart's values layout (basic.*_image_name, custom.*_enable) the bundle renders.
OLDEST_KUEUE = (0, 14)
OLDEST_VOLCANO = (1, 12)
# GPU Operator components whose DaemonSets run only with sandboxWorkloads.enabled (false in the
# chart and in the bundle): the operator does not deploy them for container workloads.
SANDBOX = {"vgpuManager", "vgpuDeviceManager", "vfioManager", "kataManager",
           "sandboxDevicePlugin", "kataSandboxDevicePlugin"}


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                          check=True).stdout


def show(repo, tag, path):
    try:
        return git(repo, "show", f"{tag}:{path}")
    except subprocess.CalledProcessError:
        return None


def tags(repo, oldest):
    out = []
    for tag in git(repo, "tag").split():
        m = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)", tag)
        if m and (int(m[1]), int(m[2])) >= oldest:
            out.append(((int(m[1]), int(m[2]), int(m[3])), tag))
    return [t for _, t in sorted(out)]


def tag_facts(repo, tag, github):
    commit = git(repo, "rev-parse", f"{tag}^{{commit}}").strip()
    date = git(repo, "log", "-1", "--format=%cs", tag).strip()
    return commit, date, f"{github} {tag} ({commit[:12]}, {date})"


def crds(repo, tag, folder):
    out = {}
    for path in sorted(git(repo, "ls-tree", "-r", "--name-only", tag, folder).split()):
        text = show(repo, tag, path)
        if text is not None and path.endswith((".yaml", ".yml")):
            out[os.path.basename(path)] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return out


def kueue(repo, tag):
    """A Kueue release: the chart hack/helm-chart-package.sh publishes for the tag (version = the
    tag without its v; a promoted vX.Y.Z tag gets controllerManager.manager.image
    registry.k8s.io/kueue/kueue at the tag), and the kueue.x-k8s.io versions its CRDs serve
    (config/components/crd/bases, the ClusterQueue CRD: every Kueue CRD moves together)."""
    commit, date, source = tag_facts(repo, tag, "kubernetes-sigs/kueue")
    chart = yaml.safe_load(show(repo, tag, "charts/kueue/Chart.yaml"))
    crd = yaml.safe_load(show(repo, tag, "config/components/crd/bases/"
                                         "kueue.x-k8s.io_clusterqueues.yaml"))
    versions = crd["spec"]["versions"]
    return {
        "version": tag, "chart_version": str(chart["version"]), "date": date, "commit": commit,
        "source": source + " charts/kueue/Chart.yaml, hack/helm-chart-package.sh, "
                  "config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml",
        "served": [v["name"] for v in versions if v.get("served")],
        "storage": next(v["name"] for v in versions if v.get("storage")),
        "image": "registry.k8s.io/kueue/kueue:" + tag,
    }


def volcano(repo, tag):
    """A Volcano release: its chart (installer/helm/chart/volcano) and the images its default
    values run (basic.*_image_name at basic.image_tag_version, for the components custom.*_enable
    turns on)."""
    commit, date, source = tag_facts(repo, tag, "volcano-sh/volcano")
    folder = "installer/helm/chart/volcano"
    chart = yaml.safe_load(show(repo, tag, folder + "/Chart.yaml"))
    values = yaml.safe_load(show(repo, tag, folder + "/values.yaml"))
    basic, custom = values.get("basic", {}), values.get("custom", {})
    images = []
    for component in ("controller", "scheduler", "admission"):
        if not custom.get(component + "_enable", True):
            continue
        version = basic.get(component + "_image_tag_version") or basic.get("image_tag_version") or tag
        images.append(f"{basic[component + '_image_name']}:{version}")
    return {
        "version": tag, "chart_version": str(chart["version"]), "date": date, "commit": commit,
        "source": source + f" {folder}/Chart.yaml and values.yaml",
        "registry": basic.get("image_registry", "docker.io"), "images": images,
    }


def gpu_operator(repo, tag):
    commit, date, source = tag_facts(repo, tag, "NVIDIA/gpu-operator")
    chart = yaml.safe_load(show(repo, tag, "deployments/gpu-operator/Chart.yaml"))
    values = yaml.safe_load(show(repo, tag, "deployments/gpu-operator/values.yaml"))
    # The repository's Chart.yaml carries a placeholder appVersion (v1.0.0-devel, main-latest);
    # the published chart's appVersion is the release tag, which operator, validator and
    # nodeStatusExporter default to.
    app_version = values.get("operator", {}).get("version") or tag
    images = []

    def add(component, node, enabled, needs="", version_default=""):
        if not isinstance(node, dict) or not node.get("image"):
            return
        images.append({"component": component, "repository": node.get("repository") or "",
                       "image": node["image"],
                       "version": str(node.get("version") or version_default),
                       "enabled": bool(enabled), "needs": needs})

    for key, node in values.items():
        if not isinstance(node, dict):
            continue
        enabled = node.get("enabled", True)
        needs = "sandboxWorkloads" if key in SANDBOX else ""
        if key == "driver":
            needs = "driver"
        elif key == "draDriver":
            needs = "gpuCluster"  # only with gpuCluster.deployCR (experimental, off)
        if key in ("operator", "validator", "nodeStatusExporter"):
            add(key, node, enabled, needs, app_version)
        elif key != "node-feature-discovery":
            add(key, node, enabled, needs)
        for sub in ("initContainer", "manager", "driverManager"):
            if isinstance(node.get(sub), dict):
                sub_needs = needs or ("driver" if key == "driver" else "")
                add(f"{key}.{sub}", node[sub], enabled if key != "operator" else True, sub_needs)
    nfd_values = yaml.safe_load(show(repo, tag, "deployments/gpu-operator/charts/"
                                     "node-feature-discovery/values.yaml") or "{}")
    nfd_chart = yaml.safe_load(show(repo, tag, "deployments/gpu-operator/charts/"
                                    "node-feature-discovery/Chart.yaml") or "{}")
    if nfd_values.get("image"):
        images.append({"component": "node-feature-discovery",
                       "repository": nfd_values["image"]["repository"], "image": "",
                       "version": str(nfd_values["image"].get("tag") or nfd_chart["appVersion"]),
                       "enabled": bool(values.get("nfd", {}).get("enabled", True)), "needs": ""})
    annotations = yaml.safe_load(show(repo, tag, "bundle/metadata/annotations.yaml") or "{}")
    annotations = annotations.get("annotations", {}) if annotations else {}
    csv = yaml.safe_load(show(repo, tag, "bundle/manifests/"
                              "gpu-operator-certified.clusterserviceversion.yaml") or "{}")
    spec = csv.get("spec", {}) if csv else {}
    related = sorted({re.split(r"[@:]", i["image"].rsplit("/", 1)[0] + "/" +
                                i["image"].rsplit("/", 1)[1])[0]
                      for i in spec.get("relatedImages", [])
                      if "main-latest" not in i["image"]})
    return {
        "version": tag, "chart_version": tag, "date": date, "commit": commit,
        "source": source + " deployments/gpu-operator/Chart.yaml and values.yaml, "
                  "bundle/metadata/annotations.yaml and the CSV in bundle/manifests",
        "kubernetes": chart.get("kubeVersion", ""),
        "channel": annotations.get("operators.operatorframework.io.bundle.channel.default.v1", ""),
        "openshift": annotations.get("com.redhat.openshift.versions", ""),
        "csv": csv.get("metadata", {}).get("name", "") if csv else "",
        "replaces": spec.get("replaces", ""),
        "skip_range": (csv.get("metadata", {}).get("annotations", {}) or {}).get(
            "olm.skipRange", "") if csv else "",
        "driver": str(values.get("driver", {}).get("version", "")),
        "images": images,
        "bundle_images": related,
        "crds": crds(repo, tag, "deployments/gpu-operator/crds"),
    }


def network_operator(repo, tag):
    commit, date, source = tag_facts(repo, tag, "Mellanox/network-operator")
    chart = yaml.safe_load(show(repo, tag, "deployment/network-operator/Chart.yaml"))
    values = yaml.safe_load(show(repo, tag, "deployment/network-operator/values.yaml"))
    release = yaml.safe_load(show(repo, tag, "hack/release.yaml"))

    def component(key):
        node = release.get(key) or {}
        return {"repository": node.get("repository", ""), "image": node.get("image", ""),
                "version": str(node.get("version", ""))}

    operator = values.get("operator", {})
    init = (operator.get("ofedDriver") or {}).get("initContainer") or {}
    images = [{"component": "operator", "repository": operator.get("repository", ""),
               "image": operator.get("image", ""),
               "version": str(operator.get("tag") or chart["appVersion"]), "enabled": True,
               "needs": ""}]
    if init.get("image"):
        images.append({"component": "operator.ofedDriver.initContainer",
                       "repository": init.get("repository", ""), "image": init["image"],
                       "version": str(init.get("version", "")), "enabled": True,
                       "needs": "ofedDriver"})
    nfd = (values.get("node-feature-discovery") or {}).get("image") or {}
    if nfd.get("repository"):
        images.append({"component": "node-feature-discovery", "repository": nfd["repository"],
                       "image": "", "version": str(nfd.get("tag", "")),
                       "enabled": bool(values.get("nfd", {}).get("enabled", True)),
                       "needs": "nfd"})
    if str(chart["version"]) != tag.lstrip("v"):
        # e.g. v24.7.1, whose Chart.yaml still says 24.7.0: which chart Argo CD would fetch for
        # it is not stated at the tag, so the release is left out (printed as skipped).
        print(f"network_operator {tag}: skipped, Chart.yaml version {chart['version']}",
              file=sys.stderr)
        return None
    return {
        "version": tag, "chart_version": str(chart["version"]), "date": date, "commit": commit,
        "source": source + " hack/release.yaml, deployment/network-operator/Chart.yaml and "
                  "values.yaml",
        "kubernetes": chart.get("kubeVersion", ""),
        "chart_deploys_nic_cluster_policy": "deployCR" in values,
        "doca_driver": component("Mofed"),
        "components": {
            "sriov_device_plugin": component("SriovDevicePlugin"),
            "nv_ipam": component("nvIpam"),
            "multus": component("Multus"),
            "cni_plugins": component("CniPlugins"),
            "sriov_cni": component("SriovCni"),
            "rdma_cni": component("rdmaCni"),
        },
        "images": images,
        "crds": crds(repo, tag, "deployment/network-operator/crds"),
    }


# NCCL: the environment variable names NVIDIA/nccl's own sources (src/) read in the last release
# of each minor from 2.18 on (lint.nccl-env-name warns on a name none of them reads). Extracted:
# NCCL_PARAM(name, "X", ...) -> NCCL_X (src/include/param.h), DEFINE_NCCL_PARAM(name, type,
# NCCL_X, ...) (src/include/param/param.h, 2.28+), ncclGetEnv("NCCL_X") / getenv("NCCL_X"), and
# ncclGetLevel(&v, "NCCL_X"|NULL, "NCCL_Y") (src/graph/paths.cc). Net/tuner plugins outside
# NVIDIA/nccl read names of their own.
OLDEST_NCCL = (2, 18)


def nccl_names(repo, tag):
    files = subprocess.run(["git", "-C", repo, "grep", "-lE",
                            "NCCL_PARAM|DEFINE_NCCL_PARAM|GetEnv|getenv", tag, "--", "src"],
                           capture_output=True, text=True).stdout.split()
    out = set()
    for f in files:
        text = show(repo, tag, f.split(":", 1)[1]) or ""
        for m in re.finditer(r'\bNCCL_PARAM\(\s*\w+\s*,\s*"([A-Z0-9_]+)"', text):
            out.add("NCCL_" + m.group(1))
        for m in re.finditer(r"\bDEFINE_NCCL_PARAM\(\s*\w+\s*,\s*[^,]+,\s*(NCCL_[A-Z0-9_]+)", text):
            out.add(m.group(1))
        for m in re.finditer(r'\b(?:ncclGetEnv|getenv|std::getenv)\(\s*"(NCCL_[A-Z0-9_]+)"', text):
            out.add(m.group(1))
        for m in re.finditer(r'\bncclGetLevel\(\s*[^,]+,\s*(?:"(NCCL_[A-Z0-9_]+)"|NULL)\s*,'
                             r'\s*"(NCCL_[A-Z0-9_]+)"', text):
            out.update(n for n in m.groups() if n)
    return sorted(out)


def nccl(repo):
    last = {}  # (major, minor) -> the last tag of that minor
    for tag in git(repo, "tag").split():
        m = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)-(\d+)", tag)
        if m and (int(m[1]), int(m[2])) >= OLDEST_NCCL:
            key = (int(m[1]), int(m[2]))
            order = (int(m[3]), int(m[4]))
            if key not in last or order > last[key][0]:
                last[key] = (order, tag)
    out = []
    for key in sorted(last):
        tag = last[key][1]
        commit, date, source = tag_facts(repo, tag, "NVIDIA/nccl")
        out.append({"version": tag, "date": date, "commit": commit,
                    "source": source + " src/", "names": nccl_names(repo, tag)})
    return out


# The OpenShift SR-IOV and NFD operators ship one CSV per OpenShift minor, from the release-4.x
# branch of their source repository (manifests/stable); the catalog's CSV names carry a build
# suffix (sriov-network-operator.v4.19.0-202507081405), so the branch's name is a prefix.
OPENSHIFT_MINORS = range(16, 23)
OPENSHIFT_CSVS = {
    "sriov_network_operator": ("openshift/sriov-network-operator",
                               "manifests/stable/sriov-network-operator.clusterserviceversion.yaml"),
    "nfd": ("openshift/cluster-nfd-operator", "manifests/stable/manifests/nfd.clusterserviceversion.yaml"),
}


def openshift_operators(repos):
    out = []
    for minor in OPENSHIFT_MINORS:
        branch = f"release-4.{minor}"
        entry = {"version": f"4.{minor}"}
        for key, (github, path) in OPENSHIFT_CSVS.items():
            repo = repos[key]
            try:
                commit = git(repo, "rev-parse", branch).strip()
            except subprocess.CalledProcessError:
                continue
            csv = yaml.safe_load(show(repo, branch, path) or "{}") or {}
            meta = csv.get("metadata", {})
            if not meta.get("name"):
                continue
            date = git(repo, "log", "-1", "--format=%cs", branch).strip()
            entry[key] = {"csv": meta["name"],
                          "skip_range": (meta.get("annotations") or {}).get("olm.skipRange", ""),
                          "source": f"{github} {branch} ({commit[:12]}, {date}) {path}"}
        if len(entry) > 1:
            out.append(entry)
    return out


def carry(old_entries, new_entries, fields):
    by_version = {e["version"]: e for e in old_entries}
    for entry in new_entries:
        for field in fields:
            if field in by_version.get(entry["version"], {}):
                entry[field] = by_version[entry["version"]][field]


def changes(old, new):
    out = []
    for line in ("gpu_operator", "network_operator", "nccl", "openshift_operators", "kueue",
                 "volcano"):
        before = {e["version"]: e for e in old.get(line, [])}
        after = {e["version"]: e for e in new.get(line, [])}
        for v in after.keys() - before.keys():
            out.append(f"{line} {v}: added ({after[v].get('source', 'per-operator sources')})")
        for v in before.keys() - after.keys():
            out.append(f"{line} {v}: no longer found upstream (kept out)")
        for v in sorted(after.keys() & before.keys()):
            for key in sorted(after[v].keys() | before[v].keys()):
                if after[v].get(key) != before[v].get(key):
                    out.append(f"{line} {v}: {key} changed")
    return sorted(out)


MARKDOWN_HEAD = """# Release lines hkimgen renders for

Generated from catalog/releases.json by `scripts/release-catalog.py --markdown`; do not edit.
A profile pins a release of this list (`operators.gpu_operator.version`,
`operators.network_operator.version`, `operators.kueue.version`, `operators.volcano.version`);
any other version is `lint.operator-release`, an error,
unless the profile names its reason in `accept_unlisted_version` (then the warning
`lint.operator-release-unlisted`). On OpenShift the GPU Operator version pins the Subscription's
`startingCSV` (with `install_plan_approval: Manual` nothing upgrades past it; with `Automatic` OLM
follows the channel from there); on OKE it is the chart's `targetRevision`. `hkimgen images` and
`-o imageset` list the images the chart deploys at that tag (the GPU driver image is left out:
the operator appends the node's OS to its tag). `hkimgen diff` names what a release move
changes; `validate --cluster` compares what the cluster runs.

To add a release: `scripts/release-catalog.py --gpu-operator GIT --network-operator GIT --nccl GIT
--sriov GIT --nfd GIT --kueue GIT --volcano GIT --write` (clones of NVIDIA/gpu-operator,
Mellanox/network-operator, NVIDIA/nccl, openshift/sriov-network-operator,
openshift/cluster-nfd-operator, kubernetes-sigs/kueue and volcano-sh/volcano with their tags),
review the change it prints, then `--markdown > docs/release-lines.md`.
"""


def markdown(catalog):
    out = [MARKDOWN_HEAD]
    support = catalog.get("gpu_operator_support", {})
    out.append("## GPU Operator\n")
    out.append(f"Support status: {support.get('source', '')}. {support.get('note', '')}\n")
    out.append("| release | date | support | OpenShift (CSV) | Kubernetes | default driver | "
               "OLM channel | CSV |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in catalog["gpu_operator"]:
        line = "v" + ".".join(r["version"][1:].split(".")[:2])
        status = support.get("lines", {}).get(line, "")
        out.append(f"| {r['version']} | {r['date']} | {status} | {r['openshift']} | "
                   f"{r['kubernetes']} | {r['driver']} | {r['channel']} | {r['csv']} |")
    out.append("\n## Network Operator\n")
    out.append("| release | date | chart | Kubernetes | DOCA driver | SR-IOV device plugin |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    for r in catalog["network_operator"]:
        out.append(f"| {r['version']} | {r['date']} | {r['chart_version']} | {r['kubernetes']} | "
                   f"{r['doca_driver']['version']} | "
                   f"{r['components']['sriov_device_plugin']['version']} |")
    out.append("\n## Kueue\n")
    out.append("`operators.kueue.version`; the chart is `oci://registry.k8s.io/kueue/charts/kueue` "
               "at the version without its v. The bundle sends the newest kueue.x-k8s.io version "
               "the release serves; `validate --cluster` compares it with what the cluster's Kueue "
               "CRDs serve.\n")
    out.append("| release | date | chart | served API versions | storage | controller image |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    for r in catalog.get("kueue", []):
        out.append(f"| {r['version']} | {r['date']} | {r['chart_version']} | "
                   f"{', '.join(r['served'])} | {r['storage']} | {r['image']} |")
    out.append("\n## Volcano\n")
    out.append("`operators.volcano.version`; the chart `volcano` of "
               "https://volcano-sh.github.io/helm-charts at its chart version.\n")
    out.append("| release | date | chart | images (under the registry) |")
    out.append("| --- | --- | --- | --- |")
    for r in catalog.get("volcano", []):
        out.append(f"| {r['version']} | {r['date']} | {r['chart_version']} | "
                   f"{r['registry']}: {', '.join(r['images'])} |")
    out.append("\n## OpenShift SR-IOV and NFD operators\n")
    out.append("One CSV per OpenShift minor (channel `stable`); the cluster check compares the "
               "running CSV's minor with the cluster's.\n")
    out.append("| OpenShift | SR-IOV Network Operator CSV | NFD CSV |")
    out.append("| --- | --- | --- |")
    for r in catalog.get("openshift_operators", []):
        out.append(f"| {r['version']} | {r.get('sriov_network_operator', {}).get('csv', '')} | "
                   f"{r.get('nfd', {}).get('csv', '')} |")
    out.append("\n## NCCL\n")
    out.append("The environment variable names each release reads (lint.nccl-env-name warns on a "
               "name none of them reads):\n")
    out.append("| release | date | names |")
    out.append("| --- | --- | --- |")
    for r in catalog.get("nccl", []):
        out.append(f"| {r['version']} | {r['date']} | {len(r['names'])} |")
    out.append("\n## Known-bad combinations\n")
    for bad in catalog.get("known_bad", []):
        what = ", ".join(f"{k} {bad[k]}" for k in ("version", "doca_driver", "openshift")
                         if bad.get(k))
        out.append(f"- {bad['operator']}: {what}: {bad['what']} ({bad['reference']})")
    out.append("\n## Sources\n")
    for line in ("gpu_operator", "network_operator", "nccl", "kueue", "volcano"):
        for r in catalog.get(line, []):
            out.append(f"- {r['source']}")
    for r in catalog.get("openshift_operators", []):
        for key in ("sriov_network_operator", "nfd"):
            if key in r:
                out.append(f"- {r[key]['source']}")
    out.append("\n## Not in the catalog\n")
    out.append("- Network Operator v24.7.1: its Chart.yaml at the tag still says 24.7.0, so which "
               "chart it publishes is not stated there.")
    out.append("- Network Operator 26.7: only betas are tagged (v26.7.0-beta.1 to beta.5).")
    out.append("- The exact CSV names of Red Hat's SR-IOV and NFD operators in the redhat-operators "
               "catalog (a build suffix follows the branch's name); the bundle subscribes to "
               "channel `stable` and pins no CSV for them.")
    newest = catalog.get("nccl", [{}])[-1].get("version", "")
    out.append(f"- NCCL after {newest}: the NVIDIA/nccl tags read end there (2.31 and 2.32 were "
               "not found).")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gpu-operator")
    parser.add_argument("--network-operator")
    parser.add_argument("--nccl")
    parser.add_argument("--sriov")
    parser.add_argument("--nfd")
    parser.add_argument("--kueue")
    parser.add_argument("--volcano")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    old = {}
    if os.path.exists(CATALOG):
        with open(CATALOG) as f:
            old = json.load(f)
    if args.markdown:
        sys.stdout.write(markdown(old))
        return
    if not all((args.gpu_operator, args.network_operator, args.nccl, args.sriov, args.nfd,
                args.kueue, args.volcano)):
        parser.error("--gpu-operator, --network-operator, --nccl, --sriov, --nfd, --kueue and "
                     "--volcano are required")
    new = {key: old[key] for key in ("comment", "known_bad", "gpu_operator_support")
           if key in old}
    new["gpu_operator"] = [gpu_operator(args.gpu_operator, t)
                           for t in tags(args.gpu_operator, OLDEST_GPU)]
    new["network_operator"] = [r for r in (network_operator(args.network_operator, t)
                                           for t in tags(args.network_operator, OLDEST_NETWORK))
                               if r]
    new["nccl"] = nccl(args.nccl)
    new["openshift_operators"] = openshift_operators({"sriov_network_operator": args.sriov,
                                                      "nfd": args.nfd})
    new["kueue"] = [kueue(args.kueue, t) for t in tags(args.kueue, OLDEST_KUEUE)]
    new["volcano"] = [volcano(args.volcano, t) for t in tags(args.volcano, OLDEST_VOLCANO)]
    carry(old.get("gpu_operator", []), new["gpu_operator"], ("end_of_support", "notes"))
    carry(old.get("network_operator", []), new["network_operator"], ("end_of_support", "notes"))
    text = json.dumps(new, indent=1, sort_keys=True) + "\n"
    for line in changes(old, new) or ["no change"]:
        print(line, file=sys.stderr)
    if not args.write:
        sys.stdout.write(text)
    elif not os.path.exists(CATALOG) or open(CATALOG).read() != text:
        os.makedirs(os.path.dirname(CATALOG), exist_ok=True)
        with open(CATALOG, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
