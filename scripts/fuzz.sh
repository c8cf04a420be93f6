#!/usr/bin/env bash
# scripts/fuzz.sh [-w WORKERS | -j PROCESSES] [-m] [--no-build | --quick-build] [SECONDS] [TARGET...]: builds
# the libFuzzer targets (fuzz/CMakeLists.txt) with clang, ASan and UBSan in build-fuzz/, then fuzzes each
# target for SECONDS (default 60) under `nice -n 19`, one after the other; fuzz/README.md says
# what each target covers.
#   -w N        N worker processes per target (libFuzzer's fork mode; crashes, timeouts and OOMs
#               are collected and the campaign goes on); default 1, a plain in-process run
#   -j N        N independent in-process fuzzers per target sharing its grown corpus (each
#               reloads what the others add): no restarts; a crash ends its process (the
#               others go on)
#   -m          afterwards, minimize each target's grown corpus together with its committed one
#               (-merge=1, edges only) into fuzz/corpus/<target>/ (regression-* and crash-*
#               inputs are always kept)
#   --no-build  use the programs already in $HKIM_FUZZ_BUILD/fuzz (a copy on another machine)
#   --quick-build  build at -O1 instead of -O2 (ctest's smoke test: the same ASan + UBSan checks
#               for less compiling; campaigns, which want executions per second, keep -O2)
# Each target starts from fuzz/corpus/<target>/ (committed, minimized), the real inputs of the
# tests (profiles/, tests/generator/...) and its grown corpus, $HKIM_FUZZ_CORPUS/<target>/
# (default build-fuzz/corpus/<target>/, kept between runs), with fuzz/dict/<target>.dict
# (profile targets: plus every key of schemas/profile.schema.json). Prints one line per target:
# executions, exec/s, coverage (edges) and features, corpus size, crashes (and slow units, when
# libFuzzer kept inputs that ran over 10 s: not a failure). Exit 0 when no target
# crashed, 1 when one did (the input is in build-fuzz/artifacts/; make it a regression test),
# 77 when clang++ is missing (ctest reads 77 as "skipped").
#   HKIM_FUZZ_BUILD=dir    build folder (default build-fuzz)
#   HKIM_FUZZ_CORPUS=dir   where the grown corpora live (default $HKIM_FUZZ_BUILD/corpus)
#   HKIM_FUZZ_JOBS=N       build jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

workers=1
processes=1
merge=0
build_it=1
optimize=-O2
while (($#)); do
  case $1 in
    -w) workers=$2; shift 2 ;;
    -j) processes=$2; shift 2 ;;
    -m) merge=1; shift ;;
    --no-build) build_it=0; shift ;;
    --quick-build) optimize=-O1; shift ;;
    *) break ;;
  esac
done
seconds=60
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
all_targets=(render_fuzzer set_fuzzer set_render_fuzzer profile_fuzzer cluster_export_fuzzer
             doctor_fuzzer environment_scan_fuzzer sysfs_fuzzer transport_log_fuzzer
             rendezvous_fuzzer health_node_fuzzer health_record_fuzzer health_exchange_fuzzer
             health_link_fuzzer)
targets=("$@")
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")

build=${HKIM_FUZZ_BUILD:-build-fuzz}
corpora=${HKIM_FUZZ_CORPUS:-$build/corpus}
if ((build_it)); then
  clangxx=$(command -v clang++ || command -v clang++-14 || true)
  if [[ -z $clangxx ]]; then
    echo "fuzz.sh: clang++ not found (bash scripts/setup.sh installs clang): skipped" >&2
    exit 77
  fi
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # A unity build (fuzz/CMakeLists.txt lists the libraries that cannot be one): the sanitizer
  # build compiles a third as many translation units.
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$optimize -g1 -DNDEBUG" \
    -DHKIM_FUZZERS=ON -DHKIM_BUILD_TESTS=OFF -DHKIM_BUILD_NCCL_CHECK=OFF -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 "${launcher[@]}" >/dev/null
  # Targets this machine cannot build (hkim-health needs Boost.Beast and static OpenSSL) are left out.
  known=$(ninja -C "$build" -t targets all 2>/dev/null | cut -d: -f1)
  present=()
  for t in "${targets[@]}"; do
    if grep -qx "fuzz/$t" <<<"$known" || grep -qx "$t" <<<"$known"; then
      present+=("$t")
    else
      echo "fuzz.sh: $t is not built on this machine (see fuzz/CMakeLists.txt): skipped" >&2
    fi
  done
  targets=("${present[@]}")
  nice -n 19 cmake --build "$build" -j"${HKIM_FUZZ_JOBS:-2}" --target "${targets[@]}"
