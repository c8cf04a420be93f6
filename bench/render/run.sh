#!/usr/bin/env bash
# Benchmark (run on demand, not part of ctest): renders a large generated profile — the Barcelona
# profile with N namespaces (default 64) × its 4 rails, so 64 × (4 NADs + SA + Role + RoleBinding +
# 2 ConfigMaps + Service + StatefulSet) objects — and times, with hyperfine:
#   1. `hkimgen render PROFILE -d DIR`  (validate, plan, render, write every file; DIR removed
#      before each run so the write is real)
#   2. `hkimgen render PROFILE`         (same, to the stdout stream)
#   3. `kubectl kustomize DIR`          (the peer: only reads back the same bundle)
# and prints the ratio of each hkimgen run to kubectl kustomize, measured in the same run.
#
# Usage: bench/render/run.sh [NAMESPACES]   (env HKIMGEN=path/to/hkimgen to skip the build)
set -euo pipefail
cd "$(dirname "$0")/../.."
namespaces=${1:-64}

for tool in hyperfine kubectl python3; do
  command -v "$tool" >/dev/null || { echo "bench/render: needs $tool" >&2; exit 2; }
done
if [[ -z ${HKIMGEN:-} ]]; then
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DHKIM_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench --target hkimgen >/dev/null
  HKIMGEN=$PWD/build-bench/generator/hkimgen
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
profile=$work/bench-${namespaces}ns.yaml

# The shipped Barcelona profile with its one namespace replaced by N; everything else (4 rails,
# NCCL settings, security, GitOps) as shipped, so the schema and model see a realistic profile.
python3 - profiles/barcelona-h100-cx7.yaml "$profile" "$namespaces" <<'PY'
import re, sys
source, target, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(source).read()
names = "".join(f"  - team-{i:03d}\n" for i in range(count))
text, n = re.subn(r"^namespaces:\n(  - .*\n)+", "namespaces:\n" + names, text, flags=re.M)
if n != 1:
    sys.exit("bench/render: could not find the namespaces list in the Barcelona profile")
open(target, "w").write(text)
PY

"$HKIMGEN" render "$profile" -q -d "$work/bundle"
files=$(find "$work/bundle" -name "*.yaml" | wc -l)
kubectl kustomize "$work/bundle" >/dev/null
echo "bench/render: $namespaces namespaces x 4 rails -> $files files in the bundle" >&2

hyperfine --warmup 3 --min-runs 20 --export-json "$work/times.json" \
  -n "hkimgen render -d DIR" --prepare "rm -rf '$work/out'" "'$HKIMGEN' render '$profile' -q -d '$work/out'" \
  -n "hkimgen render (stdout)" "'$HKIMGEN' render '$profile' >/dev/null" \
  -n "kubectl kustomize DIR" "kubectl kustomize '$work/bundle' >/dev/null"

python3 - "$work/times.json" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
peer = results["kubectl kustomize DIR"]
peer_cpu = peer["user"] + peer["system"]
print()
print("ratio vs kubectl kustomize, measured in the same run (CPU = user + system, steadier on a")
print("busy machine than wall time)")
print(f"{'command':<26}{'wall':>10}{'ratio':>8}{'CPU':>10}{'ratio':>8}")
for name, r in results.items():
    cpu = r["user"] + r["system"]
    print(f"{name:<26}{r['mean'] * 1000:>8.1f}ms{r['mean'] / peer['mean']:>7.2f}x"
          f"{cpu * 1000:>8.1f}ms{cpu / peer_cpu:>7.2f}x")
PY
