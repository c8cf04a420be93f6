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
#   3. Fleet: FLEET_SIZE (default 100) Barcelona-sized profiles (each its own cluster, with the
#      shipped profile's namespaces, or FLEET_NAMESPACES of them) rendered into one fleet repo
#      with `hkimgen render FOLDER -d DIR`, -j 1 against -j 2 (targets: < 2 s at -j 2, and -j 2
#      >= 1.8x faster than -j 1). -j 1 and -j 2 must write the same bytes (checked first).
# Every target is printed with its measure; wall times and CPU times (user + system: on a loaded
# machine the wall time includes waiting for a core, the CPU time does not) side by side, with
# the load average at the start and the end.
# Every folder render writes a new folder: the previous one is moved aside, not deleted, before
# each run (deleting thousands of files just before makes ext4's inode allocation slow, which
# would time the file system's clean-up rather than the render); all are removed at the end (so
# wait 8 minutes before running it again: ext4 skips inodes deleted in the last minutes,
# which makes creating files slow). Parts 1 and 2 run without a shell (part 1 spawns each process
# itself, part 2 uses hyperfine -N).
#
# Usage: bench/render/run.sh [NAMESPACES]   (env HKIMGEN=path/to/hkimgen to skip the build;
#        FLEET_SIZE=N profiles in the fleet, FLEET_NAMESPACES=N per fleet profile (default: the
#        shipped profile's); RUNS=N runs, default 20; Barcelona at least 40)
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

