#!/usr/bin/env bash
# Start-up cost of `hkim-wrapper -- true` against the seeds' bash wrapper (seed_wrapper.sh) on the
# same 4-VF Barcelona fixture (255-slot GID tables), timed by hyperfine in one run; prints the
# ratio. Usage: bench/wrapper/run.sh [BUILD_DIR]   (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
wrapper=$build/wrapper/hkim-wrapper
make_fixture=$build/tests/wrapper/hkim_wrapper_make_fixture
for f in "$wrapper" "$make_fixture"; do
  [[ -x $f ]] || { echo "missing $f: build the hkim-wrapper and hkim_wrapper_make_fixture targets" >&2; exit 2; }
done
command -v hyperfine >/dev/null || { echo "hyperfine not found (scripts/setup.sh installs it)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$make_fixture" barcelona "$work/sys" > "$work/env"
while IFS= read -r line; do export "${line?}"; done < "$work/env"
export HKIM_SYSFS_ROOT=$work/sys

# Both must agree on the devices before their speed means anything.
ours=$("$wrapper" -q --print-env 2>/dev/null | sed -n 's/^NCCL_IB_HCA==//p')
theirs=$(bash "$here/seed_wrapper.sh" sh -c 'echo "$NCCL_IB_HCA"' 2>/dev/null | tr ',' '\n' | sort -V | paste -sd,)
echo "hkim-wrapper devices: $ours   bash peer devices: $theirs"
[[ $ours == "$theirs" ]] || { echo "the two disagree; not timing" >&2; exit 1; }

hyperfine -N --warmup 10 --min-runs 200 --export-csv "$work/result.csv" \
  --command-name hkim-wrapper "$wrapper -q -- true" \
  --command-name seed-bash-wrapper "bash $here/seed_wrapper.sh true"

# CSV columns: command,mean,stddev,median,user,system,min,max (seconds)
awk -F, '
  $1 == "hkim-wrapper"      { om = $2; od = $4 }
  $1 == "seed-bash-wrapper" { pm = $2; pd = $4 }
  END {
    printf "hkim-wrapper      mean %8.3f ms  (median %.3f ms)\n", om * 1e3, od * 1e3
    printf "seed bash wrapper mean %8.3f ms  (median %.3f ms)\n", pm * 1e3, pd * 1e3
    printf "ratio: hkim-wrapper starts %.1fx faster than the bash peer (mean), %.1fx (median)\n", pm / om, pd / od
  }' "$work/result.csv"
