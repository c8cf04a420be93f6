#!/usr/bin/env bash
# Benchmark (run on demand, not part of ctest): issue 38's targets for the cluster export reader.
# Generates, in a temporary folder, the hostile shapes the issue names and times hkimgen on each
# against peers that only load the same file (`python3 -c json.load`, `jq length`), in the same
# run, with peak RSS (/usr/bin/time):
#   1. a List inside a List of 5,000 nodes            (target: under 1 s; was 31.6 s)
#   2. 100,000 items that are not objects             (target: under 1 s and one warning; was 79 s)
#   3. a dense export of DENSE_MB MB (default 300) of short labels: hkimgen's peak RSS against the
#      file's size (target: a small multiple; hkimgen keeps at most 8 bytes (estimated) of
#      document per byte of text, export_parse.h, so this export is refused with
#      limit.export-values once it passes that, instead of growing to 12x)
#   4. a sparse 600 MiB file: refused by its size before it is read (time and RSS)
#
# Usage: bench/export/run.sh   (env HKIMGEN=path/to/hkimgen to skip the build; DENSE_MB=N;
#        RUNS=N runs per command, default 3, the median reported)
set -euo pipefail
cd "$(dirname "$0")/../.."
dense_mb=${DENSE_MB:-300}
runs=${RUNS:-3}
for tool in python3 jq; do
  command -v "$tool" >/dev/null || { echo "bench/export: needs $tool" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "bench/export: needs /usr/bin/time" >&2; exit 2; }
hkimgen=${HKIMGEN:-}
if [[ -z $hkimgen ]]; then
  cmake -S . -B build -G Ninja >/dev/null
  cmake --build build --target hkimgen >/dev/null
  hkimgen=build/generator/hkimgen
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$dense_mb" <<'PY'
import json, sys
work, dense_mb = sys.argv[1], int(sys.argv[2])
def node(i):
    return {"kind": "Node", "apiVersion": "v1",
            "metadata": {"name": "gpu-%05d" % i, "labels": {"kubernetes.io/hostname": "gpu-%05d" % i,
                         "node.kubernetes.io/instance-type": "BM.GPU.H100.8"}},
            "status": {"capacity": {"nvidia.com/gpu": "8", "cpu": "224"}}}
with open(work + "/nested.json", "w") as out:
    json.dump({"kind": "List", "items": [{"kind": "List", "items": [node(i) for i in range(5000)]}]},
              out, indent=2)
with open(work + "/non-objects.json", "w") as out:
    out.write('{"kind": "List", "items": [' + ",".join(["1"] * 100000) + "]}")
# Dense: nodes of 1,000 one-character labels each, written as text (json.dump of 300 MB would
# need gigabytes of Python objects).
with open(work + "/dense.json", "w") as out:
    out.write('{"kind": "List", "items": [\n')
    labels = ",".join('"l%d":"v"' % k for k in range(1000))
    size, i = 0, 0
    while size < dense_mb * 1000 * 1000:
        line = ('%s{"kind":"Node","metadata":{"name":"n%d","labels":{%s}}}\n'
                % ("," if i else "", i, labels))
        out.write(line)
        size += len(line)
        i += 1
    out.write("]}\n")
PY
truncate -s 600M "$work/huge.json"

# Median wall seconds and CPU seconds (user + system) of RUNS runs, and the peak RSS (KiB) of
# the last (a shared machine's wall time includes waiting for a core; its CPU time does not).
measure() {
  local times=() cpus=() rss line
  for ((r = 0; r < runs; r++)); do
    /usr/bin/time -o "$work/time" -f '%e %U %S %M' "$@" >/dev/null 2>&1 || true
    line=$(tail -1 "$work/time")
    read -r wall user sys rss <<<"$line"
    times+=("$wall")
    cpus+=("$(python3 -c "print($user + $sys)")")
  done
  local middle=$(((runs + 1) / 2))
  printf '%s\n' "${times[@]}" | sort -n | sed -n "${middle}p" | tr '\n' ' '
  printf '%s\n' "${cpus[@]}" | sort -n | sed -n "${middle}p" | tr '\n' ' '
  echo "$rss"
}
report() {  # name file hkimgen-command...
  local name=$1 file=$2
  shift 2
  read -r h_s h_c h_rss < <(measure "$@")
  read -r p_s p_c p_rss < <(measure python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$file")
  read -r j_s j_c j_rss < <(measure jq length "$file")
  local size
  size=$(stat -c %s "$file")
  python3 - "$name" "$size" "$h_s" "$h_c" "$h_rss" "$p_s" "$p_c" "$p_rss" "$j_s" "$j_c" "$j_rss" <<'PY'
import sys
name, size = sys.argv[1], float(sys.argv[2])
rows = [("hkimgen",) + tuple(map(float, sys.argv[3:6])),
        ("python json.load",) + tuple(map(float, sys.argv[6:9])),
        ("jq length",) + tuple(map(float, sys.argv[9:12]))]
print("%s: %.1f MiB" % (name, size / 2**20))
for tool, wall, cpu, rss in rows:
    print("  %-17s wall %7.3f s  CPU %7.3f s  RSS %7.0f MiB (%4.1fx the file)  CPU vs hkimgen %.2fx"
          % (tool, wall, cpu, rss / 1024, rss * 1024 / size, cpu / max(rows[0][2], 1e-3)))
PY
}
profile=profiles/barcelona-h100-cx7.yaml
report "nested List, 5,000" "$work/nested.json" "$hkimgen" discover "$work/nested.json"
report "100,000 non-objects" "$work/non-objects.json" "$hkimgen" validate "$profile" --cluster "$work/non-objects.json"
{ "$hkimgen" validate "$profile" --cluster "$work/non-objects.json" 2>&1 || true; } |
  awk '{ bytes += length($0) + 1 } END { printf "  its output: %d lines, %d bytes\n", NR, bytes }'
report "dense ${dense_mb} MB" "$work/dense.json" "$hkimgen" validate "$profile" --cluster "$work/dense.json"
{ "$hkimgen" validate "$profile" --cluster "$work/dense.json" 2>&1 || true; } |
  grep -m1 'limit.export-values' | cut -c1-160 | sed 's/^/  /' || true
read -r r_s r_c r_rss < <(measure "$hkimgen" validate "$profile" --cluster "$work/huge.json")
echo "sparse 600 MiB: refused in $r_s s wall, $r_c s CPU, $((r_rss / 1024)) MiB RSS (before reading it)"
