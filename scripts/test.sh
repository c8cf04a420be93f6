#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite (README's test command).
# Each step prints its wall-clock and CPU seconds (user + sys of every process it ran) on stderr:
# bench/RESULTS.md ("The test command on a fresh 2-core machine") reads them.
set -euo pipefail
cd "$(dirname "$0")/.."
step() {
  local TIMEFORMAT="test.sh: $1: %R s wall, %U s user + %S s sys"
  shift
  time "$@"
}
step setup bash scripts/setup.sh
step configure cmake -S . -B build -G Ninja
step build cmake --build build -j "$(nproc)"
step ctest ctest --test-dir build --output-on-failure -j "$(nproc)"
