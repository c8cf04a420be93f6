#!/usr/bin/env bash
# Benchmark (run on demand, not part of ctest): issue 13's render targets, each measured in one run
# (whole processes, medians; hyperfine, and interleaved rounds for Barcelona) and printed next to
# its target:
#   1. Barcelona: `hkimgen render profiles/barcelona-h100-cx7.yaml -d DIR` into a new folder
#      against the peer, `kubectl kustomize DIR` of the bundle it wrote (target: hkimgen >= 10x
#      faster). Shown too: the stdout render, and the render into DIR when DIR is current (the
#      re-render after an edit that changes nothing: compared, nothing written).
#   2. Large: the Barcelona profile with NAMESPACES namespaces (default 1000; its IP ranges widened
#      to hold them) rendered to a folder: median wall time and peak RSS (targets: < 1 s and
#      < 100 MB on this machine's cores).
#   3. Fleet: 10 such profiles (each its own cluster, FLEET_NAMESPACES namespaces, default 16) in
#      one `hkimgen render P1 ... P10 -d DIR`, -j 1 against -j N (N = nproc): the speed-up
#      (target: scales with cores). -j 1 and -j N must write the same bytes (checked first).
# Every folder render writes a new folder: the previous one is moved aside, not deleted, before
# each run (deleting thousands of files just before makes ext4's inode allocation slow, which
# would time the file system's clean-up rather than the render); all are removed at the end (so
# wait 8 minutes before running it again: ext4 skips inodes deleted in the last minutes,
# which makes creating files slow). Parts 1 and 2 run without a shell (part 1 spawns each process
# itself, part 2 uses hyperfine -N).
#
# Usage: bench/render/run.sh [NAMESPACES]   (env HKIMGEN=path/to/hkimgen to skip the build;
#        FLEET_NAMESPACES=N per fleet profile; RUNS=N runs, default 20; Barcelona at least 40)
set -euo pipefail
cd "$(dirname "$0")/../.."
namespaces=${1:-1000}
runs=${RUNS:-20}

for tool in hyperfine kubectl python3; do
  command -v "$tool" >/dev/null || { echo "bench/render: needs $tool" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "bench/render: needs /usr/bin/time (package time)" >&2; exit 2; }
if [[ -z ${HKIMGEN:-} ]]; then
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DHKIM_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench --target hkimgen >/dev/null
  HKIMGEN=$PWD/build-bench/generator/hkimgen
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/aside"
aside() {  # the hyperfine --prepare of a folder render: move the last output out of the way
  echo "if [ -e '$1' ]; then mv '$1' \"$work/aside/\$(date +%s%N)\"; fi"
}
# The same as a command of its own, for the runs hyperfine starts without a shell (-N: a shell's
# start, estimated and subtracted, would be a third of the noise on a 15 ms process).
printf '#!/bin/sh\nif [ -e "$1" ]; then mv "$1" "%s/aside/$(date +%%s%%N)"; fi\n' "$work" \
  >"$work/aside.sh"
aside_n() { echo "sh '$work/aside.sh' '$1'"; }

# The shipped Barcelona profile with its one namespace replaced by N (and each rail's range
# widened to a /20, 4,094 addresses, so that N namespaces x 2 replicas fit); everything else
# (4 rails, NCCL settings, security, GitOps) as shipped, so schema and model see a real profile.
generate() {  # generate TARGET NAMESPACES [CLUSTER]
  python3 - profiles/barcelona-h100-cx7.yaml "$1" "$2" "${3:-}" <<'PY'
import re, sys
source, target, count, cluster = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(source).read()
names = "".join(f"  - team-{i:04d}\n" for i in range(count))
text, n = re.subn(r"^namespaces:\n(  - .*\n)+", "namespaces:\n" + names, text, flags=re.M)
if n != 1:
    sys.exit("bench/render: could not find the namespaces list in the Barcelona profile")
text, n = re.subn(r"range: 10\.0\.10([0-9])\.0/24", r"range: 10.\1.0.0/20", text)
if n < 1:
    sys.exit("bench/render: could not find the rails' IP ranges in the Barcelona profile")
if cluster:
    text, n = re.subn(r"^cluster:\n  name: barcelona\n", f"cluster:\n  name: {cluster}\n", text,
                      flags=re.M)
    if n != 1:
        sys.exit("bench/render: could not find cluster.name in the Barcelona profile")
    # Each its own cluster for Argo CD too (profiles of one destination must not share objects):
    # the shipped profile names its API server, which the copy's own destination replaces.
    text = re.sub(r"^  destination_server: .*\n", "", text, flags=re.M)
    text, n = re.subn(r"^gitops:\n", f"gitops:\n  destination_name: {cluster}\n", text, flags=re.M)
    if n != 1:
        sys.exit("bench/render: could not find gitops in the Barcelona profile")
open(target, "w").write(text)
PY
}

# 1. Barcelona against kubectl kustomize.
barcelona=profiles/barcelona-h100-cx7.yaml
"$HKIMGEN" render "$barcelona" -q -d "$work/barcelona"
kubectl kustomize "$work/barcelona" >/dev/null
echo "bench/render: Barcelona -> $(find "$work/barcelona" -name '*.yaml' | wc -l) files" >&2
# Interleaved rounds (each round runs the four commands once, in turn), so that the ratio
# compares runs made under the same conditions: this VM's speed drifts by 10-30% over seconds,
# and measuring each command in a block of its own (as hyperfine does) put that drift into
# the ratio. Whole processes, spawned directly (no shell), output to /dev/null; medians.
python3 - "$HKIMGEN" "$barcelona" "$work" "$runs" "$(command -v kubectl)" <<'PY' >&2
import json, os, statistics, sys, time
hkimgen, profile, work, runs, kubectl = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
rounds, warmup = max(runs, 40), 3
devnull = os.open(os.devnull, os.O_WRONLY)
def timed(argv):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit(f"bench/render: {' '.join(argv)} failed ({status})")
    return time.perf_counter() - start