echo "bench/render: load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
work=$(mktemp -d)
echo "bench/render: working in $work (set TMPDIR to a folder where nothing was deleted lately)" >&2
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
generate() {  # generate TARGET NAMESPACES [CLUSTER]   (NAMESPACES 0: the shipped ones)
  python3 - profiles/barcelona-h100-cx7.yaml "$1" "$2" "${3:-}" <<'PY'
import re, sys
source, target, count, cluster = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(source).read()
names = "".join(f"  - team-{i:04d}\n" for i in range(count))
text, n = re.subn(r"^namespaces:\n(  - .*\n)+", "namespaces:\n" + names, text,
                  flags=re.M) if count else (text, 1)
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
def timed(argv):  # (wall, CPU = user + system) seconds of one process
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"bench/render: {' '.join(argv)} failed ({status})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime
new_dir, current_dir = f"{work}/b-out", f"{work}/barcelona"
commands = {
    "hkimgen render -d DIR": [hkimgen, "render", profile, "-q", "-d", new_dir],
    "hkimgen render (stdout)": [hkimgen, "render", profile],
    "hkimgen render -d DIR (current)": [hkimgen, "render", profile, "-q", "-d", current_dir],
    "kubectl kustomize DIR": [kubectl, "kustomize", current_dir],
}
times = {name: [] for name in commands}
cpu = {name: [] for name in commands}
names = list(commands)
for i in range(warmup + rounds):
    # Each round starts with the next command: none always runs right after the same one (a
    # render right after kubectl kustomize, the previous round's last, ran ~0.6 ms slower).
    for name in names[i % len(names):] + names[:i % len(names)]:
        argv = commands[name]
        if argv[-1] == new_dir and os.path.exists(new_dir):  # a new folder every time
            os.rename(new_dir, f"{work}/aside/b-out-{i}")
        seconds, cpu_seconds = timed(argv)
        if i >= warmup:
            times[name].append(seconds)
            cpu[name].append(cpu_seconds)
results = []
print(f"Barcelona, {rounds} interleaved rounds (after {warmup} warm-up rounds): median [p25 .. p75]")
for name, samples in times.items():
    q = statistics.quantiles(samples, n=4)
    print(f"  {name:<36}{statistics.median(samples) * 1000:8.1f} ms  "
          f"[{q[0] * 1000:.1f} .. {q[2] * 1000:.1f}]  CPU {statistics.median(cpu[name]) * 1000:.1f} ms")
    results.append({"command": name, "median": statistics.median(samples), "times": samples,
                    "cpu": statistics.median(cpu[name])})
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

# 3. The fleet: FLEET_SIZE Barcelona-sized clusters into one repo, -j 1 vs -j 2.
fleet_size=${FLEET_SIZE:-100}
fleet_namespaces=${FLEET_NAMESPACES:-0}
cores=2
mkdir -p "$work/fleet-profiles"
for i in $(seq -w 1 "$fleet_size"); do
  generate "$work/fleet-profiles/bench-$i.yaml" "$fleet_namespaces" "bench-$i"
done
(cd "$work" && "$HKIMGEN" render fleet-profiles -q -d fleet-check -j 1 --fleet-path fleet &&
  "$HKIMGEN" render fleet-profiles -q -d fleet-check-n -j "$cores" --fleet-path fleet &&
  diff -r fleet-check fleet-check-n >/dev/null) ||
  { echo "bench/render: the fleet differs between -j 1 and -j $cores" >&2; exit 1; }
echo "bench/render: fleet of $fleet_size profiles ->" \
  "$(find "$work/fleet-check" -name '*.yaml' | wc -l) files" >&2
hyperfine --warmup 1 --min-runs "${FLEET_RUNS:-5}" --export-json "$work/fleet.json" \
  -n "fleet -j 1" --prepare "$(aside "$work/fleet")" \
  "cd '$work' && '$HKIMGEN' render fleet-profiles -q -d fleet -j 1 --fleet-path fleet" \
  -n "fleet -j $cores" --prepare "$(aside "$work/fleet")" \
  "cd '$work' && '$HKIMGEN' render fleet-profiles -q -d fleet -j $cores --fleet-path fleet" >&2
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$work" "$cores" "$namespaces" "$fleet_size" <<'PY'
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
fleet_size = sys.argv[4]

def cpu(r):  # hyperfine's mean user + system; the Barcelona rounds' median
    return r["cpu"] if "cpu" in r else r["user"] + r["system"]

print()
print(f"issue 41 render targets, measured in this run (2 threads; medians of whole processes;"
      f" load average {open('/proc/loadavg').read().split()[0]})")
print(f"{'measure':<46}{'wall':>14}{'CPU':>14}  {'target':<20}result (wall)")
def ratio_row(label, r):
    wall, cpu_ratio = peer["median"] / r["median"], cpu(peer) / cpu(r)
    print(f"{label:<46}{wall:>13.1f}x{cpu_ratio:>13.1f}x  {'>= 10x faster':<20}{verdict(wall >= 10)}")
ratio_row("Barcelona -d DIR vs kubectl kustomize", folder)
ratio_row("Barcelona to stdout vs kubectl kustomize", stream)
print(f"{'  (-d DIR / stdout / kustomize)':<46}"
      f"{ms(folder) + ' / ' + ms(stream) + ' / ' + ms(peer):>28}")
print(f"{'  Barcelona -d DIR, bundle current, vs kust.':<46}{peer['median'] / current['median']:>13.1f}x"
      f"{cpu(peer) / cpu(current):>13.1f}x")
print(f"{namespaces + ' namespaces -d DIR':<46}{ms(large):>14}{cpu(large) * 1000:>11.1f} ms  "
      f"{'< 1 s':<20}{verdict(large['median'] < 1.0)}")
print(f"{namespaces + ' namespaces -d DIR, peak RSS':<46}{rss:>11.1f} MB{'':>14}  {'< 100 MB':<20}"
      f"{verdict(rss < 100)}")
print(f"{'fleet of ' + fleet_size + ' into a repo, -j ' + str(cores):<46}{ms(many):>14}"
      f"{cpu(many) * 1000:>11.1f} ms  {'< 2 s':<20}{verdict(many['median'] < 2.0)}")
speedup = one["median"] / many["median"]
print(f"{'fleet -j 1 / -j ' + str(cores):<46}{speedup:>13.2f}x{'':>14}  {'>= 1.8x':<20}"
      f"{verdict(speedup >= 1.8)}")
print(f"{'  (-j 1 wall / CPU)':<46}{ms(one):>14}{cpu(one) * 1000:>11.1f} ms")
PY
