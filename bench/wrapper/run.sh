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

hyperfine -N --warmup 10 --min-runs 200 --export-json "$work/result.json" \
  --command-name hkim-wrapper "$wrapper -q -- true" \
  --command-name seed-bash-wrapper "bash $here/seed_wrapper.sh true"

python3 - "$work/result.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ours, peer = r["hkim-wrapper"], r["seed-bash-wrapper"]
print(f"hkim-wrapper      mean {ours['mean']*1e3:8.3f} ms  (median {ours['median']*1e3:.3f} ms)")
print(f"seed bash wrapper mean {peer['mean']*1e3:8.3f} ms  (median {peer['median']*1e3:.3f} ms)")
print(f"ratio: hkim-wrapper starts {peer['mean']/ours['mean']:.1f}x faster than the bash peer (mean), "
      f"{peer['median']/ours['median']:.1f}x (median)")
PY