fi

# The real inputs of the tests, for the targets that read the same kind of text.
extra_seeds() {
  local target=$1 dir=$build/seeds/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  case $target in
    render_fuzzer | profile_fuzzer)
      find profiles tests/generator/malformed tests/generator/lint_cases \
        -name '*.yaml' -size -64k 2>/dev/null | while read -r f; do
        cp "$f" "$dir/$(echo "$f" | tr / _)"
      done ;;
    environment_scan_fuzzer) cp wrapper/hkim_wrapper/fuzz/corpus/* "$dir"/ 2>/dev/null || true ;;
    cluster_export_fuzzer)
      find tests/generator/cluster_check tests/generator/discover -name '*.json' -o -name '*.yaml' \
        2>/dev/null | while read -r f; do cp "$f" "$dir/$(echo "$f" | tr / _)"; done ;;
  esac
  echo "$dir"
}

# The dictionary of a target (fuzz/dict/), and for the targets that read profiles every property
# name and enum value of schemas/profile.schema.json (with jq; --no-build keeps the one made
# where the programs were built).
dictionary() {
  local target=$1 out=$build/dict/$1.dict own=fuzz/dict/$1.dict schema=0
  case $target in
    render_fuzzer | profile_fuzzer) own=fuzz/dict/profile_yaml.dict schema=1 ;;
    set_fuzzer | set_render_fuzzer) own=fuzz/dict/set_arguments.dict schema=1 ;;
  esac
  mkdir -p "$build/dict"
  if ((schema)) && command -v jq >/dev/null; then
    { cat "$own"
      jq -r '.. | objects | ((.properties // {}) | keys[]), ((.enum // []) | .[] | strings)' \
        schemas/profile.schema.json | sort -u | sed 's/[\\"]/\\&/g; s/.*/"&"/'
    } >"$out"
  elif ((schema)) && [[ -s $out ]]; then
    :  # no jq here: the one made where the programs were built
  elif [[ -f $own ]]; then
    cp "$own" "$out"
  else
    : >"$out"
  fi
  [[ -s $out ]] && echo "$out"
  return 0
}

# The longest input a target is given. An input costs about its length, and libFuzzer lengthens
# its inputs up to this in a long run, so each is a little above the longest real input: a
# profile (the largest shipped is 10.6 KB) 16 KiB; a `kubectl logs` text for doctor 8 KiB (a
# summary line is under 1 KiB: eight pods' summaries); a cluster export 64 KiB (the tests' export
# of a live cluster is 52 KB, longer inputs are cut to this).
max_len() {
  case $1 in
    set_fuzzer | set_render_fuzzer | rendezvous_fuzzer | environment_scan_fuzzer) echo 4096 ;;
    doctor_fuzzer) echo 8192 ;;
    render_fuzzer | profile_fuzzer) echo 16384 ;;
    health_*) echo 32768 ;;
    *) echo 65536 ;;
  esac
}

