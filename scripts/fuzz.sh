#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [TARGET...]: builds every libFuzzer target (fuzz/CMakeLists.txt) with
# clang, ASan and UBSan in build-fuzz/, then runs each for SECONDS (default 60) under `nice -n 19`
# on a corpus seeded from profiles/, the tests and fuzz/corpus/<target>/. Prints one line per
# target: executions, coverage, corpus size and crashes. Exit 0 when no target crashed, 1 when one
# did (the crashing input is in build-fuzz/artifacts/; make it a regression test in tests/), 77
# when clang++ is missing (ctest reads 77 as "skipped").
#   HKIM_FUZZ_BUILD=dir    build folder (default build-fuzz)
#   HKIM_FUZZ_JOBS=N       build jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=60
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(render_fuzzer set_fuzzer profile_fuzzer cluster_export_fuzzer environment_scan_fuzzer sysfs_fuzzer
           transport_log_fuzzer rendezvous_fuzzer)
fi

clangxx=$(command -v clang++ || command -v clang++-14 || true)
if [[ -z $clangxx ]]; then
  echo "fuzz.sh: clang++ not found (bash scripts/setup.sh installs clang): skipped" >&2
  exit 77
fi

build=${HKIM_FUZZ_BUILD:-build-fuzz}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHKIM_FUZZERS=ON -DHKIM_BUILD_TESTS=OFF -DHKIM_BUILD_NCCL_CHECK=OFF "${launcher[@]}" >/dev/null
nice -n 19 cmake --build "$build" -j"${HKIM_FUZZ_JOBS:-2}" --target "${targets[@]}"

# Seeds: committed per-target inputs plus the real inputs of the tests.
seeds() {
  local target=$1 dir=$build/seeds/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  [[ -d fuzz/corpus/$target ]] && cp fuzz/corpus/"$target"/* "$dir"/ 2>/dev/null || true
  case $target in
    render_fuzzer | profile_fuzzer)
      find profiles tests/generator/malformed tests/generator/lint_cases tests/generator/fuzz/corpus \
        -name '*.yaml' -size -64k 2>/dev/null | while read -r f; do
        cp "$f" "$dir/$(echo "$f" | tr / _)"
      done ;;
    environment_scan_fuzzer) cp wrapper/hkim_wrapper/fuzz/corpus/* "$dir"/ 2>/dev/null || true ;;
    cluster_export_fuzzer)
      find tests/generator/cluster_check tests/generator/discover -name '*.json' -o -name '*.yaml' \
        | while read -r f; do cp "$f" "$dir/$(echo "$f" | tr / _)"; done ;;
  esac
  echo "$dir"
}

status=0
summary=()
for target in "${targets[@]}"; do
  binary=$build/fuzz/$target
  work=$build/corpus/$target
  artifacts=$build/artifacts
  mkdir -p "$work" "$artifacts"
  seed_dir=$(seeds "$target")
  log=$build/$target.log
  # The generator targets read profiles/ relative to the repository root.
  set +e
  HKIM_FUZZ_PROFILE=$root/profiles/oke-h100.yaml nice -n 19 "$binary" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$work" "$seed_dir" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
  corpus=$(find "$work" -type f | wc -l)
  crashes=$(find "$artifacts" -name "$target-*" -type f | wc -l)
  if ((rc != 0)); then
    status=1
    echo "fuzz.sh: $target failed (exit $rc); see $log" >&2
    tail -40 "$log" >&2
  fi
  summary+=("$(printf '%-26s %12s execs  cov %6s  ft %7s  corpus %6s  crashes %s' \
    "$target" "${execs:-0}" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes")")
done
printf '%s\n' "${summary[@]}"
exit "$status"
