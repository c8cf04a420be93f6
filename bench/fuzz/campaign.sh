#!/usr/bin/env bash
# bench/fuzz/campaign.sh SECONDS OUTDIR [TARGET:PROCESSES ...]: a fuzzing campaign on a machine of
# many cores with programs built elsewhere (scripts/fuzz.sh --no-build): every target at once,
# each with its own number of independent fuzzing processes (fuzz.sh -j: no restarts), each
# minimizing its corpus into fuzz/corpus/<target>/ at the end (-m).
# Give the processes by the target's speed per core (bench/RESULTS.md) so that each reaches the
# executions it needs: slow targets many, fast ones few. Writes OUTDIR/table.txt (fuzz.sh's
# line per target), OUTDIR/logs.tgz (each target's fuzz.sh output and libFuzzer logs, the
# crashing inputs) and OUTDIR/corpora.tgz (the minimized corpora; the grown ones, grown.tgz,
# too when they fit in 15 MiB).
# Run from the folder that holds the repository's fuzz/, profiles/, schemas/, scripts/, the
# tests' seed folders and build-fuzz/fuzz/ (the programs), build-fuzz/dict/.
# HKIM_FUZZ_CORPUS (fuzz.sh) puts the grown corpora elsewhere, e.g. to continue a campaign.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=$1 out=$2
shift 2
plan=("$@")
if ((${#plan[@]} == 0)); then  # processes by how slow the target is: 62 for 64 cores
  plan=(render_fuzzer:10 set_render_fuzzer:12 cluster_export_fuzzer:10 profile_fuzzer:4
        doctor_fuzzer:4 sysfs_fuzzer:4 set_fuzzer:4 health_node_fuzzer:2 health_record_fuzzer:3
        health_exchange_fuzzer:2 environment_scan_fuzzer:2 transport_log_fuzzer:1
        rendezvous_fuzzer:1)
fi
# fuzz.sh leaves ASan's allocation stacks out (ASAN_OPTIONS), as these long runs need.
mkdir -p "$out" build-fuzz/campaign
for entry in "${plan[@]}"; do
  target=${entry%%:*} processes=${entry##*:}
  bash scripts/fuzz.sh --no-build -j "$processes" -m "$seconds" "$target" \
    >"build-fuzz/campaign/$target.txt" 2>&1 &
done
wait
grep -h -A1000 '^fuzz.sh: .* per target' build-fuzz/campaign/*.txt | grep -v -e '^fuzz.sh: ' -e '^--$' |
  sort >"$out/table.txt"
cat "$out/table.txt"
tar czf "$out/logs.tgz" build-fuzz/campaign build-fuzz/*.log build-fuzz/artifacts 2>/dev/null
tar czf "$out/corpora.tgz" fuzz/corpus
tar czf "$out/grown.tgz" -C "${HKIM_FUZZ_CORPUS:-build-fuzz/corpus}" .
if (($(stat -c %s "$out/grown.tgz") > 15 * 1024 * 1024)); then
  echo "campaign.sh: the grown corpora are $(du -h "$out/grown.tgz" | cut -f1) compressed: left behind"
  rm "$out/grown.tgz"
fi