# CPU seconds used by this shell's finished children (bash's `times`, second line), in
# hundredths: a target's executions per CPU second is its speed per core, whatever the load.
child_cpu() {  # sets $cpu_now; `times` runs in this shell (a subshell has no children of its own)
  local user system
  times >"$build/$target.times"  # one file per target: campaigns run several fuzz.sh at once
  read -r user system < <(tail -1 "$build/$target.times") || true
  cpu_now=$(( $(cpu_hundredths "$user") + $(cpu_hundredths "$system") ))
}
cpu_hundredths() {  # "1m2.345s" -> 6234
  local m=${1%%m*} s=${1#*m}
  s=${s%s}
  echo $(( 10#$m * 6000 + 10#${s%.*} * 100 + 10#$(printf '%.2s' "${s#*.}00") ))
}

# No allocation and free stacks in ASan's reports: they cost the allocation-heavy targets 10 to
# 30% of their speed at first and more as a long run goes on (render_fuzzer's stack depot took
# 13% of it after 20 minutes, perf). A crash's input is kept; running it again without this
# gives the stacks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}

status=0
summary=()
artifacts=$build/artifacts
mkdir -p "$artifacts"
for target in "${targets[@]}"; do
  binary=$build/fuzz/$target
  grown=$corpora/$target
  committed=fuzz/corpus/$target
  mkdir -p "$grown" "$committed"
  seeds=$(extra_seeds "$target")
  dict=$(dictionary "$target")
  log=$build/$target.log
  stamp=$build/$target.start
  : >"$stamp"
  # Entropic scheduling (libFuzzer's default) counts every feature an input reaches and looks
  # each one up in its list of rare features: every feature seen fewer than 255 times, thousands
  # in the generator targets, so the look-up took half of render_fuzzer's time (perf). A
  # threshold of 1 keeps the list to the 100 rarest (entropic's own count), still favoured.
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$target")"
           -entropic_feature_frequency_threshold=1
           -print_final_stats=1 -artifact_prefix="$artifacts/$target-")
  [[ -n $dict ]] && options+=(-dict="$dict")
  ((workers > 1)) && options+=(-fork="$workers" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  start=$(date +%s)
  child_cpu
  cpu_start=$cpu_now
  set +e
  # The generator targets read profiles/ relative to the repository root.
  export HKIM_FUZZ_PROFILE=$root/profiles/oke-h100.yaml HKIM_FUZZ_SET_BASE=$root/fuzz/set_base.yaml
  if ((processes > 1)); then  # each its own log; new inputs go to the first folder, $grown
    rm -f "$log".[0-9]*
    pids=()
    for ((p = 1; p <= processes; p++)); do
      nice -n 19 "$binary" "${options[@]}" -seed="$p$RANDOM" "$grown" "$committed" "$seeds" \
        >"$log.$p" 2>&1 &
      pids+=($!)
    done
    rc=0
    for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
    cat "$log".[0-9]* >"$log"
  else
    nice -n 19 "$binary" "${options[@]}" "$grown" "$committed" "$seeds" >"$log" 2>&1
    rc=$?
  fi
  set -e
  elapsed=$(($(date +%s) - start))
  child_cpu
  cpu=$((cpu_now - cpu_start))
  if ((workers > 1)); then  # the parent's last status line: "#EXECS: cov: C ft: F corp: N ..."
    last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -1 || true)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  else  # each process's final stats, summed; the coverage of the one that reached most
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" |
      awk '{ for (i = 1; i < NF; i++) if ($i == "cov:" && $(i + 1) + 0 >= best) { best = $(i + 1) + 0; line = $0 } }
           END { print line }' || true)
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' |
      awk '{ s += $1 } END { print s + 0 }')
  fi
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
  corpus=$(find "$grown" -type f | wc -l)
  # libFuzzer also keeps an input that ran over 10 s (-report_slow_units) as slow-unit-*: not a
  # failure (a loaded machine makes them; run it again alone to time it), so counted apart.
  crashes=$(find "$artifacts" -name "$target-*" ! -name "$target-slow-unit-*" -type f \
    -newer "$stamp" | wc -l)
  slow=$(find "$artifacts" -name "$target-slow-unit-*" -type f -newer "$stamp" | wc -l)
  if ((rc != 0 || crashes > 0)); then
    status=1
    echo "fuzz.sh: $target failed (exit $rc, $crashes input(s) in $artifacts); see $log" >&2
    tail -40 "$log" >&2
  fi
  if ((merge)); then
    merged=$build/merged/$target
    rm -rf "$merged"
    mkdir -p "$merged"
    previous=$build/previous/$target
    rm -rf "$previous"
    mkdir -p "$previous"
    find "$committed" -maxdepth 1 -type f ! -name 'regression-*' ! -name 'crash-*' \
      -exec mv -t "$previous" {} +
    nice -n 19 "$binary" -merge=1 -use_counters=0 \
      -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$target")" \
      "$merged" "$previous" "$grown" >"$build/$target.merge.log" 2>&1 ||
      { echo "fuzz.sh: merging $target failed; see $build/$target.merge.log" >&2; status=1
        cp "$previous"/* "$committed"/ 2>/dev/null || true; }
    cp "$merged"/* "$committed"/ 2>/dev/null || true
  fi
  rate=$(( elapsed > 0 ? ${execs:-0} / elapsed : 0 ))
  per_core=$(( cpu > 0 ? ${execs:-0} * 100 / cpu : 0 ))
  line=$(printf '%-24s %12s execs %8s exec/s %7s per CPU-s  cov %6s  ft %7s  corpus %6s  crashes %s' \
    "$target" "${execs:-0}" "$rate" "$per_core" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes")
  ((slow > 0)) && line+=$(printf '  slow %s (in %s)' "$slow" "$artifacts")
  ((merge)) && line+=$(printf '  committed %s files, %s' "$(find "$committed" -type f | wc -l)" \
    "$(du -sh "$committed" | cut -f1)")
  summary+=("$line")
done
if ((processes > 1)); then
  echo "fuzz.sh: $processes independent process(es) per target, $seconds s each"
else
  echo "fuzz.sh: $workers worker(s) per target, $seconds s each"
fi
printf '%s\n' "${summary[@]}"
exit "$status"
