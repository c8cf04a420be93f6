#!/usr/bin/env bash
# Benchmark (run on demand, not part of ctest): renders a large generated profile — the Barcelona
# profile with N namespaces (default 64) × its 4 rails, so 64 × (4 NADs + SA + Role + RoleBinding +
# 2 ConfigMaps + Service + StatefulSet) objects — and times, with hyperfine:
#   1. `hkimgen render PROFILE -d DIR`  (validate, plan, render, write every file; DIR removed
#      before each run so the write is real)
#   2. `hkimgen render PROFILE`         (same, to the stdout stream)
#   3. `kubectl kustomize DIR`          (the peer: only reads back the same bundle)
# and prints the ratio of each hkimgen run to kubectl kustomize, measured in the same run.
# Then a fleet: 10 such profiles (each its own cluster, FLEET_NAMESPACES namespaces, default 16)
# rendered by one `hkimgen render P1 ... P10 -d DIR` with -j 1 and with -j N (N = the cores,
# nproc), and the ratio of the two (how the fleet render scales with cores).
#
# Usage: bench/render/run.sh [NAMESPACES]   (env HKIMGEN=path/to/hkimgen to skip the build;
#        FLEET_NAMESPACES=N per fleet profile)
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
generate() {  # generate TARGET NAMESPACES [CLUSTER]
  python3 - profiles/barcelona-h100-cx7.yaml "$1" "$2" "${3:-}" <<'PY'
import re, sys
source, target, count, cluster = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(source).read()
names = "".join(f"  - team-{i:03d}\n" for i in range(count))
text, n = re.subn(r"^namespaces:\n(  - .*\n)+", "namespaces:\n" + names, text, flags=re.M)
if n != 1:
    sys.exit("bench/render: could not find the namespaces list in the Barcelona profile")
if cluster:
    text, n = re.subn(r"^cluster:\n  name: barcelona\n", f"cluster:\n  name: {cluster}\n", text,
                      flags=re.M)
    if n != 1:
        sys.exit("bench/render: could not find cluster.name in the Barcelona profile")
    # Each its own cluster for Argo CD too (profiles of one destination must not share objects).
    text, n = re.subn(r"^gitops:\n", f"gitops:\n  destination_name: {cluster}\n", text, flags=re.M)
    if n != 1:
        sys.exit("bench/render: could not find gitops in the Barcelona profile")
open(target, "w").write(text)
PY
}
generate "$profile" "$namespaces"

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

# The fleet: 10 profiles, one command, 1 thread vs every core.
fleet_namespaces=${FLEET_NAMESPACES:-16}
cores=$(nproc)
mkdir -p "$work/fleet-profiles"
for i in $(seq -w 1 10); do
  generate "$work/fleet-profiles/bench-$i.yaml" "$fleet_namespaces" "bench-$i"
done
(cd "$work" && "$HKIMGEN" render fleet-profiles -q -d fleet-check -j 1 --fleet-path fleet &&
  "$HKIMGEN" render fleet-profiles -q -d fleet-check-n -j "$cores" --fleet-path fleet &&
  diff -r fleet-check fleet-check-n >/dev/null) ||
  { echo "bench/render: the fleet differs between -j 1 and -j $cores" >&2; exit 1; }
fleet_files=$(find "$work/fleet-check" -name "*.yaml" | wc -l)
echo "bench/render: fleet of 10 profiles x $fleet_namespaces namespaces -> $fleet_files files" >&2
hyperfine --warmup 2 --min-runs 10 --export-json "$work/fleet.json" \
  -n "fleet -j 1" --prepare "rm -rf '$work/fleet'" \
  "cd '$work' && '$HKIMGEN' render fleet-profiles -q -d fleet -j 1" \
  -n "fleet -j $cores" --prepare "rm -rf '$work/fleet'" \
  "cd '$work' && '$HKIMGEN' render fleet-profiles -q -d fleet -j $cores"

python3 - "$work/fleet.json" "$cores" <<'PY'
import json, sys
results = [r for r in json.load(open(sys.argv[1]))["results"]]
one, many = results[0], results[1]
print()
print(f"fleet of 10 profiles: -j 1 vs -j {sys.argv[2]} ({sys.argv[2]} cores), medians of whole processes")
print(f"{'command':<26}{'wall':>10}{'CPU':>10}")
for r in results:
    print(f"{r['command']:<26}{r['median'] * 1000:>8.1f}ms{(r['user'] + r['system']) * 1000:>8.1f}ms")
print(f"speed-up with {sys.argv[2]} threads: {one['median'] / many['median']:.2f}x wall "
      f"(ideal {sys.argv[2]}x; the folder write and _fleet/ are serial)")
PY