new_dir, current_dir = f"{work}/b-out", f"{work}/barcelona"
commands = {
    "hkimgen render -d DIR": [hkimgen, "render", profile, "-q", "-d", new_dir],
    "hkimgen render (stdout)": [hkimgen, "render", profile],
    "hkimgen render -d DIR (current)": [hkimgen, "render", profile, "-q", "-d", current_dir],
    "kubectl kustomize DIR": [kubectl, "kustomize", current_dir],
}
times = {name: [] for name in commands}
for i in range(warmup + rounds):
    for name, argv in commands.items():
        if argv[-1] == new_dir and os.path.exists(new_dir):  # a new folder every time
            os.rename(new_dir, f"{work}/aside/b-out-{i}")
        seconds = timed(argv)
        if i >= warmup:
            times[name].append(seconds)
results = []
print(f"Barcelona, {rounds} interleaved rounds (after {warmup} warm-up rounds): median [p25 .. p75]")
for name, samples in times.items():
    q = statistics.quantiles(samples, n=4)
    print(f"  {name:<36}{statistics.median(samples) * 1000:8.1f} ms  "
          f"[{q[0] * 1000:.1f} .. {q[2] * 1000:.1f}]")
    results.append({"command": name, "median": statistics.median(samples), "times": samples})
json.dump({"results": results}, open(f"{work}/barcelona.json", "w"))
PY

# 2. The large profile: wall time (hyperfine) and peak RSS (/usr/bin/time, 5 runs).
large=$work/large-${namespaces}ns.yaml
generate "$large" "$namespaces"
"$HKIMGEN" render "$large" -q -d "$work/large"
echo "bench/render: $namespaces namespaces -> $(find "$work/large" -name '*.yaml' | wc -l) files" >&2
hyperfine -N --warmup 1 --min-runs 10 --export-json "$work/large.json" \
  -n "hkimgen render -d DIR ($namespaces namespaces)" --prepare "$(aside_n "$work/l-out")" \
  "'$HKIMGEN' render '$large' -q -d '$work/l-out'" >&2
for i in 1 2 3 4 5; do
  eval "$(aside "$work/l-out")"
  /usr/bin/time -f %M -o "$work/rss-$i" "$HKIMGEN" render "$large" -q -d "$work/l-out"
done
cat "$work"/rss-* > "$work/rss"

# 3. The fleet: 10 profiles, one command, 1 thread vs every core.
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
echo "bench/render: fleet of 10 profiles x $fleet_namespaces namespaces ->" \
  "$(find "$work/fleet-check" -name '*.yaml' | wc -l) files" >&2
hyperfine --warmup 2 --min-runs 10 --export-json "$work/fleet.json" \
  -n "fleet -j 1" --prepare "$(aside "$work/fleet")" \
  "cd '$work' && '$HKIMGEN' render fleet-profiles -q -d fleet -j 1" \
  -n "fleet -j $cores" --prepare "$(aside "$work/fleet")" \
  "cd '$work' && '$HKIMGEN' render fleet-profiles -q -d fleet -j $cores" >&2

python3 - "$work" "$cores" "$namespaces" <<'PY'
import json, statistics, sys
work, cores, namespaces = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(name):
    return json.load(open(f"{work}/{name}.json"))["results"]
def ms(r):
    return f"{r['median'] * 1000:.1f} ms"
def verdict(ok):
    return "met" if ok else "NOT met"

barcelona = {r["command"]: r for r in load("barcelona")}
peer = barcelona["kubectl kustomize DIR"]
folder, stream = barcelona["hkimgen render -d DIR"], barcelona["hkimgen render (stdout)"]
current = barcelona["hkimgen render -d DIR (current)"]
large = load("large")[0]
rss = statistics.median(int(line) for line in open(f"{work}/rss")) / 1024
one, many = load("fleet")
speedup = one["median"] / many["median"]

print()
print(f"issue 13 render targets, measured in this run ({cores} cores; medians of whole processes)")
print(f"{'measure':<44}{'value':>16}  {'target':<18}result")
ratio = peer["median"] / folder["median"]
print(f"{'Barcelona -d DIR vs kubectl kustomize':<44}{ratio:>15.1f}x  {'>= 10x faster':<18}"
      f"{verdict(ratio >= 10)}")
print(f"{'  (hkimgen -d DIR / kustomize)':<44}{ms(folder) + ' / ' + ms(peer):>16}")
print(f"{'  Barcelona to stdout vs kustomize':<44}{peer['median'] / stream['median']:>15.1f}x")
print(f"{'  Barcelona -d DIR, bundle current, vs kust.':<44}{peer['median'] / current['median']:>15.1f}x")
print(f"{namespaces + ' namespaces -d DIR, wall':<44}{ms(large):>16}  {'< 1 s':<18}"
      f"{verdict(large['median'] < 1.0)}")
print(f"{namespaces + ' namespaces -d DIR, peak RSS':<44}{rss:>13.1f} MB  {'< 100 MB':<18}"
      f"{verdict(rss < 100)}")
print(f"{'fleet of 10: -j 1 / -j ' + str(cores):<44}{speedup:>15.2f}x  "
      f"{'scales (ideal ' + str(cores) + 'x)':<18}{'see RESULTS.md' if cores > 1 else 'n/a: 1 core'}")
print(f"{'  (-j 1 / -j ' + str(cores) + ')':<44}{ms(one) + ' / ' + ms(many):>16}")
PY
