#!/bin/bash
# One pass of the passive link agent (hkim-health links --once) on the device machine's real
# sysfs, as an unprivileged user (nobody, no capabilities, no token): bench/RESULTS.md, "Link agent".
# Usage: copy a built hkim-health beside this script, run it; the report is $OUT/links.txt.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
bin=/tmp/hkim-health-links
cp "$(dirname "$0")/hkim-health" "$bin" && chmod 755 "$bin"
{
  echo "## host"; uname -r; id; nproc
  echo "## /sys/class/infiniband"
  ls -la /sys/class/infiniband 2>&1 | head -40
  for d in /sys/class/infiniband/*; do
    [ -e "$d" ] || continue
    for p in "$d"/ports/*; do
      echo "$p: state=$(cat "$p/state" 2>&1) phys=$(cat "$p/phys_state" 2>&1) link_layer=$(cat "$p/link_layer" 2>&1)"
      echo "  counters: $(ls "$p/counters" 2>/dev/null | wc -l), hw_counters: $(ls "$p/hw_counters" 2>/dev/null | wc -l)"
    done
  done
  echo "## ldd"; ldd "$bin" 2>&1
  run() {
    if [ "$(id -u)" = 0 ]; then
      setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$@"
    else
      "$@"
    fi
  }
  echo "## id of the agent"; run id
  echo "## hkim-health links --once (no token, unprivileged)"
  start=$(date +%s.%N)
  run env -i HKIM_HEALTH_SYSFS=/sys/class/infiniband "$bin" links --once --service-account-dir /nonexistent
  echo "exit $?"
  echo "seconds: $(echo "$(date +%s.%N) - $start" | bc 2>/dev/null)"
  echo "## hkim-health links --once with the rails named mlx5_0 and a missing one"
  run env -i HKIM_HEALTH_SYSFS=/sys/class/infiniband HKIM_HEALTH_LINK_RAILS=rail0=mlx5_0,rail9=mlx5_99 "$bin" links --once --service-account-dir /nonexistent
  echo "exit $?"
} > "$out/links.txt" 2>&1
cat "$out/links.txt" | head -150
