#!/usr/bin/env bash
# Benchmark (run on demand, not part of ctest): `hkimgen diff` on a large bundle. The Barcelona
# profile with NAMESPACES namespaces (default 1000; its rails widened to hold them) is rendered
# into a folder, then each one-line change below is diffed against that folder, next to two
# peers measured in the same run: `hkimgen render -d NEW` of the changed profile (diff renders
# too) and GNU `diff -ru OLD NEW` of the two folders (the comparison alone). Targets (issue 51):
# diff under 2 s and 200 MB peak RSS, and within 2x the render.
#   add-namespace: a namespace inserted in the middle of `namespaces` (new files, and lines
#                  inserted in the middle of the bundle's README, tens of thousands of lines);
#   rename-workload: workload.name changed (a line changed in every namespace's part of README
#                  and in every namespace's StatefulSet, Service and gate: thousands of edits).
# Usage: bench/diff/run.sh [NAMESPACES]   (env HKIMGEN=path/to/hkimgen to skip the Release
#        build; RUNS=N runs per command, default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
namespaces=${1:-1000}
runs=${RUNS:-5}

for tool in hyperfine python3 diff; do
  command -v "$tool" >/dev/null || { echo "bench/diff: needs $tool" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "bench/diff: needs /usr/bin/time (package time)" >&2; exit 2; }
if [[ -z ${HKIMGEN:-} ]]; then
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DHKIM_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench --target hkimgen >/dev/null
  HKIMGEN=$PWD/build-bench/generator/hkimgen
fi

echo "bench/diff: load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# profile TARGET [CHANGE]: the shipped Barcelona profile with NAMESPACES namespaces, each rail's
# range a /20; CHANGE (add-namespace, rename-workload) edits one line more.
profile() {
  python3 - profiles/barcelona-h100-cx7.yaml "$1" "$namespaces" "${2:-}" <<'PY'
import re, sys
source, target, count, change = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(source).read()
names = [f"  - team-{i:04d}\n" for i in range(count)]
if change == "add-namespace":
    names.insert(count // 2, f"  - team-{count // 2:04d}a\n")
text, n = re.subn(r"^namespaces:\n(  - .*\n)+", "namespaces:\n" + "".join(names), text, flags=re.M)
text, r = re.subn(r"range: 10\.0\.10([0-9])\.0/24", r"range: 10.\1.0.0/20", text)
w = 1
if change == "rename-workload":
    text, w = re.subn(r"^workload:\n  name: h-kim\n", "workload:\n  name: h-kim2\n", text, flags=re.M)
if n != 1 or r < 1 or w != 1:
    sys.exit("bench/diff: the Barcelona profile no longer has the lines this bench edits")
open(target, "w").write(text)
PY
}

profile "$work/base.yaml"
"$HKIMGEN" render "$work/base.yaml" -q -d "$work/old"
echo "bench/diff: $namespaces namespaces -> $(find "$work/old" -type f | wc -l) files," \
  "README.md $(wc -l <"$work/old/README.md") lines" >&2
mkdir -p "$work/aside"
printf '#!/bin/sh\nif [ -e "$1" ]; then mv "$1" "%s/aside/$(date +%%s%%N)"; fi\n' "$work" >"$work/aside.sh"

for change in add-namespace rename-workload; do
  changed=$work/$change.yaml
  profile "$changed" "$change"
  # diff compares the render of the changed profile with the folder of the base one: its
  # --gitops path must be the folder's, as a render into it would set.
  "$HKIMGEN" render "$changed" -q -d "$work/new-$change"
  "$HKIMGEN" diff "$changed" -d "$work/old" >"$work/$change.diff"
  readme_lines() { grep -c '^[-+][^-+]' || true; }
  ours=$(sed -n '/^--- a\/README.md$/,/^--- a\//p' "$work/$change.diff" | readme_lines)
  gnu=$({ diff -u "$work/old/README.md" "$work/new-$change/README.md" || true; } | readme_lines)
  echo "bench/diff: $change: $(grep -c '^[~+>-] ' "$work/$change.diff") files in the plan;" \
    "README.md lines changed: hkimgen $ours, GNU diff -u $gnu" >&2
  hyperfine -N -i --warmup 1 --min-runs "$runs" --export-json "$work/$change.json" \
    -n "hkimgen diff" "'$HKIMGEN' diff '$changed' -d '$work/old'" \
    -n "hkimgen render -d NEW" --prepare "sh '$work/aside.sh' '$work/r-out'" \
    "'$HKIMGEN' render '$changed' -q -d '$work/r-out'" \
    -n "diff -ru OLD NEW" "diff -ru '$work/old' '$work/new-$change'" >&2
  for i in 1 2 3; do
    /usr/bin/time -f %M -o "$work/$change.rss-$i" "$HKIMGEN" diff "$changed" -d "$work/old" >/dev/null
    sh "$work/aside.sh" "$work/r-out"
    /usr/bin/time -f %M -o "$work/$change.render-rss-$i" "$HKIMGEN" render "$changed" -q -d "$work/r-out"
  done
done
echo "bench/diff: load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$work" <<'PY'
import json, statistics, sys, glob
work = sys.argv[1]
def rss(pattern):
    return statistics.median(int(open(f).read()) for f in glob.glob(f"{work}/{pattern}")) / 1024
# Judged by wall time and by CPU time (user + system): on a shared machine the wall time
# includes waiting for a core.
print("| change | hkimgen diff (wall / CPU) | render -d NEW (wall / CPU) | diff -ru OLD NEW | diff / render (wall / CPU) | diff peak RSS | render peak RSS | < 2 s, < 200 MB, <= 2x render: by wall / by CPU |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for change in ("add-namespace", "rename-workload"):
    r = {x["command"]: x for x in json.load(open(f"{work}/{change}.json"))["results"]}
    d, render, gnu = r["hkimgen diff"], r["hkimgen render -d NEW"], r["diff -ru OLD NEW"]
    ms = lambda x: f"{x['median'] * 1000:.0f} ms"
    cpu = lambda x: f"{(x['user'] + x['system']) * 1000:.0f} ms"
    seconds = lambda x: x["user"] + x["system"]
    ratio = d["median"] / render["median"]
    cpu_ratio = seconds(d) / seconds(render)
    mem = rss(f"{change}.rss-*")
    verdict = lambda ok: "met" if ok else "NOT met"
    by_wall = verdict(d["median"] < 2 and mem < 200 and ratio <= 2)
    by_cpu = verdict(seconds(d) < 2 and mem < 200 and cpu_ratio <= 2)
    print(f"| {change} | {ms(d)} / {cpu(d)} | {ms(render)} / {cpu(render)} | {ms(gnu)} | "
          f"{ratio:.2f}x / {cpu_ratio:.2f}x | {mem:.1f} MB | "
          f"{rss(change + '.render-rss-*'):.1f} MB | {by_wall} / {by_cpu} |")
PY
