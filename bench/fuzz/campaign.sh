#!/usr/bin/env bash
# bench/fuzz/campaign.sh SECONDS OUTDIR [TARGET:WORKERS ...]: a fuzzing campaign on a machine of
# many cores with programs built elsewhere (scripts/fuzz.sh --no-build): every target at once,
# each with its own worker count (libFuzzer's fork mode), each minimizing its corpus into
# fuzz/corpus/<target>/ at the end (-m). Writes OUTDIR/table.txt (fuzz.sh's line per target),
# OUTDIR/logs.tgz (each target's fuzz.sh output and libFuzzer log, the crashing inputs) and
# OUTDIR/corpora.tgz (the minimized corpora; the grown ones too when they fit in 15 MiB).
# Run from the folder that holds the repository's fuzz/, profiles/, schemas/, scripts/, the
# tests' seed folders and build-fuzz/fuzz/ (the programs), build-fuzz/dict/.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=$1 out=$2
shift 2
plan=("$@")
if ((${#plan[@]} == 0)); then  # workers by how slow the target is: 61 workers for 64 cores
  plan=(render_fuzzer:8 set_render_fuzzer:8 cluster_export_fuzzer:7 profile_fuzzer:6 doctor_fuzzer:5
        sysfs_fuzzer:6 set_fuzzer:4 health_node_fuzzer:3 health_record_fuzzer:3
        health_exchange_fuzzer:3 environment_scan_fuzzer:3 transport_log_fuzzer:3
        rendezvous_fuzzer:2)
fi
mkdir -p "$out" build-fuzz/campaign
for entry in "${plan[@]}"; do
  target=${entry%%:*} workers=${entry##*:}
  bash scripts/fuzz.sh --no-build -w "$workers" -m "$seconds" "$target" \
    >"build-fuzz/campaign/$target.txt" 2>&1 &
done
wait
grep -h -A1000 '^fuzz.sh: .* worker' build-fuzz/campaign/*.txt | grep -v '^fuzz.sh: ' |
  sort >"$out/table.txt"
cat "$out/table.txt"
tar czf "$out/logs.tgz" build-fuzz/campaign build-fuzz/*.log build-fuzz/artifacts 2>/dev/null
tar czf "$out/corpora.tgz" fuzz/corpus
tar czf "$out/grown.tgz" build-fuzz/corpus
if (($(stat -c %s "$out/grown.tgz") > 15 * 1024 * 1024)); then
  echo "campaign.sh: the grown corpora are $(du -h "$out/grown.tgz" | cut -f1) compressed: left behind"
  rm "$out/grown.tgz"
fi
