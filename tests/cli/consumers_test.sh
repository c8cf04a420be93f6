#!/usr/bin/env bash
# The fabric consumers (fabric_health.consumers, templates/consumers/) as a render makes them:
# off by default; when asked, the NodeHealthCheck, NVSentinel's values and node-problem-detector's
# plugin config are in the bundle, every file of it validates against the upstream schemas
# (../shared/upstream-schemas plus tests/data/upstream-crds/, SOURCE.md there), the
# NodeHealthCheck never remediates, the embedded configs match their upstream formats and their
# CEL selects exactly the pool's nodes whose condition is True or Unknown (tests/cel/, run
# --consumers), and the implied preconditions are in the bundle's README.
# Skipped (exit 77) without node and npm, which the validators need.
# Usage: consumers_test.sh HKIMGEN SOURCE_DIR SHARED_DIR
set -euo pipefail
hkimgen=$1 src=$2 shared=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "SKIP: node and npm are not installed" >&2; exit 77; }

on=fabric_health.consumers
render() { "$hkimgen" render "$@" 2>"$work/render.err" || { cat "$work/render.err" >&2; fail "render $*"; }; }
render "$src/profiles/oke-h100.yaml" -d "$work/plain"
if grep -rlE 'kind: NodeHealthCheck|nvsentinel-values|rdma-fabric-npd' "$work/plain"; then
  fail "a profile that asks for no consumer renders consumer objects"
fi
render "$src/profiles/oke-h100.yaml" -d "$work/oke" \
  --set "$on.nvsentinel.enabled=true" --set "$on.node_problem_detector.enabled=true" \
  --set "$on.node_health_check.enabled=true"
render "$src/profiles/barcelona-h100-cx7.yaml" -d "$work/ocp" \
  --set "$on.node_health_check.enabled=true" --set "$on.node_health_check.true_seconds=600"

nhc=$work/ocp/platform/30-nodehealthcheck-hkimgen-barcelona-rdma-fabric.yaml
values=$work/oke/platform/30-configmap-nvsentinel-hkimgen-oke-h100-nvsentinel-values.yaml
npd=$work/oke/platform/30-configmap-kube-system-hkimgen-oke-h100-rdma-fabric-npd.yaml
for file in "$nhc" "$values" "$npd" "$work/oke/platform/30-nodehealthcheck-hkimgen-oke-h100-rdma-fabric.yaml"; do
  [[ -f $file ]] || { ls -R "$work/oke" "$work/ocp" >&2; fail "no $file"; }
done

# Every file of both bundles against the upstream schemas, the NodeHealthCheck CRD included.
mkdir "$work/schemas"
ln -s "$shared/upstream-schemas"/* "$work/schemas/"
cp "$src/tests/data/upstream-crds"/*_*_*.json "$work/schemas/"
mapfile -t files < <(find "$work/oke" "$work/ocp" -name '*.yaml' ! -name kustomization.yaml | sort)
status=0
"$shared/tools/validate-upstream/run" --schemas "$work/schemas" --quiet "${files[@]}" >"$work/v.out" 2>&1 ||
  status=$?
if [[ $status == 2 ]] && grep -qE 'npm ci failed|needs node and npm' "$work/v.out"; then
  echo "SKIP: validate-upstream could not install its npm packages" >&2
  exit 77
fi
[[ $status == 0 ]] || { cat "$work/v.out" >&2; fail "a consumer bundle does not validate"; }

# The NodeHealthCheck: the pool, the condition True and Unknown, and no remediation ever.
grep -qx '  minHealthy: 100%' "$nhc" || fail "the NodeHealthCheck can remediate"
grep -qx '      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3' "$nhc" || fail "the NodeHealthCheck misses the pool"
grep -qx '    - key: node-role.kubernetes.io/control-plane' "$nhc" || fail "the NodeHealthCheck may take control-plane nodes"
grep -A3 -x '  - type: RdmaFabric' "$nhc" | grep -qx '    duration: 600s' || fail "true_seconds is not the duration"
grep -qx '    status: Unknown' "$nhc" || fail "a stale condition does not count"
grep -qx '    kind: SelfNodeRemediationTemplate' "$nhc" || fail "no remediation template"

# The implied preconditions, with their checks, in the README.
grep -qF 'remediation.medik8s.io/NodeHealthCheck' "$work/ocp/README.md" || fail "README lacks the NodeHealthCheck CRD"
grep -qF 'nvsentinel/kubernetes-object-monitor' "$work/oke/README.md" || fail "README lacks NVSentinel"
grep -qF 'kube-system/node-problem-detector' "$work/oke/README.md" || fail "README lacks node-problem-detector"

# The embedded configs against their upstream formats; the CEL as NVSentinel would run it.
bash "$src/tests/cel/run" --consumers "$src/tests/data/upstream-crds" \
  '{"node.kubernetes.io/instance-type": "BM.GPU.H100.8"}' "$values" "$npd"
echo "ok: the consumers render, validate and select the pool's bad nodes"
